#include "store/update_object.h"

#include <algorithm>
#include <chrono>
#include <random>
#include <thread>
#include <utility>

namespace chunkwise::store {
namespace {

// The value is replaced or merged without a compare: the store cannot make one.
Status WriteUnconditionally(Store& store, const std::string& key, UpdateMode mode,
                            const MergeWrite& merge) {
  std::optional<Bytes> old;
  if (mode == UpdateMode::kMerge) {
    CHUNKWISE_ASSIGN_OR_RETURN(old, store.Get(key));
  }
  // A replace may find a value; a merge that found none has nothing to remove.
  const bool may_exist = mode == UpdateMode::kReplace || old.has_value();
  return merge(old, [&](std::optional<std::span<const ByteView>> parts) -> Status {
    if (parts) return store.SetParts(key, *parts);
    return may_exist ? store.Erase(key) : Status::Ok();
  });
}

}  // namespace

Status UpdateObject(Store& store, const std::string& key, UpdateMode mode,
                    const MergeWrite& merge) {
  if (mode == UpdateMode::kReplace || !store.capabilities().conditional_writes) {
    return WriteUnconditionally(store, key, mode, merge);
  }
  std::mt19937 jitter(std::random_device{}());
  for (int attempt = 1; attempt <= kUpdateAttempts; ++attempt) {
    CHUNKWISE_ASSIGN_OR_RETURN(std::optional<VersionedValue> old, store.GetVersioned(key));
    const Generation read_at = old ? old->generation : Generation::Absent();
    std::optional<Bytes> old_value;
    if (old) old_value = std::move(old->value);
    const Status written =
        merge(old_value, [&](std::optional<std::span<const ByteView>> parts) -> Status {
          if (parts) return store.SetPartsIf(key, *parts, read_at).status();
          if (read_at.absent()) return Status::Ok();  // No value before, none after.
          return store.EraseIf(key, read_at);
        });
    if (written.code() != StatusCode::kConflict) return written;
    const int cap_us = 100 << std::min(attempt, 10);
    std::this_thread::sleep_for(std::chrono::microseconds(
        std::uniform_int_distribution<int>(0, std::min(cap_us, 50000))(jitter)));
  }
  return Status::Conflict(store.Describe(key) + ": other writers kept changing it; gave up after " +
                          std::to_string(kUpdateAttempts) + " tries to merge this write into it");
}

}  // namespace chunkwise::store
