#include "chunkwise/core/cancellation.h"

#include <string>

namespace chunkwise::core {

Status Cancellation::Check(std::string_view what) const {
  if (!cancelled()) return Status::Ok();
  return Status::Cancelled(std::string(what) + ": cancelled");
}

}  // namespace chunkwise::core
