#include "chunkwise/core/bytes.h"

#include <sys/mman.h>

namespace chunkwise::detail {

void* AllocateLarge(std::size_t bytes) {
  void* pointer = ::operator new(bytes, std::align_val_t{kHugePageBytes});
  // Advice only: without transparent huge pages the buffer still works.
  ::madvise(pointer, bytes, MADV_HUGEPAGE);
  return pointer;
}

void FreeLarge(void* pointer, std::size_t /*bytes*/) noexcept {
  ::operator delete(pointer, std::align_val_t{kHugePageBytes});
}

}  // namespace chunkwise::detail
