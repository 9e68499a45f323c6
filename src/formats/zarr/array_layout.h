// ArrayLayout: the few choices a person makes for a new array, turned into
// full zarr metadata.
//
// The CLI's `zarr create` and `zarr convert` take shapes and a codec
// shorthand ("zstd:3", "blosc:lz4:5:shuffle"; codec/codec_shorthand.h), not
// JSON. This file builds the metadata chunkwise writes by convention
// (docs/formats/zarr.md, "What we write"): v3 keys "c/…", inner codecs
// [bytes little, compressors…], index [bytes little, crc32c] at the end unless
// asked otherwise; v2 with "." keys and one compressor.
#ifndef CHUNKWISE_FORMATS_ZARR_ARRAY_LAYOUT_H_
#define CHUNKWISE_FORMATS_ZARR_ARRAY_LAYOUT_H_

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "chunkwise/core/data_type.h"
#include "chunkwise/core/index.h"
#include "formats/zarr/array_metadata.h"
#include "formats/zarr/shard_index.h"

namespace chunkwise::formats::zarr {

struct ArrayLayout {
  core::Shape shape;
  core::DataType data_type;
  core::Shape chunk_shape;                 // The (inner) chunk.
  std::optional<core::Shape> shard_shape;  // v3 only; a multiple of chunk_shape.
  std::string codec = "zstd:3";            // Shorthand of the bytes→bytes codecs.
  // The chunks' byte order (the bytes codec's "endian"; v2: the dtype's).
  // One-byte types have none.
  core::Endian endian = core::Endian::kLittle;
  IndexLocation index_location = IndexLocation::kEnd;
  std::optional<std::string> fill_value;  // --fill text; absent means 0.
  // Empty, or one per dimension; an absent entry is written as null (zarr v3
  // allows a dimension without a name).
  std::vector<std::optional<std::string>> dimension_names;
  int zarr_format = 3;
  nlohmann::json attributes = nlohmann::json::object();
};

// The metadata for `layout`. InvalidArgument naming the option when ranks
// differ, a shard is not a multiple of the chunk, v2 is asked to shard, or
// the codec text or fill value is bad.
Result<ArrayMetadata> BuildArrayMetadata(const ArrayLayout& layout);

// The layout an existing array has: its inner chunk, shard and compressor
// (as JSON codecs in `codecs_json`), for `zarr convert` to start from.
struct ExistingLayout {
  core::Shape chunk_shape;                      // Inner chunk when sharded.
  std::optional<core::Shape> shard_shape;       // Set when the codecs are [sharding_indexed].
  nlohmann::json bytes_codecs;                  // The bytes→bytes codecs of the (inner) chunks.
  core::Endian endian = core::Endian::kLittle;  // The bytes codec's (little when unstated).
};
ExistingLayout DescribeLayout(const ArrayMetadata& metadata);

// Metadata like `layout` builds, but with `bytes_codecs` (JSON) in place of the
// shorthand; used when converting keeps the source's compressor.
Result<ArrayMetadata> BuildArrayMetadataWithCodecs(const ArrayLayout& layout,
                                                   const nlohmann::json& bytes_codecs);

}  // namespace chunkwise::formats::zarr

#endif  // CHUNKWISE_FORMATS_ZARR_ARRAY_LAYOUT_H_
