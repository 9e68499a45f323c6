#include "chunkwise/store/update_object.h"

#include <algorithm>
#include <chrono>
#include <random>
#include <thread>
#include <utility>

namespace chunkwise::store {

Status UpdateObject(Store& store, const std::string& key, const ConditionalMerge& merge_and_write) {
  std::mt19937 jitter(std::random_device{}());
  for (int attempt = 1; attempt <= kUpdateAttempts; ++attempt) {
    CHUNKWISE_ASSIGN_OR_RETURN(std::optional<VersionedValue> old, store.GetVersioned(key));
    const Generation read_at = old ? old->generation : Generation::Absent();
    std::optional<Bytes> old_value;
    if (old) old_value = std::move(old->value);
    Status written = merge_and_write(old_value, read_at);
    if (written.code() != StatusCode::kConflict) return written;
    const int cap_us = 100 << std::min(attempt, 10);
    std::this_thread::sleep_for(std::chrono::microseconds(
        std::uniform_int_distribution<int>(0, std::min(cap_us, 50000))(jitter)));
  }
  return Status::Conflict(store.Describe(key) + ": other writers kept changing it; gave up after " +
                          std::to_string(kUpdateAttempts) + " tries to merge this write into it");
}

}  // namespace chunkwise::store
