#include "store/batched_puts.h"

#include <algorithm>
#include <utility>

namespace chunkwise::store {
namespace {

// One item written as a single call would write it.
Status PutOne(Store& store, const PutItem& item) {
  if (item.value) {
    const std::span<const ByteView> parts(&*item.value, 1);
    if (item.expected) return store.SetPartsIf(item.key, parts, *item.expected).status();
    return store.SetParts(item.key, parts);
  }
  if (item.expected) return store.EraseIf(item.key, *item.expected);
  return store.Erase(item.key);
}

// The items of one store beneath a ForwardedPuts, and where their statuses go.
struct ForwardedBatch {
  Store* store;
  std::vector<PutItem> items;
  std::vector<std::size_t> positions;  // Into the caller's items.
};

std::vector<Status> PutForwarded(Store& store, ForwardedPuts& forwarded,
                                 std::span<const PutItem> items,
                                 const core::Cancellation* cancellation) {
  std::vector<Status> statuses(items.size());
  std::vector<ForwardedBatch> batches;  // Few: one per store beneath.
  for (std::size_t i = 0; i < items.size(); ++i) {
    ForwardedPutKey route = forwarded.RoutePut(items[i].key);
    if (route.store == nullptr) {
      statuses[i] =
          Status::Unsupported(store.Describe(items[i].key) + ": no store beneath writes it");
      continue;
    }
    auto batch = std::find_if(batches.begin(), batches.end(),
                              [&](const ForwardedBatch& b) { return b.store == route.store; });
    if (batch == batches.end()) batch = batches.insert(batches.end(), {route.store, {}, {}});
    batch->items.push_back({std::move(route.key), items[i].value, items[i].expected});
    batch->positions.push_back(i);
  }
  for (const ForwardedBatch& batch : batches) {
    std::vector<Status> put = PutMany(*batch.store, batch.items, cancellation);
    for (std::size_t j = 0; j < put.size(); ++j) statuses[batch.positions[j]] = std::move(put[j]);
  }
  return statuses;
}

}  // namespace

bool BatchesPuts(const Store& store) {
  if (dynamic_cast<const BatchedPuts*>(&store) != nullptr) return true;
  const auto* forwarded = dynamic_cast<const ForwardedPuts*>(&store);
  return forwarded != nullptr && forwarded->ForwardsToBatchedPuts();
}

std::vector<Status> PutMany(Store& store, std::span<const PutItem> items,
                            const core::Cancellation* cancellation) {
  if (auto* batched = dynamic_cast<BatchedPuts*>(&store)) {
    return batched->PutMany(items, cancellation);
  }
  if (auto* forwarded = dynamic_cast<ForwardedPuts*>(&store)) {
    return PutForwarded(store, *forwarded, items, cancellation);
  }
  std::vector<Status> statuses;
  statuses.reserve(items.size());
  for (const PutItem& item : items) {
    if (cancellation != nullptr && cancellation->cancelled()) {
      statuses.push_back(cancellation->Check(store.Describe(item.key)));
    } else {
      statuses.push_back(PutOne(store, item));
    }
  }
  return statuses;
}

}  // namespace chunkwise::store
