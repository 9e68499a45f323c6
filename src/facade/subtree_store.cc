#include "facade/subtree_store.h"

#include <utility>
#include <vector>

#include "chunkwise/store/value_reader.h"
#include "chunkwise/store/value_writer.h"
#include "store/batched_gets.h"
#include "store/batched_puts.h"

namespace chunkwise {
namespace {

// Batched gets and puts (store/batched_gets.h, batched_puts.h) go to the
// store beneath, so an array in a folder of a remote store still sends its
// chunks' GETs and PUTs together.
class SubtreeStore final : public store::Store,
                           public store::ForwardedGets,
                           public store::ForwardedPuts {
 public:
  SubtreeStore(std::shared_ptr<store::Store> base, std::string folder)
      : base_(std::move(base)), prefix_(std::move(folder) + "/") {}

  Result<std::optional<Bytes>> Get(std::string_view key) const override {
    return base_->Get(Full(key));
  }
  Result<std::optional<Bytes>> GetRange(std::string_view key,
                                        store::ByteRange range) const override {
    return base_->GetRange(Full(key), range);
  }
  Result<bool> GetRangesInto(std::string_view key, std::span<const store::ByteRange> ranges,
                             MutableByteView out) const override {
    return base_->GetRangesInto(Full(key), ranges, out);
  }
  Result<std::unique_ptr<store::ValueReader>> OpenReader(std::string_view key) const override {
    return base_->OpenReader(Full(key));
  }
  Status Set(std::string_view key, ByteView value) override { return base_->Set(Full(key), value); }
  Status SetParts(std::string_view key, std::span<const ByteView> parts) override {
    return base_->SetParts(Full(key), parts);
  }
  Result<std::unique_ptr<store::ValueWriter>> OpenWriter(std::string_view key) override {
    return base_->OpenWriter(Full(key));
  }
  Status Erase(std::string_view key) override { return base_->Erase(Full(key)); }
  Result<std::vector<std::string>> List(std::string_view prefix) const override {
    CHUNKWISE_ASSIGN_OR_RETURN(std::vector<std::string> keys, base_->List(Full(prefix)));
    for (std::string& key : keys) key.erase(0, prefix_.size());
    return keys;
  }
  Result<std::optional<std::uint64_t>> Size(std::string_view key) const override {
    return base_->Size(Full(key));
  }
  store::StoreCapabilities capabilities() const override { return base_->capabilities(); }
  std::string Describe(std::string_view key) const override { return base_->Describe(Full(key)); }
  Result<store::Generation> GetGeneration(std::string_view key) const override {
    return base_->GetGeneration(Full(key));
  }
  Result<std::optional<store::VersionedValue>> GetVersioned(std::string_view key) const override {
    return base_->GetVersioned(Full(key));
  }
  Result<store::Generation> SetPartsIf(std::string_view key, std::span<const ByteView> parts,
                                       const store::Generation& expected) override {
    return base_->SetPartsIf(Full(key), parts, expected);
  }
  Status EraseIf(std::string_view key, const store::Generation& expected) override {
    return base_->EraseIf(Full(key), expected);
  }

  store::ForwardedKey RouteGet(std::string_view key) const override {
    return {base_.get(), Full(key)};
  }
  bool ForwardsToBatches() const override { return store::BatchesGets(*base_); }
  store::ForwardedPutKey RoutePut(std::string_view key) override {
    return {base_.get(), Full(key)};
  }
  bool ForwardsToBatchedPuts() const override { return store::BatchesPuts(*base_); }

 private:
  std::string Full(std::string_view key) const { return prefix_ + std::string(key); }

  const std::shared_ptr<store::Store> base_;
  const std::string prefix_;  // The folder and "/".
};

}  // namespace

std::shared_ptr<store::Store> MakeSubtreeStore(std::shared_ptr<store::Store> base,
                                               std::string folder) {
  return std::make_shared<SubtreeStore>(std::move(base), std::move(folder));
}

}  // namespace chunkwise
