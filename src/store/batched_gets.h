// Batched gets: the values of many keys with their requests in flight
// together, for readers of many small values (a zarr array's chunks).
//
// The remote stores (HTTP, S3) send requests through one event loop per
// transport (store/http_transport.h), so one thread that asks for many keys
// at once keeps them all on the wire (up to the transport's max_in_flight)
// without a thread per request. Local stores gain nothing from a batch:
// GetMany reads their keys one after another. A store that hands each key to
// a store beneath it (a folder's view, a store of mounts) implements
// ForwardedGets, so that GetMany batches the keys of the store beneath.
// GetRangeMany is the same for byte ranges of values (the ranges a reference
// set points at), SizeMany for the values' sizes. A ReferenceStore that may read remote targets
// batches too: store/reference_batch.h sends its keys' ranges to their targets' stores.
// GetVersionedMany is GetMany with each value's Generation, the reads of a
// batch of read-modify-writes (store/update_object.h, UpdateObjects) on a
// store with conditional writes (S3).
#ifndef CHUNKWISE_SRC_STORE_BATCHED_GETS_H_
#define CHUNKWISE_SRC_STORE_BATCHED_GETS_H_

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "chunkwise/core/cancellation.h"
#include "chunkwise/store/byte_range.h"
#include "chunkwise/store/generation.h"
#include "chunkwise/store/store.h"

namespace chunkwise::store {

// One read of GetRangeMany: bytes `range` of the value under `key`. With
// `pin` (a present generation), the read is of that version only: a store
// that batches sends If-Match with it, and a value changed since fails the
// read (NotFound), so that ranges read after an index come from the index's
// version.
struct RangedKey {
  std::string key;
  ByteRange range;
  std::optional<Generation> pin;
};

// A range read together with the value's whole size and the version it was
// read at (GetRangeAtVersionMany).
struct RangeAtVersion {
  Bytes bytes;
  std::uint64_t size = 0;  // The whole value's size, from the reply's Content-Range.
  Generation generation;   // Absent when the server named no version (no ETag).
};

// What a store that batches its gets implements besides Store.
class BatchedGets {
 public:
  virtual ~BatchedGets() = default;
  // Result i is keys[i]'s, as Store::Get would return it; every request is
  // sent at once from the calling thread. With `cancellation` set, keys not
  // yet read end Cancelled within about 50 ms of its Cancel.
  virtual std::vector<Result<std::optional<Bytes>>> GetMany(
      std::span<const std::string> keys,
      const core::Cancellation* cancellation = nullptr) const = 0;
  // The same for ranges: result i is reads[i]'s, as Store::GetRange would
  // return it. A range that is not one request (a suffix, a range larger
  // than a piece) is read alone after the batch.
  virtual std::vector<Result<std::optional<Bytes>>> GetRangeMany(
      std::span<const RangedKey> reads, const core::Cancellation* cancellation = nullptr) const = 0;
  // The sizes of `keys`: result i as Store::Size would return keys[i]'s,
  // every request sent at once (a GET of each value's first byte, whose
  // reply names the size: store/ranged_reads.h, SizeGet).
  virtual std::vector<Result<std::optional<std::uint64_t>>> SizeMany(
      std::span<const std::string> keys,
      const core::Cancellation* cancellation = nullptr) const = 0;
  // GetRangeMany that returns each value's size and version with its bytes,
  // one request per read: a suffix range (the last N bytes, fewer of a
  // shorter value) is one GET too, so a shard's index at its end costs one
  // request and no size request. Nullopt: the store cannot (the caller
  // reads otherwise).
  virtual std::optional<std::vector<Result<std::optional<RangeAtVersion>>>> GetRangeAtVersionMany(
      std::span<const RangedKey> reads, const core::Cancellation* cancellation = nullptr) const {
    (void)reads;
    (void)cancellation;
    return std::nullopt;
  }
};

// What a store that batches its versioned gets implements besides Store.
class BatchedVersionedGets {
 public:
  virtual ~BatchedVersionedGets() = default;
  // Result i is keys[i]'s, as Store::GetVersioned would return it; every
  // request is sent at once from the calling thread, as GetMany's.
  virtual std::vector<Result<std::optional<VersionedValue>>> GetVersionedMany(
      std::span<const std::string> keys,
      const core::Cancellation* cancellation = nullptr) const = 0;
};

// The store beneath a ForwardedGets that holds a key, and the key there.
struct ForwardedKey {
  const Store* store = nullptr;  // Null: no store holds the key (it is absent).
  std::string key;
};

// What a store that forwards each key to another store implements besides
// Store, so that batches see through it (kept out of Store, whose header is
// public).
class ForwardedGets {
 public:
  virtual ~ForwardedGets() = default;
  // Where Get(key) would read; the store lives as long as this one.
  virtual ForwardedKey RouteGet(std::string_view key) const = 0;
  // True if some store beneath batches its gets (BatchesGets).
  virtual bool ForwardsToBatches() const = 0;
};

// True if GetMany sends `store`'s requests together (those of the store
// beneath, for a ForwardedGets).
bool BatchesGets(const Store& store);

// The values of `keys` (result i is keys[i]'s, as Store::Get would return
// it): in one batch where the store batches, else by Get for each in turn.
// Through a ForwardedGets, the keys go to GetMany of the stores beneath, one
// batch per store.
// With `cancellation` set, keys not yet read end Cancelled.
std::vector<Result<std::optional<Bytes>>> GetMany(const Store& store,
                                                  std::span<const std::string> keys,
                                                  const core::Cancellation* cancellation = nullptr);

// GetMany for ranges of values (result i is reads[i]'s, as Store::GetRange
// would return it), batched as GetMany batches.
std::vector<Result<std::optional<Bytes>>> GetRangeMany(
    const Store& store, std::span<const RangedKey> reads,
    const core::Cancellation* cancellation = nullptr);

// GetRangeAtVersionMany of the store (through a ForwardedGets, of the
// stores beneath); nullopt where some store cannot, which then reads the
// ranges otherwise (SizeMany and GetRangeMany).
std::optional<std::vector<Result<std::optional<RangeAtVersion>>>> GetRangeAtVersionMany(
    const Store& store, std::span<const RangedKey> reads,
    const core::Cancellation* cancellation = nullptr);

// The sizes of `keys` (result i is keys[i]'s, as Store::Size would return
// it), batched as GetMany batches: `zarr info`'s sizes of plain chunks.
std::vector<Result<std::optional<std::uint64_t>>> SizeMany(
    const Store& store, std::span<const std::string> keys,
    const core::Cancellation* cancellation = nullptr);

// GetMany with generations (result i is keys[i]'s, as Store::GetVersioned
// would return it): in one batch where the store batches versioned gets
// (through a ForwardedGets, those of the stores beneath), else by
// GetVersioned for each in turn.
std::vector<Result<std::optional<VersionedValue>>> GetVersionedMany(
    const Store& store, std::span<const std::string> keys,
    const core::Cancellation* cancellation = nullptr);

}  // namespace chunkwise::store

#endif  // CHUNKWISE_SRC_STORE_BATCHED_GETS_H_
