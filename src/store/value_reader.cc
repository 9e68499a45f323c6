#include "chunkwise/store/value_reader.h"

#include <string>
#include <vector>

#include "chunkwise/store/store.h"

namespace chunkwise::store {

Status StoreValueReader::ReadInto(std::span<const ByteRange> ranges, MutableByteView out) const {
  const std::string where = store_.Describe(key_);
  std::vector<ByteRange> resolved;
  resolved.reserve(ranges.size());
  // Resolved against the size the reader saw, as a pinned reader would.
  for (const ByteRange& range : ranges) {
    CHUNKWISE_ASSIGN_OR_RETURN(ByteRange absolute, range.Resolve(size_, where));
    resolved.push_back(absolute);
  }
  CHUNKWISE_ASSIGN_OR_RETURN(const bool found, store_.GetRangesInto(key_, resolved, out));
  if (!found) return Status::NotFound(where + " vanished while being read");
  return Status::Ok();
}

}  // namespace chunkwise::store
