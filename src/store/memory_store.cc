#include "chunkwise/store/memory_store.h"

#include <cstring>
#include <mutex>
#include <string>

#include "chunkwise/store/key.h"

namespace chunkwise::store {

namespace {

// Reads one value held by reference: the version it was opened on.
class MemoryValueReader final : public ValueReader {
 public:
  MemoryValueReader(std::shared_ptr<const Bytes> value, std::string where)
      : value_(std::move(value)), where_(std::move(where)) {}

  std::uint64_t size() const override { return value_->size(); }
  bool pinned() const override { return true; }

  Status ReadInto(std::span<const ByteRange> ranges, MutableByteView out) const override {
    CHUNKWISE_RETURN_IF_ERROR(CheckRangesFill(ranges, out.size(), where_));
    std::size_t at = 0;
    for (const ByteRange& range : ranges) {
      // Resolved lengths are the asked ones, which CheckRangesFill summed to out's size.
      CHUNKWISE_ASSIGN_OR_RETURN(ByteRange resolved, range.Resolve(value_->size(), where_));
      std::memcpy(out.data() + at, value_->data() + resolved.offset, resolved.length);
      at += resolved.length;
    }
    return Status::Ok();
  }

 private:
  std::shared_ptr<const Bytes> value_;
  std::string where_;
};

}  // namespace

std::shared_ptr<MemoryStore> MemoryStore::Create() { return std::make_shared<MemoryStore>(); }

Result<MemoryStore::Value> MemoryStore::Find(std::string_view key) const {
  CHUNKWISE_RETURN_IF_ERROR(ValidateKey(key));
  std::shared_lock lock(mutex_);
  const auto it = values_.find(key);
  return it == values_.end() ? Value() : it->second;
}

Result<std::optional<Bytes>> MemoryStore::Get(std::string_view key) const {
  CHUNKWISE_ASSIGN_OR_RETURN(Value value, Find(key));
  if (value == nullptr) {
    return std::optional<Bytes>();
  }
  return std::optional<Bytes>(CopyToBytes(*value));
}

Result<std::optional<Bytes>> MemoryStore::GetRange(std::string_view key, ByteRange range) const {
  CHUNKWISE_ASSIGN_OR_RETURN(Value value, Find(key));
  if (value == nullptr) {
    return std::optional<Bytes>();
  }
  CHUNKWISE_ASSIGN_OR_RETURN(ByteRange resolved, range.Resolve(value->size(), Describe(key)));
  return std::optional<Bytes>(
      CopyToBytes(ByteView(*value).subspan(resolved.offset, resolved.length)));
}

Result<bool> MemoryStore::GetRangesInto(std::string_view key, std::span<const ByteRange> ranges,
                                        MutableByteView out) const {
  return GetRangesThroughReader(key, ranges, out);
}

Result<std::unique_ptr<ValueReader>> MemoryStore::OpenReader(std::string_view key) const {
  CHUNKWISE_ASSIGN_OR_RETURN(Value value, Find(key));
  if (value == nullptr) return std::unique_ptr<ValueReader>();
  return std::unique_ptr<ValueReader>(
      std::make_unique<MemoryValueReader>(std::move(value), Describe(key)));
}

void MemoryStore::Put(std::string_view key, Value value) {
  std::unique_lock lock(mutex_);
  const auto it = values_.find(key);
  if (it != values_.end()) {
    it->second.swap(value);
  } else {
    values_.emplace(std::string(key), std::move(value));
  }
  lock.unlock();  // The old value, now in `value`, is freed outside the lock.
}

Status MemoryStore::Set(std::string_view key, ByteView value) {
  CHUNKWISE_RETURN_IF_ERROR(ValidateKey(key));
  // Copy before taking the lock so writers of large values do not stall readers.
  Put(key, std::make_shared<const Bytes>(CopyToBytes(value)));
  return Status::Ok();
}

Status MemoryStore::SetParts(std::string_view key, std::span<const ByteView> parts) {
  CHUNKWISE_RETURN_IF_ERROR(ValidateKey(key));
  Put(key, std::make_shared<const Bytes>(JoinBytes(parts)));
  return Status::Ok();
}

Status MemoryStore::Erase(std::string_view key) {
  CHUNKWISE_RETURN_IF_ERROR(ValidateKey(key));
  Value old;
  std::unique_lock lock(mutex_);
  const auto it = values_.find(key);
  if (it != values_.end()) {
    old = std::move(it->second);
    values_.erase(it);
  }
  return Status::Ok();
}

Result<std::vector<std::string>> MemoryStore::List(std::string_view prefix) const {
  CHUNKWISE_RETURN_IF_ERROR(ValidatePrefix(prefix));
  std::vector<std::string> keys;
  std::shared_lock lock(mutex_);
  for (auto it = values_.lower_bound(prefix);
       it != values_.end() && std::string_view(it->first).starts_with(prefix); ++it) {
    keys.push_back(it->first);
  }
  return keys;
}

Result<std::optional<std::uint64_t>> MemoryStore::Size(std::string_view key) const {
  CHUNKWISE_ASSIGN_OR_RETURN(Value value, Find(key));
  if (value == nullptr) {
    return std::optional<std::uint64_t>();
  }
  return std::optional<std::uint64_t>(value->size());
}

StoreCapabilities MemoryStore::capabilities() const {
  return {.writable = true,
          .listable = true,
          .efficient_ranges = true,
          .durable = false,
          .local = true};
}

std::string MemoryStore::Describe(std::string_view key) const {
  return "memory:" + std::string(key);
}

std::size_t MemoryStore::size() const {
  std::shared_lock lock(mutex_);
  return values_.size();
}

}  // namespace chunkwise::store
