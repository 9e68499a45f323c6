// The output side of a streaming decoder (zlib, bzip2, xz) held to the
// caller's limit: the buffer grows by doubling up to the limit and never
// past it. Once it is full, one more step into a one-byte probe tells a
// stream that has ended from one that would pass the limit.
#ifndef CHUNKWISE_SRC_CODEC_CAPPED_STREAM_H_
#define CHUNKWISE_SRC_CODEC_CAPPED_STREAM_H_

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "chunkwise/core/bytes.h"
#include "chunkwise/core/result.h"

namespace chunkwise::codec::internal {

// What one decoder step did.
struct StreamStep {
  std::size_t consumed = 0;
  std::size_t produced = 0;
  bool ended = false;  // The (last) stream is complete.
};

// Runs `step(const uint8_t* in, size_t in_size, uint8_t* out, size_t out_size)
// -> Result<StreamStep>` until it reports the end. Corruption naming `codec`
// when the input runs out first or a step makes no progress; OutOfRange when
// the output would pass `limit`. Returns the bytes produced and, in
// `*consumed`, how much input the streams took.
template <typename Step>
Result<Bytes> DecodeCapped(std::string_view codec, ByteView encoded, std::size_t limit,
                           std::size_t* consumed, Step&& step) {
  constexpr std::size_t kFirstSize = std::size_t{1} << 16;
  Bytes out(std::min(limit, std::max(kFirstSize, 4 * encoded.size())));
  std::size_t in_pos = 0, out_pos = 0;
  while (true) {
    if (out_pos == out.size() && out.size() < limit) {
      out.resize(std::min(limit, std::max(kFirstSize, 2 * out.size())));
    }
    std::uint8_t probe = 0;
    const bool probing = out_pos == out.size();
    Result<StreamStep> done = step(encoded.data() + in_pos, encoded.size() - in_pos,
                                   probing ? &probe : out.data() + out_pos,
                                   probing ? std::size_t{1} : out.size() - out_pos);
    if (!done.ok()) return std::move(done).status();
    if (probing && done->produced > 0) {
      return Status::OutOfRange(std::string(codec) + ": decoded data exceeds the limit of " +
                                std::to_string(limit) + " bytes");
    }
    in_pos += done->consumed;
    out_pos += done->produced;
    if (done->ended) break;
    if (done->consumed == 0 && done->produced == 0) {
      return Status::Corruption(std::string(codec) + (in_pos == encoded.size()
                                                          ? ": truncated stream"
                                                          : ": stream makes no progress"));
    }
  }
  out.resize(out_pos);
  *consumed = in_pos;
  return out;
}

}  // namespace chunkwise::codec::internal

#endif  // CHUNKWISE_SRC_CODEC_CAPPED_STREAM_H_
