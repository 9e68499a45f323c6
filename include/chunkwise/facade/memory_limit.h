// The memory a job may use, for a caller that allocates an output itself
// (the Python module's reads into a buffer of its own): checked first, a box
// too large ends in the library's message, naming what it needs and the
// limit, not in std::bad_alloc or the OOM killer.
#ifndef CHUNKWISE_FACADE_MEMORY_LIMIT_H_
#define CHUNKWISE_FACADE_MEMORY_LIMIT_H_

#include <cstdint>
#include <string_view>

#include "chunkwise/core/status.h"

namespace chunkwise {

// OutOfRange "<what> needs N GB, more than the M GB this process may use"
// when `bytes` exceeds the process's limit: the machine's physical memory,
// or less under ulimit -v/-d or a cgroup limit. ReadRegion checks the same.
Status CheckOutputFits(std::uint64_t bytes, std::string_view what);

}  // namespace chunkwise

#endif  // CHUNKWISE_FACADE_MEMORY_LIMIT_H_
