#include "pipelines/stream/staging_batch.h"

#include <cstring>

namespace chunkwise::pipelines::stream {

void FillWithValue(MutableByteView out, const codec::ChunkSpec& spec) {
  const std::size_t item = spec.dtype.size();
  bool zero = true;
  for (std::uint8_t byte : spec.fill_value) zero = zero && byte == 0;
  if (zero) {
    std::memset(out.data(), 0, out.size());
    return;
  }
  for (std::size_t at = 0; at + item <= out.size(); at += item) {
    std::memcpy(out.data() + at, spec.fill_value.data(), item);
  }
}

}  // namespace chunkwise::pipelines::stream
