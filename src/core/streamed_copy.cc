#include "core/streamed_copy.h"

#include <algorithm>
#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace chunkwise::core {

void StreamRun(std::uint8_t* to, const std::uint8_t* from, std::size_t bytes) {
#if defined(__SSE2__)
  const std::size_t head = std::min(bytes, (16 - reinterpret_cast<std::uintptr_t>(to) % 16) % 16);
  std::memcpy(to, from, head);
  std::size_t at = head;
  for (; at + 16 <= bytes; at += 16) {
    _mm_stream_si128(reinterpret_cast<__m128i*>(to + at),
                     _mm_loadu_si128(reinterpret_cast<const __m128i*>(from + at)));
  }
  std::memcpy(to + at, from + at, bytes - at);
#else
  std::memcpy(to, from, bytes);
#endif
}

void FenceStreamedStores() {
#if defined(__SSE2__)
  _mm_sfence();
#endif
}

}  // namespace chunkwise::core
