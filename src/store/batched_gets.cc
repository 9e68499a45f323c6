#include "store/batched_gets.h"

namespace chunkwise::store {

bool BatchesGets(const Store& store) { return dynamic_cast<const BatchedGets*>(&store) != nullptr; }

std::vector<Result<std::optional<Bytes>>> GetMany(const Store& store,
                                                  std::span<const std::string> keys) {
  if (const auto* batched = dynamic_cast<const BatchedGets*>(&store)) {
    return batched->GetMany(keys);
  }
  std::vector<Result<std::optional<Bytes>>> values;
  values.reserve(keys.size());
  for (const std::string& key : keys) values.push_back(store.Get(key));
  return values;
}

}  // namespace chunkwise::store
