// Fresh memory about to be written whole (a decoded chunk the chunk cache
// will keep): its pages are mapped in one system call before the write,
// instead of faulted in one 4 KiB page at a time as the decoder first
// touches each.
//
// Why: a cache that grows keeps every decoded chunk in memory no one has
// touched before, and on the development VM the page faults of such a
// buffer cost as much as decoding into it: ~2.3 µs a page faulted one by
// one, ~1.2 µs mapped in one madvise(MADV_POPULATE_WRITE), ~0.15 µs to write
// a page already mapped (a 512 KiB chunk: ~300 µs, ~150 µs, ~20 µs; zstd
// decodes it in ~450 µs). Buffers whose pages are mapped already (reused
// heap memory) cost a walk of their page table, a few µs.
#ifndef CHUNKWISE_CORE_FRESH_PAGES_H_
#define CHUNKWISE_CORE_FRESH_PAGES_H_

#include <cstddef>

#include "chunkwise/core/bytes.h"

namespace chunkwise::core {

// Buffers smaller than this are left to fault: a system call costs more
// than the few faults it would save.
inline constexpr std::size_t kMapPagesMinBytes = std::size_t{64} << 10;

// Maps the whole pages of `buffer` for writing (MADV_POPULATE_WRITE), when
// it holds at least kMapPagesMinBytes. Advice only: where the kernel lacks
// it (before Linux 5.14) or refuses, the pages fault as they would have,
// and the buffer's contents are never changed. Returns whether the kernel
// mapped them (for tests).
bool MapPagesForWrite(MutableByteView buffer);

}  // namespace chunkwise::core

#endif  // CHUNKWISE_CORE_FRESH_PAGES_H_
