#include "store/batched_gets.h"

#include <algorithm>
#include <utility>

namespace chunkwise::store {
namespace {

// The keys of one store beneath a ForwardedGets, and where their values go.
struct ForwardedBatch {
  const Store* store;
  std::vector<std::string> keys;
  std::vector<std::size_t> positions;  // Into the caller's keys.
};

std::vector<Result<std::optional<Bytes>>> GetForwarded(const ForwardedGets& forwarded,
                                                       std::span<const std::string> keys,
                                                       const core::Cancellation* cancellation) {
  // A key no store holds is absent, as the forwarding store's Get says.
  std::vector<Result<std::optional<Bytes>>> values(keys.size(), std::optional<Bytes>());
  std::vector<ForwardedBatch> batches;  // Few: one per store beneath.
  for (std::size_t i = 0; i < keys.size(); ++i) {
    ForwardedKey route = forwarded.RouteGet(keys[i]);
    if (route.store == nullptr) continue;
    auto batch = std::find_if(batches.begin(), batches.end(),
                              [&](const ForwardedBatch& b) { return b.store == route.store; });
    if (batch == batches.end()) batch = batches.insert(batches.end(), {route.store, {}, {}});
    batch->keys.push_back(std::move(route.key));
    batch->positions.push_back(i);
  }
  for (const ForwardedBatch& batch : batches) {
    std::vector<Result<std::optional<Bytes>>> got = GetMany(*batch.store, batch.keys, cancellation);
    for (std::size_t j = 0; j < got.size(); ++j) values[batch.positions[j]] = std::move(got[j]);
  }
  return values;
}

}  // namespace

bool BatchesGets(const Store& store) {
  if (dynamic_cast<const BatchedGets*>(&store) != nullptr) return true;
  const auto* forwarded = dynamic_cast<const ForwardedGets*>(&store);
  return forwarded != nullptr && forwarded->ForwardsToBatches();
}

std::vector<Result<std::optional<Bytes>>> GetMany(const Store& store,
                                                  std::span<const std::string> keys,
                                                  const core::Cancellation* cancellation) {
  if (const auto* batched = dynamic_cast<const BatchedGets*>(&store)) {
    return batched->GetMany(keys, cancellation);
  }
  if (const auto* forwarded = dynamic_cast<const ForwardedGets*>(&store)) {
    return GetForwarded(*forwarded, keys, cancellation);
  }
  std::vector<Result<std::optional<Bytes>>> values;
  values.reserve(keys.size());
  for (const std::string& key : keys) {
    if (cancellation != nullptr && cancellation->cancelled()) {
      values.push_back(cancellation->Check(store.Describe(key)));
    } else {
      values.push_back(store.Get(key));
    }
  }
  return values;
}

}  // namespace chunkwise::store
