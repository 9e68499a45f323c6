#include "chunkwise/core/bytes.h"

#include <malloc.h>
#include <sys/mman.h>

namespace chunkwise {

void KeepFreedMemoryForReuse() {
  ::mallopt(M_MMAP_THRESHOLD, 256 << 20);  // Also stops the threshold from adapting.
  ::mallopt(M_TRIM_THRESHOLD, 1 << 30);
}

namespace detail {

void* AllocateLarge(std::size_t bytes) {
  void* pointer = ::operator new (bytes, std::align_val_t{kHugePageBytes});
  // Advice only: without transparent huge pages the buffer still works.
  ::madvise(pointer, bytes, MADV_HUGEPAGE);
  return pointer;
}

void FreeLarge(void* pointer, std::size_t /*bytes*/) noexcept {
  ::operator delete (pointer, std::align_val_t{kHugePageBytes});
}

}  // namespace detail
}  // namespace chunkwise
