#include "formats/zarr/shard_scratch.h"

#include <utility>

namespace chunkwise::formats::zarr {

Bytes ShardScratch::Take() {
  const std::lock_guard<std::mutex> lock(mutex_);
  if (idle_.empty()) return Bytes();
  Bytes bytes = std::move(idle_.back());
  idle_.pop_back();
  return bytes;
}

void ShardScratch::Give(Bytes bytes) {
  if (bytes.capacity() == 0 || bytes.capacity() > kMaxKeptBytes) return;  // Nothing worth keeping.
  const std::lock_guard<std::mutex> lock(mutex_);
  idle_.push_back(std::move(bytes));
}

std::size_t ShardScratch::idle_count() const {
  const std::lock_guard<std::mutex> lock(mutex_);
  return idle_.size();
}

std::size_t ShardScratch::idle_bytes() const {
  const std::lock_guard<std::mutex> lock(mutex_);
  std::size_t total = 0;
  for (const Bytes& bytes : idle_) total += bytes.capacity();
  return total;
}

}  // namespace chunkwise::formats::zarr
