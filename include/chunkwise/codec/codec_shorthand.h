// Short command-line spellings of bytes→bytes codec chains.
//
// The CLI accepts e.g. `--codec zstd:3` instead of zarr JSON. A shorthand is
// "none" or one or more of these joined with '+', applied in order:
//   zstd[:LEVEL]                       level default 3
//   gzip[:LEVEL]                       level default 6
//   blosc[:CNAME[:CLEVEL[:SHUFFLE]]]   defaults lz4, 5, shuffle; typesize from the caller
//   crc32c
// e.g. "blosc:zstd:3:bitshuffle+crc32c". The result is the zarr v3 JSON list of
// those codecs, validated as CodecRegistry::WithBuiltins() would.
#ifndef CHUNKWISE_CODEC_CODEC_SHORTHAND_H_
#define CHUNKWISE_CODEC_CODEC_SHORTHAND_H_

#include <cstddef>
#include <nlohmann/json.hpp>
#include <string_view>

#include "chunkwise/core/result.h"

namespace chunkwise::codec {

// The JSON array of codecs `text` spells (empty for "none" or ""). `typesize`
// is the element size written into blosc's configuration. InvalidArgument,
// listing the accepted forms, on anything else or an out-of-range value.
Result<nlohmann::json> ParseCodecShorthand(std::string_view text, std::size_t typesize);

}  // namespace chunkwise::codec

#endif  // CHUNKWISE_CODEC_CODEC_SHORTHAND_H_
