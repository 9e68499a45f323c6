// Limits before work: a size read from a file or asked for on the command
// line is checked against the memory the process may use before anything
// that large is allocated, so a huge declared size ends in a clear error
// instead of std::bad_alloc, an abort or the OOM killer.
#ifndef CHUNKWISE_CORE_MEMORY_LIMIT_H_
#define CHUNKWISE_CORE_MEMORY_LIMIT_H_

#include <cstdint>
#include <string_view>

#include "chunkwise/core/status.h"

namespace chunkwise::core {

// The most memory this process may use, in bytes: the machine's physical
// memory, or less under an address-space or data limit (ulimit -v, -d) or a
// cgroup memory limit. Computed once.
std::uint64_t ProcessMemoryLimit();

// OutOfRange "<what> needs N bytes, more than the M this process may use"
// when `bytes` exceeds ProcessMemoryLimit(); OK otherwise.
Status CheckAllocation(std::uint64_t bytes, std::string_view what);

// `count` × `size`, or UINT64_MAX when that overflows: for CheckAllocation.
inline std::uint64_t SaturatingProduct(std::uint64_t count, std::uint64_t size) {
  std::uint64_t product = 0;
  return __builtin_mul_overflow(count, size, &product) ? UINT64_MAX : product;
}

}  // namespace chunkwise::core

#endif  // CHUNKWISE_CORE_MEMORY_LIMIT_H_
