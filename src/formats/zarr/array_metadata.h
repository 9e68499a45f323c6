// ArrayMetadata: what a zarr array's metadata says, for both zarr formats.
//
// Spec: docs/formats/zarr.md, "Node metadata" (v3 `zarr.json`) and "Zarr v2
// metadata" (`.zarray`/`.zattrs`). One struct serves both formats: a v2 array's
// dtype byte order, `order`, `filters` and `compressor` are translated on
// parsing into the v3 codec list they mean (same section, "v2 ↔ v3"), so the
// array code below sees one codec chain. Writing a v2 array translates back
// and refuses codec lists v2 cannot express (sharding, crc32c, two
// compressors). A plain value type.
#ifndef CHUNKWISE_FORMATS_ZARR_ARRAY_METADATA_H_
#define CHUNKWISE_FORMATS_ZARR_ARRAY_METADATA_H_

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "chunkwise/core/data_type.h"
#include "chunkwise/core/index.h"
#include "chunkwise/core/result.h"
#include "chunkwise/store/store.h"
#include "formats/zarr/chunk_key_encoding.h"
#include "formats/zarr/fill_value.h"

namespace chunkwise::formats::zarr {

// The metadata keys, relative to the array's prefix.
inline constexpr std::string_view kZarrJsonKey = "zarr.json";
inline constexpr std::string_view kZarrayKey = ".zarray";
inline constexpr std::string_view kZattrsKey = ".zattrs";
inline constexpr std::string_view kZgroupKey = ".zgroup";

struct ArrayMetadata {
  int zarr_format = 3;
  core::Shape shape;
  core::DataType data_type;
  // The chunk grid's chunk_shape: the shard shape when the codecs shard.
  core::Shape chunk_shape;
  ChunkKeyEncoding chunk_key_encoding;
  FillValue fill_value;          // One element in host byte order.
  bool fill_value_null = false;  // v2's `null`: reads as zeros; chunks are never left out.
  // The v3 `codecs` list (for v2, the translation of order/filters/compressor).
  nlohmann::json codecs = nlohmann::json::array();
  nlohmann::json attributes = nlohmann::json::object();
  // One string or null per dimension; absent when the metadata has none.
  std::optional<nlohmann::json> dimension_names;
  // The data type as the metadata spells it ("|O", "<U8", "string", a
  // structured dtype's JSON) when this library has no such type; empty
  // otherwise. The rest of the metadata is parsed all the same, so that
  // `zarr info` can show it, with data_type a placeholder (uint8) and the
  // fill value zero; Array refuses to open it (Unsupported, naming the type).
  std::string unsupported_data_type;

  // unsupported_data_type when set, else data_type's zarr name (its NumPy
  // typestr, e.g. "<M8[ns]" or "|S5", for the parameterized types).
  std::string data_type_name() const;

  // Checks ranks, extents and the fill value's size; InvalidArgument naming
  // the field. (The codecs are checked when a chain is built for the chunks.)
  Status Validate() const;
};

// Parses the text of a v3 `zarr.json` read from `key` (named in messages).
// Corruption for text that is not JSON (ParseJsonDocument), InvalidArgument
// for malformed or inconsistent fields, Unsupported for a
// node that is not an array, an extension this library does not know (unless
// it says "must_understand": false) or storage transformers.
Result<ArrayMetadata> ParseV3ArrayMetadata(std::string_view text, std::string_view key);
// The `zarr.json` of `metadata`, pretty-printed.
std::string FormatV3ArrayMetadata(const ArrayMetadata& metadata);

// Parses a v2 `.zarray` and, when present, its `.zattrs`. `_ARRAY_DIMENSIONS`
// in the attributes becomes dimension_names. The compressor and filters
// become v3 codecs: blosc, zstd and gzip as themselves, any other numcodecs
// id as "numcodecs.<id>" (an id the registry lacks is refused when the codecs
// are built, so the metadata still parses). A dtype outside the numeric set
// is kept in unsupported_data_type. Unsupported for filters that cannot be
// put in v3 order (an array filter after a byte filter) or that reinterpret
// the array's byte order.
Result<ArrayMetadata> ParseV2ArrayMetadata(std::string_view zarray_text,
                                           std::optional<std::string_view> zattrs_text,
                                           std::string_view key);
// The `.zarray` text; InvalidArgument when the codecs have no v2 form. Codecs
// before `bytes` become filters, and after it every codec but the last (the
// compressor).
Result<std::string> FormatV2Zarray(const ArrayMetadata& metadata);
// The `.zattrs` text: the attributes, plus `_ARRAY_DIMENSIONS` from dimension_names.
std::string FormatV2Zattrs(const ArrayMetadata& metadata);

// The group documents: {"zarr_format": 3, "node_type": "group", ...} and v2's `.zgroup`.
std::string FormatV3Group(const nlohmann::json& attributes);
std::string FormatV2Group();

// Parses a stored JSON document without throwing; Corruption naming `key`
// on a syntax error or nesting deeper than core::kMaxJsonDepth (stored bytes
// that do not parse are damaged, whatever reads them).
Result<nlohmann::json> ParseJsonDocument(std::string_view text, std::string_view key);

// True when `prefix` ("" or ending in "/") holds a zarr node: zarr.json,
// .zarray or .zgroup. What an overwrite may replace: a writer erases the keys
// under a prefix only if they are a zarr array or group, never a directory
// of someone's other files.
Result<bool> HoldsZarrNode(const store::Store& store, std::string_view prefix);

// The key that marks an array being written whose metadata is not yet
// published (Array::CreateUnpublished).
inline constexpr std::string_view kIncompleteMarkerKey = ".chunkwise-incomplete";

// OK when nothing is under `prefix`, or when `overwrite` and it holds a zarr
// node (or an unpublished array of ours), whose keys are then erased. InvalidArgument naming
// `where` (the prefix's path) otherwise: kept data, or not recognisably zarr.
// Without `overwrite`, an array begun by Array::CreateUnpublished and never
// published is called unfinished, its marker named, and the message says it
// can be resumed (Array::ResumeUnpublished) or replaced.
Status ClearForOverwrite(store::Store& store, std::string_view prefix, bool overwrite,
                         std::string_view where);
// Where `prefix` lives, for messages: its path, "memory:" for a memory store's root.
std::string DescribePrefix(const store::Store& store, std::string_view prefix);

}  // namespace chunkwise::formats::zarr

#endif  // CHUNKWISE_FORMATS_ZARR_ARRAY_METADATA_H_
