#include "store/update_object.h"

#include <algorithm>
#include <chrono>
#include <random>
#include <thread>
#include <utility>
#include <vector>

#include "store/batched_gets.h"
#include "store/batched_puts.h"

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

// A random pause before merge attempt `attempt` + 1 that grows with the
// attempts, so that writers that collided once do not collide again in step.
void PauseAfterConflict(int attempt, std::mt19937& jitter) {
  const int cap_us = 100 << std::min(attempt, 10);
  std::this_thread::sleep_for(std::chrono::microseconds(
      std::uniform_int_distribution<int>(0, std::min(cap_us, 50000))(jitter)));
}

Status GaveUp(const Store& store, const std::string& key) {
  return Status::Conflict(store.Describe(key) + ": other writers kept changing it; gave up after " +
                          std::to_string(kUpdateAttempts) + " tries to merge this write into it");
}

// What one update's merge asked to write: nothing (not called), the value
// (its parts joined, as the merge's buffers are gone once it returns), or
// its removal.
struct MergedWrite {
  bool called = false;
  std::optional<Bytes> value;
};

// One round of UpdateObjects over updates `pending` (indexes into
// `updates`): read, merge, write. The indexes a Conflict refused go to
// `refused`; the first other failure is returned.
Status UpdateRound(Store& store, std::span<const ObjectUpdate> updates,
                   std::span<const std::size_t> pending, const MergeWriteAt& merge,
                   const RunTasks& run, const std::function<Status(std::size_t)>& done,
                   const core::Cancellation* cancellation, std::vector<std::size_t>& refused) {
  const bool conditional = store.capabilities().conditional_writes;
  const std::size_t n = pending.size();
  std::vector<std::string> keys;  // Of the merges, which read first.
  std::vector<std::size_t> reads;
  for (std::size_t j = 0; j < n; ++j) {
    if (updates[pending[j]].mode != UpdateMode::kMerge) continue;
    keys.push_back(updates[pending[j]].key);
    reads.push_back(j);
  }
  std::vector<std::optional<Bytes>> old(n);
  std::vector<Generation> read_at(n, Generation::Absent());
  std::vector<Status> failed(n);  // Of the reads.
  if (conditional) {
    std::vector<Result<std::optional<VersionedValue>>> got =
        GetVersionedMany(store, keys, cancellation);
    for (std::size_t r = 0; r < reads.size(); ++r) {
      const std::size_t j = reads[r];
      if (!got[r].ok()) {
        failed[j] = got[r].status();
      } else if (got[r]->has_value()) {
        read_at[j] = (*got[r])->generation;
        old[j] = std::move((*got[r])->value);
      }
    }
  } else {
    std::vector<Result<std::optional<Bytes>>> got = GetMany(store, keys, cancellation);
    for (std::size_t r = 0; r < reads.size(); ++r) {
      if (got[r].ok()) {
        old[reads[r]] = std::move(got[r]).value();
      } else {
        failed[reads[r]] = got[r].status();
      }
    }
  }
  for (std::size_t j = 0; j < n; ++j) CHUNKWISE_RETURN_IF_ERROR(failed[j]);
  std::vector<MergedWrite> merged(n);
  CHUNKWISE_RETURN_IF_ERROR(run(n, [&](std::size_t j) -> Status {
    return merge(pending[j], old[j], [&](std::optional<std::span<const ByteView>> parts) -> Status {
      merged[j].called = true;
      if (!parts) return Status::Ok();
      std::size_t total = 0;
      for (ByteView part : *parts) total += part.size();
      Bytes& value = merged[j].value.emplace();
      value.reserve(total);
      for (ByteView part : *parts) value.insert(value.end(), part.begin(), part.end());
      return Status::Ok();
    });
  }));
  std::vector<PutItem> items;
  std::vector<std::size_t> put;        // The update of each item.
  std::vector<std::size_t> unwritten;  // Updates with nothing to write: done already.
  for (std::size_t j = 0; j < n; ++j) {
    const std::size_t i = pending[j];
    const bool compares = conditional && updates[i].mode == UpdateMode::kMerge;
    std::optional<Generation> expected;
    if (compares) expected = read_at[j];
    if (!merged[j].called) {
      unwritten.push_back(i);
    } else if (merged[j].value) {
      items.push_back({updates[i].key, ByteView(*merged[j].value), expected});
      put.push_back(i);
    } else if (updates[i].mode == UpdateMode::kReplace || old[j].has_value()) {
      items.push_back({updates[i].key, std::nullopt, expected});  // Removed.
      put.push_back(i);
    } else {
      unwritten.push_back(i);  // No value before, none after.
    }
  }
  const std::vector<Status> statuses = PutMany(store, items, cancellation);
  // Reported in the order of `updates`: `pending` is sorted, and so are both.
  std::size_t u = 0, p = 0;
  while (u < unwritten.size() || p < put.size()) {
    if (p == put.size() || (u < unwritten.size() && unwritten[u] < put[p])) {
      CHUNKWISE_RETURN_IF_ERROR(done(unwritten[u++]));
      continue;
    }
    const std::size_t i = put[p];
    const Status& status = statuses[p++];
    if (status.code() == StatusCode::kConflict && conditional &&
        updates[i].mode == UpdateMode::kMerge) {
      refused.push_back(i);
      continue;
    }
    CHUNKWISE_RETURN_IF_ERROR(status);
    CHUNKWISE_RETURN_IF_ERROR(done(i));
  }
  return Status::Ok();
}

}  // namespace

Status UpdateObjects(Store& store, std::span<const ObjectUpdate> updates, const MergeWriteAt& merge,
                     const RunTasks& run, const std::function<Status(std::size_t)>& done,
                     const core::Cancellation* cancellation) {
  std::vector<std::size_t> pending(updates.size());
  for (std::size_t i = 0; i < pending.size(); ++i) pending[i] = i;
  std::mt19937 jitter(std::random_device{}());
  for (int attempt = 1; !pending.empty(); ++attempt) {
    if (attempt > kUpdateAttempts) return GaveUp(store, updates[pending.front()].key);
    if (attempt > 1) PauseAfterConflict(attempt - 1, jitter);
    if (cancellation != nullptr && cancellation->cancelled()) {
      return cancellation->Check(store.Describe(updates[pending.front()].key));
    }
    std::vector<std::size_t> refused;
    CHUNKWISE_RETURN_IF_ERROR(
        UpdateRound(store, updates, pending, merge, run, done, cancellation, refused));
    pending = std::move(refused);
  }
  return Status::Ok();
}

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
    PauseAfterConflict(attempt, jitter);
  }
  return GaveUp(store, key);
}

}  // namespace chunkwise::store
