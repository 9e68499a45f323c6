// The JSON meta files of a bcolz 1.x carray and ctable, as pure formats.
//
// Spec: docs/formats/bcolz.md, "carray directory" (meta/sizes, meta/storage,
// __attrs__, what chunkwise writes) and "ctable directory" (__rootdirs__).
// Every file is one ASCII JSON object and a newline.
// The dtype string is NumPy's str(dtype): a name ("int32", "bool",
// "datetime64[ns]") or a typestr ("|S10", "<U5", ">i4"); chunkwise also
// writes and reads a structured dtype as its descr literal
// ("[('a', '<i4'), ('b', '<f8')]"), which np.dtype(eval(s)) accepts. This
// file parses and serializes; reading and writing files is in carray.h.
// Functions here are thread-compatible: they share no state.
#ifndef CHUNKWISE_FORMATS_BCOLZ_META_H_
#define CHUNKWISE_FORMATS_BCOLZ_META_H_

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "chunkwise/core/bytes.h"
#include "chunkwise/core/npy_dtype.h"
#include "chunkwise/core/result.h"

namespace chunkwise::formats::bcolz {

// Blosc parameters of meta/storage's "cparams".
struct Cparams {
  int clevel = 5;             // 0..9.
  int shuffle = 1;            // 0 none, 1 byte, 2 bit (c-blosc's doshuffle).
  std::string cname = "lz4";  // Absent in old files: "blosclz".
  int quantize = 0;           // Lossy float rounding by bcolz on write; readers ignore it.
};

// meta/storage.
struct StorageMeta {
  core::NpyDtype dtype;  // The base (scalar) dtype; an n-d atom's shape is in sizes.
  Cparams cparams;
  std::int64_t chunklen = 1;     // Rows per chunk, >= 1.
  std::int64_t expectedlen = 0;  // The hint chunklen was derived from.
  nlohmann::json dflt = 0;       // Fill value for resize growth, a JSON scalar (or list).
};

// meta/sizes.
struct SizesMeta {
  std::vector<std::int64_t> shape;  // shape[0] is the row count; the rest the atom shape.
  std::int64_t nbytes = 0;          // prod(shape) * itemsize; exact.
  std::int64_t cbytes = 0;          // Approximate; informational only.
};

// Maps a NumPy str(dtype) string to a dtype. InvalidArgument naming the
// string when it is not a fixed-size dtype chunkwise can map (objects,
// sub-array dtypes, unknown names).
Result<core::NpyDtype> DtypeFromString(std::string_view text);
// The string bcolz writes for `dtype` (docs/formats/bcolz.md, "carray
// directory"): names for native-order numbers, typestrs for strings and other
// byte orders, the descr for structured dtypes.
std::string DtypeToString(const core::NpyDtype& dtype);

// The Blosc typesize bcolz uses for a dtype's chunks (docs/formats/bcolz.md,
// ".blp chunk files"): itemsize, but 1 for 'S', 4 for 'U', and 1 for anything
// wider than 255 bytes.
int BloscTypesize(const core::NpyDtype& dtype);

// bcolz's default chunklen for `expectedlen` rows of `atomsize` bytes
// (bcolz utils.calc_chunksize: 16 KB to 4 MB by decade of the expected size).
// REQUIRES: atomsize >= 1.
std::int64_t ChunklenForExpectedlen(std::int64_t expectedlen, std::uint64_t atomsize);

// Parses meta/storage. `file_name` names the file in messages: Corruption
// when it is not JSON or a field is missing or of the wrong type or range,
// InvalidArgument when the dtype cannot be mapped.
Result<StorageMeta> ParseStorageMeta(std::string_view text, std::string_view file_name);
// The meta/storage text, with a final newline.
std::string SerializeStorageMeta(const StorageMeta& storage);

// Parses meta/sizes; Corruption naming `file_name` as above, or when shape
// is empty or negative, or nbytes disagrees with shape and `itemsize`.
Result<SizesMeta> ParseSizesMeta(std::string_view text, std::string_view file_name,
                                 std::size_t itemsize);
std::string SerializeSizesMeta(const SizesMeta& sizes);

// The column names of a ctable's __rootdirs__ ({"names": [...]}).
// Corruption naming `file_name` on anything else or on an invalid or
// repeated name (see CheckColumnName).
Result<std::vector<std::string>> ParseRootdirs(std::string_view text, std::string_view file_name);
std::string SerializeRootdirs(const std::vector<std::string>& names);

// InvalidArgument unless `name` can be a column directory: non-empty, no
// '/', '\\' or NUL, not "." or "..", not starting with "__" or ".".
Status CheckColumnName(std::string_view name);

// An __attrs__ file: a JSON object. Corruption naming `file_name` otherwise.
Result<nlohmann::json> ParseAttrs(std::string_view text, std::string_view file_name);
std::string SerializeAttrs(const nlohmann::json& attrs);

// The bytes of one element of `dtype` holding the JSON `dflt`: a number or
// bool for numbers and datetimes, a string for 'S' / 'U', a list of field
// values for structured dtypes; null gives zeros. InvalidArgument when the
// value does not fit the dtype.
Result<Bytes> DfltToBytes(const nlohmann::json& dflt, const core::NpyDtype& dtype);
// The JSON bcolz writes for a zero dflt of `dtype` (0, 0.0, false, "" or a list).
nlohmann::json ZeroDflt(const core::NpyDtype& dtype);

}  // namespace chunkwise::formats::bcolz

#endif  // CHUNKWISE_FORMATS_BCOLZ_META_H_
