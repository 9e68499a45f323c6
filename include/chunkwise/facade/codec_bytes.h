// Bytes through a codec chain named by its shorthand (`chunkwise codec
// encode|decode|measure|list` and `crc32c`): the chain the zarr entry points
// write chunks with, applied to a buffer by hand.
#ifndef CHUNKWISE_FACADE_CODEC_BYTES_H_
#define CHUNKWISE_FACADE_CODEC_BYTES_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "chunkwise/core/bytes.h"
#include "chunkwise/core/result.h"

namespace chunkwise {

// The registered codecs by zarr name, sorted.
std::vector<std::string> CodecNames();

// `shorthand` (facade/options.h's forms) as zarr v3 codec JSON text, with
// `typesize` written into blosc's configuration. InvalidArgument otherwise.
Result<std::string> CodecsJson(std::string_view shorthand, std::size_t typesize);

// `data` encoded by the chain `shorthand` spells (elements of `typesize` bytes).
Result<Bytes> EncodeBytes(std::string_view shorthand, std::size_t typesize, ByteView data);
// `encoded` decoded by that chain, refused (InvalidArgument) past
// `max_decoded_bytes` before that much is allocated.
Result<Bytes> DecodeBytes(std::string_view shorthand, std::size_t typesize, ByteView encoded,
                          std::uint64_t max_decoded_bytes);

struct CodecMeasurement {
  std::uint64_t decoded_bytes = 0;
  std::uint64_t encoded_bytes = 0;
  double ratio = 0;                    // decoded / encoded.
  double encode_bytes_per_second = 0;  // Medians over the repetitions.
  double decode_bytes_per_second = 0;
};

// The chain's ratio and speed over `data` cut in chunks of `chunk_bytes`,
// each timing the median of `repetitions` runs.
Result<CodecMeasurement> MeasureCodecs(std::string_view shorthand, std::size_t typesize,
                                       ByteView data, std::size_t chunk_bytes, int repetitions);

// The CRC32C (Castagnoli) of `data`, as the crc32c codec writes it.
std::uint32_t Crc32cOf(ByteView data);

}  // namespace chunkwise

#endif  // CHUNKWISE_FACADE_CODEC_BYTES_H_
