// Typed options next to the shorthand parsers that fill them.
//
// A program builds these structs; the CLI and the Python module parse the
// short spellings users type ("zstd:1", "blosc:lz4:5:shuffle+crc32c",
// "uint16" or "<u2") with the parsers here, so both speak the same way.
#ifndef CHUNKWISE_FACADE_OPTIONS_H_
#define CHUNKWISE_FACADE_OPTIONS_H_

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "chunkwise/core/data_type.h"
#include "chunkwise/core/index.h"
#include "chunkwise/core/npy_dtype.h"
#include "chunkwise/core/result.h"

namespace chunkwise {

// One bytes→bytes codec of a chunk's chain.
struct CodecSpec {
  // kZlib, kLz4, kBz2, kLzma: numcodecs' compressors ("numcodecs.zlib", …), for
  // zarr v2 arrays older readers take.
  enum class Kind { kZstd, kGzip, kBlosc, kCrc32c, kZlib, kLz4, kBz2, kLzma };
  Kind kind = Kind::kZstd;
  // zstd, gzip, zlib and bz2's level, blosc's clevel, lz4's acceleration,
  // lzma's preset; -1: the codec's default (zstd 3, gzip 6, blosc 5, and
  // numcodecs' zlib 1, bz2 1, lz4 1, lzma 6).
  int level = -1;
  bool zstd_checksum = false;             // zstd: XXH64 content checksum in every frame.
  std::string blosc_compressor = "lz4";   // lz4, lz4det (deterministic lz4), lz4hc, zstd, zlib, …
  std::string blosc_shuffle = "shuffle";  // shuffle, noshuffle or bitshuffle.
};

// A chain of bytes→bytes codecs, applied in order; empty stores raw bytes.
struct CodecChainSpec {
  std::vector<CodecSpec> codecs;
  // The shorthand spelling, e.g. "zstd:1" or "blosc:lz4:5:shuffle+crc32c"; "none" if empty.
  std::string ToShorthand() const;
};

// Where a sharded array's shards keep their index of inner chunks: after the
// chunks (zarr's default) or before them (the sharding codec's index_location).
enum class ZarrIndexLocation { kStart, kEnd };

// The chain `shorthand` spells (codec/codec_shorthand.h lists the forms).
// InvalidArgument, listing the accepted forms, when it spells none.
Result<CodecChainSpec> ParseCodecs(std::string_view shorthand);

// An end-to-end checksum on every chunk of a new array (docs/reliability.md):
// a crc32c codec after the others (over the encoded chunk), or zstd's content
// checksum inside each frame (needs a zstd codec). zarr-python 3 and
// TensorStore verify both on read, as chunkwise does.
enum class ChunkChecksum { kNone, kCrc32c, kZstd };

// "none", "crc32c" or "zstd"; "default" or "" is nullopt: the default, crc32c
// on a zarr v3 array and none on v2 (which has no crc32c codec).
// InvalidArgument (field "checksum") listing the accepted words otherwise.
Result<std::optional<ChunkChecksum>> ParseChunkChecksum(std::string_view text);

// The shorthand `codecs` of a new zarr v`zarr_format` array with `checksum`
// added (absent: the default above). InvalidArgument (field "checksum") for
// a zstd checksum without zstd.
Result<std::string> CodecsWithChunkChecksum(std::string_view codecs,
                                            std::optional<ChunkChecksum> checksum, int zarr_format);

// An array shape as extents joined by commas ("512,512"); the empty text is
// the shape of a 0-d array (one element, no dimensions).
Result<core::Shape> ParseArrayShape(std::string_view text);

// Dimension names joined by commas, spaces around each trimmed: "z,y,x". An
// empty item is a dimension without a name (null in zarr.json): "t,,x" names
// the first and last. The empty text is no names at all.
std::vector<std::optional<std::string>> ParseDimensionNames(std::string_view text);

// A data type by its zarr v3 name ("uint16", "float32") or numpy typestr
// ("<u2", "|u1", "<f4", "u2"; little-endian or single-byte only). InvalidArgument
// naming the text otherwise.
Result<core::DataType> ParseDataType(std::string_view text);

// An option given as JSON text (attributes, codec documents), parsed with the
// library's limits (core/json.h). InvalidArgument naming `what` when it is not JSON.
Result<nlohmann::json> ParseJsonOption(std::string_view text, std::string_view what);

// The element type of an array file (.npy or raw) as numpy spells it: a
// name ("uint16") or any typestr, big-endian ones too (">u2"). InvalidArgument
// naming the text otherwise.
Result<core::NpyDtype> ParseFileDtype(std::string_view text);

}  // namespace chunkwise

#endif  // CHUNKWISE_FACADE_OPTIONS_H_
