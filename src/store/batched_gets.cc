#include "store/batched_gets.h"

namespace chunkwise::store {

bool BatchesGets(const Store& store) { return dynamic_cast<const BatchedGets*>(&store) != nullptr; }

std::vector<Result<std::optional<Bytes>>> GetMany(const Store& store,
                                                  std::span<const std::string> keys,
                                                  const core::Cancellation* cancellation) {
  if (const auto* batched = dynamic_cast<const BatchedGets*>(&store)) {
    return batched->GetMany(keys, cancellation);
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
