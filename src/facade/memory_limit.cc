#include "chunkwise/facade/memory_limit.h"

#include "core/memory_limit.h"

namespace chunkwise {

Status CheckOutputFits(std::uint64_t bytes, std::string_view what) {
  return core::CheckAllocation(bytes, what);
}

}  // namespace chunkwise
