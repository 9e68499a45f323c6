// Short command-line spellings of bytes→bytes codec chains.
//
// The CLI accepts e.g. `--codec zstd:3` instead of zarr JSON. A shorthand is
// "none" or one or more of these joined with '+', applied in order:
//   zstd[:LEVEL[:checksum]]            level default 3; "checksum" adds zstd's
//                                      content checksum (XXH64) to every frame
//   gzip[:LEVEL]                       level default 6
//   blosc[:CNAME[:CLEVEL[:SHUFFLE]]]   defaults lz4, 5, shuffle; typesize from the caller
//                                      CNAME "lz4det": cname "lz4" written by the
//                                      deterministic encoder (shuffle or noshuffle)
//   crc32c
//   zlib[:LEVEL] lz4[:ACCELERATION] bz2[:LEVEL] lzma[:PRESET]
//                                      numcodecs' compressors ("numcodecs.zlib", ...),
//                                      numcodecs' defaults (1, 1, 1, 6)
// e.g. "blosc:zstd:3:bitshuffle+crc32c". The result is the zarr v3 JSON list of
// those codecs, validated as CodecRegistry::WithBuiltins() would.
#ifndef CHUNKWISE_CODEC_CODEC_SHORTHAND_H_
#define CHUNKWISE_CODEC_CODEC_SHORTHAND_H_

#include <cstddef>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "chunkwise/core/result.h"
#include "codec/codec_registry.h"

namespace chunkwise::codec {

// The JSON array of codecs `text` spells (empty for "none" or ""). `typesize`
// is the element size written into blosc's configuration. InvalidArgument,
// listing the accepted forms, on anything else or an out-of-range value.
// The encoder choice of "lz4det" is not part of the JSON; callers that write
// chunks use ParseCodecShorthandWithEncoders to keep it.
Result<nlohmann::json> ParseCodecShorthand(std::string_view text, std::size_t typesize);

struct CodecShorthand {
  nlohmann::json codecs;    // As ParseCodecShorthand returns.
  CodecBuildOptions build;  // The encoders chosen: "blosc:lz4det…" → deterministic blosc.
};

// As ParseCodecShorthand, with the encoder choices; InvalidArgument also when
// a chosen encoder cannot write one of the codecs (e.g. "blosc:lz4det:5:bitshuffle").
Result<CodecShorthand> ParseCodecShorthandWithEncoders(std::string_view text, std::size_t typesize);

// End-to-end checksums a chain can carry, each verified by zarr-python 3 and
// TensorStore on read: a crc32c codec after the others (over the encoded
// chunk), or zstd's own content checksum inside each frame (over the
// decoded bytes).
enum class Checksum { kNone, kCrc32c, kZstd };

// The shorthand `text` with `checksum` added: "+crc32c" at the end (unless
// it ends with crc32c already), or ":checksum" on every zstd element
// (InvalidArgument when there is none). kNone returns `text` unchanged.
Result<std::string> WithChecksum(std::string_view text, Checksum checksum);

}  // namespace chunkwise::codec

#endif  // CHUNKWISE_CODEC_CODEC_SHORTHAND_H_
