// Arrays of variable-length UTF-8 strings: zarr v3 data_type "string" with
// the vlen-utf8 codec and v2 dtype "|O" with a vlen-utf8 filter, which
// zarr-python 3 writes for numpy StringDType and str data; and of
// variable-length bytes: v3 "variable_length_bytes" with vlen-bytes, v2 "|O"
// with a vlen-bytes filter (zarr-python 3's VariableLengthBytes). Their
// elements have no fixed size, so ZarrArray refuses them and these create,
// read and write them as text or bytes, each element a std::string
// (docs/formats/zarr.md, "Variable-length strings").
#ifndef CHUNKWISE_FACADE_ZARR_STRINGS_H_
#define CHUNKWISE_FACADE_ZARR_STRINGS_H_

#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "chunkwise/core/index.h"
#include "chunkwise/core/region.h"
#include "chunkwise/facade/call_options.h"
#include "chunkwise/facade/context.h"
#include "chunkwise/facade/options.h"

namespace chunkwise {

struct ZarrStringArrayInfo {
  int zarr_format = 3;
  core::Shape shape;
  core::Shape chunks;
  std::string fill_value;  // What an element of a chunk not stored reads as.
  bool bytes = false;      // Elements are any bytes (vlen-bytes), not UTF-8 text.
};

// What a new string array is; the rest as for numeric arrays (ZarrArraySpec).
struct ZarrStringArraySpec {
  core::Shape shape;
  core::Shape chunks;
  std::optional<core::Shape> shards;  // zarr v3 only; a multiple of chunks.
  // The bytes→bytes codecs after vlen-utf8 (v2: the compressor).
  CodecChainSpec codecs = {{CodecSpec{CodecSpec::Kind::kZstd, 3}}};
  // Added to `codecs` as for numeric arrays: absent is crc32c on v3, none on v2.
  std::optional<ChunkChecksum> checksum;
  std::string fill_value;  // The text (bytes) an element never written reads as.
  bool bytes = false;      // Variable-length bytes (vlen-bytes), not UTF-8 text.
  // Empty, or one per dimension (an absent entry is written as null).
  std::vector<std::optional<std::string>> dimension_names;
  int zarr_format = 3;
  nlohmann::json attributes = nlohmann::json::object();  // A JSON object.
};

struct ZarrStringCreateOptions {
  bool overwrite = false;  // Replace an array or group already at the URL.
};

// Creates the string array at `url` (its store created if missing): v3
// data_type "string" with codecs [vlen-utf8, codecs...], v2 dtype "|O" with
// filters [vlen-utf8], as zarr-python 3 writes them; with spec.bytes
// "variable_length_bytes" and vlen-bytes instead. InvalidArgument naming
// the field for a spec that is not an array (ranks, shards not a multiple of
// chunks or on v2, attributes not an object, a text fill value not UTF-8), or
// naming the URL when something is there and !overwrite.
Result<ZarrStringArrayInfo> CreateZarrStringArray(const Context& context, std::string_view url,
                                                  const ZarrStringArraySpec& spec,
                                                  const ZarrStringCreateOptions& options = {},
                                                  const CallOptions& call = {});

// Writes `values` (C order, UTF-8 or for bytes any, one per element of `region`) over
// `region` of the string array at `url`; chunks it covers in part keep their
// other elements, and a chunk left all fill value is not stored.
// DescribeZarrStringArray's errors; InvalidArgument (naming the URL) when
// `region` is not inside the array, the count differs or a text value is
// not UTF-8; Cancelled if the call was (the chunks written are whole).
Status WriteZarrStrings(const Context& context, std::string_view url, const core::Region& region,
                        const std::vector<std::string>& values, const CallOptions& call = {});

// The string array at `url`. NotFound when no array is there; Unsupported
// naming the data type when it is not a vlen-utf8 string or vlen-bytes
// array, or the codecs when not [transpose,] vlen-utf8 (vlen-bytes),
// bytes→bytes codecs (sharded or not).
Result<ZarrStringArrayInfo> DescribeZarrStringArray(const Context& context, std::string_view url,
                                                    const CallOptions& call = {});

// The elements of `region` of the string array at `url`, C order (UTF-8, or
// bytes). DescribeZarrStringArray's errors; InvalidArgument when `region` is
// not inside the array; Corruption naming a chunk that is not vlen-utf8
// text (vlen-bytes);
// Cancelled if the call was.
Result<std::vector<std::string>> ReadZarrStrings(const Context& context, std::string_view url,
                                                 const core::Region& region,
                                                 const CallOptions& call = {});

// Writes the elements of `region` of the string array at `url` to the .npy
// file `path` (atomically, replacing it), as numpy's fixed-width '<U<n>', n
// the most code points of any element (at least 1), as
// numpy.save(path, np.array(strings)) would; returns n. Trailing NUL
// characters are lost, as numpy's 'U' drops them. ReadZarrStrings' errors;
// Unsupported naming `url` for a bytes array (no .npy dtype holds those
// whole); OutOfRange past the process's memory limit; io::WriteNpy's errors.
Result<std::size_t> ExportZarrStringsToNpy(const Context& context, std::string_view url,
                                           const core::Region& region,
                                           const std::filesystem::path& path,
                                           const CallOptions& call = {});

// Writes the .npy file at `path` into the string array at `url`, its first
// element at `offset` (the origin when empty; else one entry per dimension),
// its shape the region written; returns that region. The .npy's dtype must
// fit the array: numpy's fixed-width text '<U<n>' or '>U<n>' (UTF-32, what
// ExportZarrStringsToNpy writes) into a text array, '|S<n>' into a bytes
// array; each element loses its trailing NULs, as numpy's 'U' and 'S' drop
// them. C or Fortran order. InvalidArgument naming the file when the dtype
// does not fit (a number, 'S' into text, 'U' into bytes, naming both), when
// a 'U' element is not a Unicode scalar value (a surrogate, or past
// U+10FFFF; naming the element), or when the offset's rank is not the
// array's; io::ReadNpy's errors; WriteZarrStrings' errors (a region outside
// the array among them).
Result<core::Region> ImportNpyIntoZarrStrings(const Context& context, std::string_view url,
                                              const std::filesystem::path& path,
                                              const core::Coord& offset = {},
                                              const CallOptions& call = {});

}  // namespace chunkwise

#endif  // CHUNKWISE_FACADE_ZARR_STRINGS_H_
