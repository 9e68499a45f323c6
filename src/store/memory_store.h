// MemoryStore: a Store that keeps every value in process memory.
//
// The store for tests and for small scratch arrays: nothing is durable. Keys
// are validated like every store's (store/key.h), so code that works here
// also works on FileStore. Values are immutable once set and shared between
// readers, so a Get copies the value outside the lock and a concurrent Set
// never tears it.
#ifndef CHUNKWISE_STORE_MEMORY_STORE_H_
#define CHUNKWISE_STORE_MEMORY_STORE_H_

#include <functional>
#include <map>
#include <memory>
#include <shared_mutex>
#include <string>

#include "chunkwise/store/store.h"

namespace chunkwise::store {

class MemoryStore final : public Store {
 public:
  // An empty store. Thread-safe: every method may be called concurrently.
  // `name` (a memory:// URL's, e.g. "scratch") goes into what Describe says.
  static std::shared_ptr<MemoryStore> Create(std::string name = "");
  explicit MemoryStore(std::string name = "") : name_(std::move(name)) {}

  Result<std::optional<Bytes>> Get(std::string_view key) const override;
  Result<std::optional<Bytes>> GetRange(std::string_view key, ByteRange range) const override;
  // Copies each range once, straight from the value held.
  Result<bool> GetRangesInto(std::string_view key, std::span<const ByteRange> ranges,
                             MutableByteView out) const override;
  // Holds a reference to the value: reads see it after a Set or Erase too.
  Result<std::unique_ptr<ValueReader>> OpenReader(std::string_view key) const override;
  Status Set(std::string_view key, ByteView value) override;
  // Joins the parts into the value held: one copy, not two.
  Status SetParts(std::string_view key, std::span<const ByteView> parts) override;
  Status Erase(std::string_view key) override;
  // Generations are a counter every write of the store advances; the
  // compare and the write happen under one lock.
  Result<Generation> GetGeneration(std::string_view key) const override;
  Result<Generation> SetPartsIf(std::string_view key, std::span<const ByteView> parts,
                                const Generation& expected) override;
  Status EraseIf(std::string_view key, const Generation& expected) override;
  Result<std::vector<std::string>> List(std::string_view prefix) const override;
  Result<std::optional<std::uint64_t>> Size(std::string_view key) const override;
  StoreCapabilities capabilities() const override;
  // "memory:<key>", or "memory://<name>/<key>" for a named store.
  std::string Describe(std::string_view key) const override;

  // The number of keys held.
  std::size_t size() const;

 private:
  using Value = std::shared_ptr<const Bytes>;
  struct Entry {
    Value value;  // nullptr when absent.
    std::uint64_t generation = 0;
  };

  // The entry of `key` (value nullptr if absent), after validating the key.
  Result<Entry> Find(std::string_view key) const;
  // Makes `value` the value of `key`; returns its generation. If `expected`
  // is given, only when the key is still at it (Conflict otherwise).
  Result<Generation> Put(std::string_view key, Value value, const Generation* expected);
  // The generation of `entry` (REQUIRES: mutex_ held or `entry` a copy).
  static Generation GenerationOf(const Entry& entry);
  // The entry of `key`, or an absent one. REQUIRES: mutex_ held.
  Entry Lookup(std::string_view key) const;

  const std::string name_;
  mutable std::shared_mutex mutex_;
  std::map<std::string, Entry, std::less<>> values_;  // Guarded by mutex_.
  std::uint64_t last_generation_ = 0;                 // Guarded by mutex_.
};

}  // namespace chunkwise::store

#endif  // CHUNKWISE_STORE_MEMORY_STORE_H_
