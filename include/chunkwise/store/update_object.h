// UpdateObject: a read-modify-write of one stored value that loses no
// concurrent writer's change.
//
// It reads the value with its Generation, lets the caller merge its write
// into it and write the result conditionally (SetIf, SetPartsIf or EraseIf at
// that generation), and when another writer got there first (kConflict)
// reads again and merges again. A zarr chunk written in part and a shard are
// both updated through this one loop (formats/zarr/array.cc, shard_store.cc).
#ifndef CHUNKWISE_STORE_UPDATE_OBJECT_H_
#define CHUNKWISE_STORE_UPDATE_OBJECT_H_

#include <functional>
#include <optional>
#include <string>

#include "chunkwise/core/bytes.h"
#include "chunkwise/core/result.h"
#include "chunkwise/store/generation.h"
#include "chunkwise/store/store.h"

namespace chunkwise::store {

// Merges a write into the stored value `old` (nullopt: none stored), read at
// `read_at`, and writes the result only if the key is still at `read_at`,
// returning the store's kConflict if it is not.
using ConditionalMerge =
    std::function<Status(const std::optional<Bytes>& old, const Generation& read_at)>;

// How many times UpdateObject merges before it gives up.
inline constexpr int kUpdateAttempts = 200;

// Reads `key` with its generation and calls `merge_and_write`; on kConflict
// waits a random pause that grows with the attempts (so that writers that
// collided once do not collide again in step), reads again and retries, at
// most kUpdateAttempts times, then returns kConflict naming the key. Any
// other status of `merge_and_write` is returned as it is.
// REQUIRES: store.capabilities().conditional_writes.
Status UpdateObject(Store& store, const std::string& key, const ConditionalMerge& merge_and_write);

}  // namespace chunkwise::store

#endif  // CHUNKWISE_STORE_UPDATE_OBJECT_H_
