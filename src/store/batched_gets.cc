#include "store/batched_gets.h"

#include <algorithm>
#include <functional>
#include <utility>

#include "chunkwise/store/reference_store.h"
#include "store/reference_batch.h"

namespace chunkwise::store {
namespace {

// The keys of one store beneath a ForwardedGets, and where their values go.
struct ForwardedBatch {
  const Store* store;
  std::vector<std::string> keys;       // Its keys there.
  std::vector<std::size_t> positions;  // Into the caller's keys.
};

// The keys that some store beneath `forwarded` holds, one batch per store
// (few: one per store beneath).
std::vector<ForwardedBatch> Route(const ForwardedGets& forwarded, std::size_t count,
                                  const std::function<const std::string&(std::size_t)>& key) {
  std::vector<ForwardedBatch> batches;
  for (std::size_t i = 0; i < count; ++i) {
    ForwardedKey route = forwarded.RouteGet(key(i));
    if (route.store == nullptr) continue;
    auto batch = std::find_if(batches.begin(), batches.end(),
                              [&](const ForwardedBatch& b) { return b.store == route.store; });
    if (batch == batches.end()) batch = batches.insert(batches.end(), {route.store, {}, {}});
    batch->keys.push_back(std::move(route.key));
    batch->positions.push_back(i);
  }
  return batches;
}

std::vector<Result<std::optional<Bytes>>> GetForwarded(const ForwardedGets& forwarded,
                                                       std::span<const std::string> keys,
                                                       const core::Cancellation* cancellation) {
  // A key no store holds is absent, as the forwarding store's Get says.
  std::vector<Result<std::optional<Bytes>>> values(keys.size(), std::optional<Bytes>());
  for (const ForwardedBatch& batch : Route(
           forwarded, keys.size(), [&](std::size_t i) -> const std::string& { return keys[i]; })) {
    std::vector<Result<std::optional<Bytes>>> got = GetMany(*batch.store, batch.keys, cancellation);
    for (std::size_t j = 0; j < got.size(); ++j) values[batch.positions[j]] = std::move(got[j]);
  }
  return values;
}

std::vector<Result<std::optional<VersionedValue>>> GetVersionedForwarded(
    const ForwardedGets& forwarded, std::span<const std::string> keys,
    const core::Cancellation* cancellation) {
  std::vector<Result<std::optional<VersionedValue>>> values(keys.size(),
                                                            std::optional<VersionedValue>());
  for (const ForwardedBatch& batch : Route(
           forwarded, keys.size(), [&](std::size_t i) -> const std::string& { return keys[i]; })) {
    std::vector<Result<std::optional<VersionedValue>>> got =
        GetVersionedMany(*batch.store, batch.keys, cancellation);
    for (std::size_t j = 0; j < got.size(); ++j) values[batch.positions[j]] = std::move(got[j]);
  }
  return values;
}

std::vector<Result<std::optional<std::uint64_t>>> SizesForwarded(
    const ForwardedGets& forwarded, std::span<const std::string> keys,
    const core::Cancellation* cancellation) {
  std::vector<Result<std::optional<std::uint64_t>>> sizes(keys.size(),
                                                          std::optional<std::uint64_t>());
  for (const ForwardedBatch& batch : Route(
           forwarded, keys.size(), [&](std::size_t i) -> const std::string& { return keys[i]; })) {
    std::vector<Result<std::optional<std::uint64_t>>> got =
        SizeMany(*batch.store, batch.keys, cancellation);
    for (std::size_t j = 0; j < got.size(); ++j) sizes[batch.positions[j]] = std::move(got[j]);
  }
  return sizes;
}

// `reads` of `batch` under the keys its store knows them by.
std::vector<RangedKey> Routed(const ForwardedBatch& batch, std::span<const RangedKey> reads) {
  std::vector<RangedKey> routed;
  routed.reserve(batch.keys.size());
  for (std::size_t j = 0; j < batch.keys.size(); ++j) {
    routed.push_back(
        {batch.keys[j], reads[batch.positions[j]].range, reads[batch.positions[j]].pin});
  }
  return routed;
}

std::vector<Result<std::optional<Bytes>>> GetRangesForwarded(
    const ForwardedGets& forwarded, std::span<const RangedKey> reads,
    const core::Cancellation* cancellation) {
  std::vector<Result<std::optional<Bytes>>> values(reads.size(), std::optional<Bytes>());
  for (const ForwardedBatch& batch :
       Route(forwarded, reads.size(),
             [&](std::size_t i) -> const std::string& { return reads[i].key; })) {
    const std::vector<RangedKey> routed = Routed(batch, reads);
    std::vector<Result<std::optional<Bytes>>> got =
        GetRangeMany(*batch.store, routed, cancellation);
    for (std::size_t j = 0; j < got.size(); ++j) values[batch.positions[j]] = std::move(got[j]);
  }
  return values;
}

std::optional<std::vector<Result<std::optional<RangeAtVersion>>>> RangesAtVersionForwarded(
    const ForwardedGets& forwarded, std::span<const RangedKey> reads,
    const core::Cancellation* cancellation) {
  std::vector<Result<std::optional<RangeAtVersion>>> values(reads.size(),
                                                            std::optional<RangeAtVersion>());
  for (const ForwardedBatch& batch :
       Route(forwarded, reads.size(),
             [&](std::size_t i) -> const std::string& { return reads[i].key; })) {
    const std::vector<RangedKey> routed = Routed(batch, reads);
    std::optional<std::vector<Result<std::optional<RangeAtVersion>>>> got =
        GetRangeAtVersionMany(*batch.store, routed, cancellation);
    if (!got) return std::nullopt;
    for (std::size_t j = 0; j < got->size(); ++j) {
      values[batch.positions[j]] = std::move((*got)[j]);
    }
  }
  return values;
}

}  // namespace

std::optional<std::vector<Result<std::optional<RangeAtVersion>>>> GetRangeAtVersionMany(
    const Store& store, std::span<const RangedKey> reads, const core::Cancellation* cancellation) {
  if (const auto* batched = dynamic_cast<const BatchedGets*>(&store)) {
    return batched->GetRangeAtVersionMany(reads, cancellation);
  }
  if (dynamic_cast<const ReferenceStore*>(&store) != nullptr) return std::nullopt;
  if (const auto* forwarded = dynamic_cast<const ForwardedGets*>(&store)) {
    return RangesAtVersionForwarded(*forwarded, reads, cancellation);
  }
  return std::nullopt;
}

bool BatchesGets(const Store& store) {
  if (dynamic_cast<const BatchedGets*>(&store) != nullptr) return true;
  if (const auto* references = dynamic_cast<const ReferenceStore*>(&store)) {
    return ReferenceBatch::Batches(*references);
  }
  const auto* forwarded = dynamic_cast<const ForwardedGets*>(&store);
  return forwarded != nullptr && forwarded->ForwardsToBatches();
}

std::vector<Result<std::optional<Bytes>>> GetMany(const Store& store,
                                                  std::span<const std::string> keys,
                                                  const core::Cancellation* cancellation) {
  if (const auto* batched = dynamic_cast<const BatchedGets*>(&store)) {
    return batched->GetMany(keys, cancellation);
  }
  if (const auto* references = dynamic_cast<const ReferenceStore*>(&store)) {
    if (ReferenceBatch::Batches(*references)) {
      return ReferenceBatch::GetMany(*references, keys, cancellation);
    }
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

std::vector<Result<std::optional<Bytes>>> GetRangeMany(const Store& store,
                                                       std::span<const RangedKey> reads,
                                                       const core::Cancellation* cancellation) {
  if (const auto* batched = dynamic_cast<const BatchedGets*>(&store)) {
    return batched->GetRangeMany(reads, cancellation);
  }
  if (const auto* forwarded = dynamic_cast<const ForwardedGets*>(&store)) {
    return GetRangesForwarded(*forwarded, reads, cancellation);
  }
  std::vector<Result<std::optional<Bytes>>> values;
  values.reserve(reads.size());
  for (const RangedKey& read : reads) {
    if (cancellation != nullptr && cancellation->cancelled()) {
      values.push_back(cancellation->Check(store.Describe(read.key)));
    } else {
      values.push_back(store.GetRange(read.key, read.range));
    }
  }
  return values;
}

std::vector<Result<std::optional<std::uint64_t>>> SizeMany(const Store& store,
                                                           std::span<const std::string> keys,
                                                           const core::Cancellation* cancellation) {
  if (const auto* batched = dynamic_cast<const BatchedGets*>(&store)) {
    return batched->SizeMany(keys, cancellation);
  }
  if (const auto* forwarded = dynamic_cast<const ForwardedGets*>(&store)) {
    return SizesForwarded(*forwarded, keys, cancellation);
  }
  std::vector<Result<std::optional<std::uint64_t>>> sizes;
  sizes.reserve(keys.size());
  for (const std::string& key : keys) {
    if (cancellation != nullptr && cancellation->cancelled()) {
      sizes.push_back(cancellation->Check(store.Describe(key)));
    } else {
      sizes.push_back(store.Size(key));
    }
  }
  return sizes;
}

std::vector<Result<std::optional<VersionedValue>>> GetVersionedMany(
    const Store& store, std::span<const std::string> keys, const core::Cancellation* cancellation) {
  if (const auto* batched = dynamic_cast<const BatchedVersionedGets*>(&store)) {
    return batched->GetVersionedMany(keys, cancellation);
  }
  if (const auto* forwarded = dynamic_cast<const ForwardedGets*>(&store)) {
    return GetVersionedForwarded(*forwarded, keys, cancellation);
  }
  std::vector<Result<std::optional<VersionedValue>>> values;
  values.reserve(keys.size());
  for (const std::string& key : keys) {
    if (cancellation != nullptr && cancellation->cancelled()) {
      values.push_back(cancellation->Check(store.Describe(key)));
    } else {
      values.push_back(store.GetVersioned(key));
    }
  }
  return values;
}

}  // namespace chunkwise::store
