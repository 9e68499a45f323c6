// Measures what a bytes→bytes codec chain does to real data: compression
// ratio and single-thread encode and decode throughput, with every decoded
// chunk checked against its input.
//
// Used by `chunkwise codec measure` and the demo; the peer comparisons that
// back chunkwise's claims live in bench/.
#ifndef CHUNKWISE_CODEC_CODEC_MEASUREMENT_H_
#define CHUNKWISE_CODEC_CODEC_MEASUREMENT_H_

#include <cstdint>

#include "codec/codec_chain.h"

namespace chunkwise::codec {

struct CodecFigures {
  std::uint64_t decoded_bytes = 0;
  std::uint64_t encoded_bytes = 0;
  double encode_seconds = 0;  // Median over the repetitions.
  double decode_seconds = 0;

  double ratio() const {
    return encoded_bytes == 0 ? 0 : static_cast<double>(decoded_bytes) / encoded_bytes;
  }
  double encode_bytes_per_second() const {
    return encode_seconds > 0 ? decoded_bytes / encode_seconds : 0;
  }
  double decode_bytes_per_second() const {
    return decode_seconds > 0 ? decoded_bytes / decode_seconds : 0;
  }
};

// Cuts `data` into chunks of `chunk_bytes` (the last may be shorter), encodes
// and decodes each with `chain` on the calling thread, `repetitions` times.
// Internal if a chunk does not decode to its input (a codec bug).
Result<CodecFigures> MeasureCodecChain(const CodecChain& chain, ByteView data,
                                       std::size_t chunk_bytes, int repetitions);

}  // namespace chunkwise::codec

#endif  // CHUNKWISE_CODEC_CODEC_MEASUREMENT_H_
