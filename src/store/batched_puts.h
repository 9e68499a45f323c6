// Batched puts: many values written with their requests in flight together,
// for writers of many small values (a zarr array's chunks), the write side
// of store/batched_gets.h.
//
// The S3 store sends a batch's PUTs and DELETEs at once through its
// transport's event loop (store/http_transport.h), so one thread keeps them
// all on the wire (up to the transport's max_in_flight) without a thread per
// request; the callers encode on their pool and only hand over the bytes.
// Local stores gain nothing from a batch: PutMany writes their keys one
// after another. A store that hands each key to a writable store beneath it
// (a folder's view) implements ForwardedPuts, so that PutMany batches the
// keys of the store beneath.
#ifndef CHUNKWISE_SRC_STORE_BATCHED_PUTS_H_
#define CHUNKWISE_SRC_STORE_BATCHED_PUTS_H_

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "chunkwise/core/cancellation.h"
#include "chunkwise/store/store.h"

namespace chunkwise::store {

// One write of a batch: Set(key, *value), or Erase(key) when `value` is
// nullopt; with `expected`, SetPartsIf / EraseIf at that generation instead
// (Conflict naming the key's URL when the store holds another).
struct PutItem {
  std::string key;
  std::optional<ByteView> value;  // The bytes outlive the call.
  std::optional<Generation> expected;
};

// What a store that batches its puts implements besides Store.
class BatchedPuts {
 public:
  virtual ~BatchedPuts() = default;
  // Status i is items[i]'s, as Set, Erase, SetPartsIf or EraseIf would
  // return it; the requests go at once from the calling thread. With
  // `cancellation` set, items not yet written end Cancelled within about
  // 50 ms of its Cancel (a PUT cut off may or may not have landed).
  virtual std::vector<Status> PutMany(std::span<const PutItem> items,
                                      const core::Cancellation* cancellation = nullptr) = 0;
};

// The store beneath a ForwardedPuts that writes a key, and the key there.
struct ForwardedPutKey {
  Store* store = nullptr;  // Null: no store beneath writes it (Unsupported).
  std::string key;
};

// What a store that forwards each written key to another store implements
// besides Store, so that batches of puts see through it.
class ForwardedPuts {
 public:
  virtual ~ForwardedPuts() = default;
  // Where Set(key) would write; the store lives as long as this one.
  virtual ForwardedPutKey RoutePut(std::string_view key) = 0;
  // True if some store beneath batches its puts (BatchesPuts).
  virtual bool ForwardsToBatchedPuts() const = 0;
};

// True if PutMany sends `store`'s requests together (those of the store
// beneath, for a ForwardedPuts).
bool BatchesPuts(const Store& store);

// Writes every item (status i is items[i]'s): in one batch where the store
// batches, else by Set / Erase / SetPartsIf / EraseIf for each in turn.
// Through a ForwardedPuts, the items go to PutMany of the stores beneath,
// one batch per store. With `cancellation` set, items not yet written end
// Cancelled.
std::vector<Status> PutMany(Store& store, std::span<const PutItem> items,
                            const core::Cancellation* cancellation = nullptr);

}  // namespace chunkwise::store

#endif  // CHUNKWISE_SRC_STORE_BATCHED_PUTS_H_
