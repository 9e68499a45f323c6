#include "store/memory_store.h"

#include <cstring>
#include <mutex>
#include <string>

#include "store/key.h"

namespace chunkwise::store {

namespace {

// Reads one value held by reference: the version it was opened on.
class MemoryValueReader final : public ValueReader {
 public:
  MemoryValueReader(std::shared_ptr<const Bytes> value, Generation generation, std::string where)
      : value_(std::move(value)), generation_(std::move(generation)), where_(std::move(where)) {}

  std::uint64_t size() const override { return value_->size(); }
  bool pinned() const override { return true; }
  std::optional<Generation> generation() const override { return generation_; }

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
  Generation generation_;
  std::string where_;
};

}  // namespace

std::shared_ptr<MemoryStore> MemoryStore::Create(std::string name) {
  return std::make_shared<MemoryStore>(std::move(name));
}

MemoryStore::Entry MemoryStore::Lookup(std::string_view key) const {
  const auto it = values_.find(key);
  return it == values_.end() ? Entry() : it->second;
}

Result<MemoryStore::Entry> MemoryStore::Find(std::string_view key) const {
  CHUNKWISE_RETURN_IF_ERROR(ValidateKey(key));
  std::shared_lock lock(mutex_);
  return Lookup(key);
}

Generation MemoryStore::GenerationOf(const Entry& entry) {
  if (entry.value == nullptr) return Generation::Absent();
  return Generation::Of("m" + std::to_string(entry.generation));
}

Result<std::optional<Bytes>> MemoryStore::Get(std::string_view key) const {
  CHUNKWISE_ASSIGN_OR_RETURN(Entry entry, Find(key));
  const Value& value = entry.value;
  if (value == nullptr) {
    return std::optional<Bytes>();
  }
  return std::optional<Bytes>(CopyToBytes(*value));
}

Result<std::optional<Bytes>> MemoryStore::GetRange(std::string_view key, ByteRange range) const {
  CHUNKWISE_ASSIGN_OR_RETURN(Entry entry, Find(key));
  const Value& value = entry.value;
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
  CHUNKWISE_ASSIGN_OR_RETURN(Entry entry, Find(key));
  if (entry.value == nullptr) return std::unique_ptr<ValueReader>();
  Generation generation = GenerationOf(entry);
  return std::unique_ptr<ValueReader>(std::make_unique<MemoryValueReader>(
      std::move(entry.value), std::move(generation), Describe(key)));
}

Result<Generation> MemoryStore::Put(std::string_view key, Value value, const Generation* expected) {
  std::unique_lock lock(mutex_);
  if (expected != nullptr) {
    const Generation found = GenerationOf(Lookup(key));
    if (found != *expected) return GenerationConflict(Describe(key), *expected, found);
  }
  Entry entry{std::move(value), ++last_generation_};
  const Generation written = GenerationOf(entry);
  const auto it = values_.find(key);
  if (it != values_.end()) {
    std::swap(it->second, entry);
  } else {
    values_.emplace(std::string(key), std::move(entry));
  }
  lock.unlock();  // The old value, now in `entry`, is freed outside the lock.
  return written;
}

Status MemoryStore::Set(std::string_view key, ByteView value) {
  CHUNKWISE_RETURN_IF_ERROR(ValidateKey(key));
  // Copy before taking the lock so writers of large values do not stall readers.
  return Put(key, std::make_shared<const Bytes>(CopyToBytes(value)), nullptr).status();
}

Status MemoryStore::SetParts(std::string_view key, std::span<const ByteView> parts) {
  CHUNKWISE_RETURN_IF_ERROR(ValidateKey(key));
  return Put(key, std::make_shared<const Bytes>(JoinBytes(parts)), nullptr).status();
}

Result<Generation> MemoryStore::GetGeneration(std::string_view key) const {
  CHUNKWISE_ASSIGN_OR_RETURN(Entry entry, Find(key));
  return GenerationOf(entry);
}

Result<Generation> MemoryStore::SetPartsIf(std::string_view key, std::span<const ByteView> parts,
                                           const Generation& expected) {
  CHUNKWISE_RETURN_IF_ERROR(ValidateKey(key));
  return Put(key, std::make_shared<const Bytes>(JoinBytes(parts)), &expected);
}

Status MemoryStore::EraseIf(std::string_view key, const Generation& expected) {
  CHUNKWISE_RETURN_IF_ERROR(ValidateKey(key));
  Entry old;
  std::unique_lock lock(mutex_);
  const auto it = values_.find(key);
  const Generation found = it == values_.end() ? Generation::Absent() : GenerationOf(it->second);
  if (found != expected) return GenerationConflict(Describe(key), expected, found);
  if (it != values_.end()) {
    old = std::move(it->second);
    values_.erase(it);
  }
  return Status::Ok();
}

Status MemoryStore::Erase(std::string_view key) {
  CHUNKWISE_RETURN_IF_ERROR(ValidateKey(key));
  Entry old;
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
  CHUNKWISE_ASSIGN_OR_RETURN(Entry entry, Find(key));
  const Value& value = entry.value;
  if (value == nullptr) {
    return std::optional<std::uint64_t>();
  }
  return std::optional<std::uint64_t>(value->size());
}

StoreCapabilities MemoryStore::capabilities() const {
  return {.writable = true,
          .listable = true,
          .lists_every_key = true,
          .efficient_ranges = true,
          .durable = false,
          .local = true,
          .conditional_writes = true};
}

std::string MemoryStore::Describe(std::string_view key) const {
  if (name_.empty()) return "memory:" + std::string(key);
  return "memory://" + name_ + "/" + std::string(key);
}

std::size_t MemoryStore::size() const {
  std::shared_lock lock(mutex_);
  return values_.size();
}

}  // namespace chunkwise::store
