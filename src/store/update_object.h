// UpdateObject: a read-modify-write of one stored value that loses no
// concurrent writer's change.
//
// It reads the value with its Generation, lets the caller merge its write
// into it and writes the result conditionally (SetPartsIf, or EraseIf when
// the result is no value, at that generation), and when another writer got
// there first (kConflict) reads again and merges again. Every read-merge-
// write of the library goes through this one loop: a zarr chunk written in
// part, and a shard (formats/zarr, ShardStore), whether written by region or
// by a batch of inner chunks. UpdateObjects is the same loop for many keys
// at once, each step one batch of requests.
#ifndef CHUNKWISE_STORE_UPDATE_OBJECT_H_
#define CHUNKWISE_STORE_UPDATE_OBJECT_H_

#include <functional>
#include <optional>
#include <span>
#include <string>

#include "chunkwise/core/bytes.h"
#include "chunkwise/core/cancellation.h"
#include "chunkwise/core/result.h"
#include "chunkwise/store/store.h"

namespace chunkwise::store {

// Writes the merged value, given as parts written one after another, or
// removes the key when `parts` is nullopt. A merge calls it at most once.
using WriteMerged = std::function<Status(std::optional<std::span<const ByteView>> parts)>;

// Merges a write into the stored value `old` (nullopt: none stored) and
// hands the result to `write`, returning what `write` returns (a merge that
// returns without calling it leaves the value as it is).
using MergeWrite = std::function<Status(const std::optional<Bytes>& old, const WriteMerged& write)>;

// How many times UpdateObject merges before it gives up.
inline constexpr int kUpdateAttempts = 200;

// How UpdateObject reads the value before the merge.
enum class UpdateMode {
  // The write covers the whole value: it is merged over nothing, without a
  // read, and replaces what is stored.
  kReplace,
  // The write covers part of the value: it is merged over the stored one.
  kMerge,
};

// Writes `key` through `merge`. kReplace: merge(nullopt), written with
// SetParts or Erase. kMerge on a store with conditional writes: reads `key`
// with its generation and merges; the result is written only if the key is
// still at that generation, and on kConflict UpdateObject waits a random
// pause that grows with the attempts (so that writers that collided once do
// not collide again in step), reads again and retries, at most
// kUpdateAttempts times, then returns kConflict naming the key. kMerge on a
// store without them: one plain read, merge and write, which a concurrent
// writer of the same key can overwrite. Any other status of `merge` is
// returned as it is.
Status UpdateObject(Store& store, const std::string& key, UpdateMode mode, const MergeWrite& merge);

// One key of UpdateObjects, with UpdateObject's mode.
struct ObjectUpdate {
  std::string key;
  UpdateMode mode = UpdateMode::kMerge;
};

// Merges update i's write into `old`, as a MergeWrite does.
using MergeWriteAt =
    std::function<Status(std::size_t i, const std::optional<Bytes>& old, const WriteMerged& write)>;
// Runs task(i) for every i < count, in parallel where it can (a pool's
// ParallelFor); the first error.
using RunTasks =
    std::function<Status(std::size_t count, const std::function<Status(std::size_t)>& task)>;

// UpdateObject for many keys, their requests in batches: the values the
// merges need read by one GetVersionedMany (GetMany on a store without
// conditional writes), the merges run through `run` (the caller's pool:
// decoding and encoding happen there, never on the calling thread), and
// the results written by one PutMany, conditionally at the generation read
// for kMerge updates on a store with conditional writes. The updates a
// Conflict refused are read, merged and written again as one batch after
// UpdateObject's random pause, at most kUpdateAttempts times in all; then
// Conflict naming the key. So one thread keeps every request of a batch on
// the wire (store/batched_gets.h, batched_puts.h). `done(i)` runs on the
// calling thread once update i is written. Returns the first failure in
// the order of `updates` (a merge's error ends the call at once); with
// `cancellation` set, requests not yet sent end Cancelled.
Status UpdateObjects(Store& store, std::span<const ObjectUpdate> updates, const MergeWriteAt& merge,
                     const RunTasks& run, const std::function<Status(std::size_t)>& done,
                     const core::Cancellation* cancellation = nullptr);

}  // namespace chunkwise::store

#endif  // CHUNKWISE_STORE_UPDATE_OBJECT_H_
