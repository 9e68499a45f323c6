// A store for tests that forwards every call to a MemoryStore. Test doubles
// derive from it and override only the calls they count, fail or hook.
// OpenReader, GetRangesInto, SetParts and OpenWriter keep Store's defaults
// (the conditional writes go straight to the MemoryStore),
// which read and write through the calls below, so a double sees them too.
#ifndef CHUNKWISE_TESTS_UNIT_FORWARDING_STORE_H_
#define CHUNKWISE_TESTS_UNIT_FORWARDING_STORE_H_

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "chunkwise/store/store.h"
#include "store/memory_store.h"

namespace chunkwise::test {

class ForwardingStore : public store::Store {
 public:
  Result<std::optional<Bytes>> Get(std::string_view key) const override { return inner_->Get(key); }
  Result<std::optional<Bytes>> GetRange(std::string_view key,
                                        store::ByteRange range) const override {
    return inner_->GetRange(key, range);
  }
  Status Set(std::string_view key, ByteView value) override { return inner_->Set(key, value); }
  Status Erase(std::string_view key) override { return inner_->Erase(key); }
  Result<std::vector<std::string>> List(std::string_view prefix) const override {
    return inner_->List(prefix);
  }
  Result<std::optional<std::uint64_t>> Size(std::string_view key) const override {
    return inner_->Size(key);
  }
  Result<store::Generation> GetGeneration(std::string_view key) const override {
    return inner_->GetGeneration(key);
  }
  Result<std::optional<store::VersionedValue>> GetVersioned(std::string_view key) const override {
    return inner_->GetVersioned(key);
  }
  Result<store::Generation> SetPartsIf(std::string_view key, std::span<const ByteView> parts,
                                       const store::Generation& expected) override {
    return inner_->SetPartsIf(key, parts, expected);
  }
  Status EraseIf(std::string_view key, const store::Generation& expected) override {
    return inner_->EraseIf(key, expected);
  }
  store::StoreCapabilities capabilities() const override { return inner_->capabilities(); }
  std::string Describe(std::string_view key) const override { return inner_->Describe(key); }

  // The store behind this one, for reads and writes the double must not see.
  store::MemoryStore& inner() const { return *inner_; }

 private:
  std::shared_ptr<store::MemoryStore> inner_ = store::MemoryStore::Create();
};

}  // namespace chunkwise::test

#endif  // CHUNKWISE_TESTS_UNIT_FORWARDING_STORE_H_
