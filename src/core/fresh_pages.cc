#include "core/fresh_pages.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>

namespace chunkwise::core {
namespace {

// Linux's value (uapi/asm-generic/mman-common.h), for C libraries whose
// headers predate 5.14.
#ifndef MADV_POPULATE_WRITE
constexpr int kPopulateWrite = 23;
#else
constexpr int kPopulateWrite = MADV_POPULATE_WRITE;
#endif

std::uintptr_t PageBytes() {
  static const std::uintptr_t page = [] {
    const long size = ::sysconf(_SC_PAGESIZE);
    return size > 0 ? static_cast<std::uintptr_t>(size) : std::uintptr_t{4096};
  }();
  return page;
}

}  // namespace

bool MapPagesForWrite(MutableByteView buffer) {
  if (buffer.size() < kMapPagesMinBytes) return false;
  const std::uintptr_t page = PageBytes();
  const auto begin = reinterpret_cast<std::uintptr_t>(buffer.data());
  const std::uintptr_t first = (begin + page - 1) & ~(page - 1);      // Whole pages only:
  const std::uintptr_t last = (begin + buffer.size()) & ~(page - 1);  // the edges may be shared.
  if (last <= first) return false;
  // POPULATE_WRITE faults the pages in as writes would, keeping what they hold.
  return ::madvise(reinterpret_cast<void*>(first), last - first, kPopulateWrite) == 0;
}

}  // namespace chunkwise::core
