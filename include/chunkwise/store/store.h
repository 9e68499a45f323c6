// Store: the one key-value interface every format reads and writes through.
//
// Keys are "/"-separated relative paths (see store/key.h for the rules). An
// absent key is a value (std::nullopt), not an error; errors are reserved for
// I/O failures, invalid keys and ranges outside a value. Every implementation
// is thread-safe: concurrent calls on one store are allowed. A Set is atomic:
// a concurrent reader sees the old value or the new one, never a mix.
//
// Writers that read a value, change it and write it back (a shard's
// read-modify-write) use the conditional writes: a read reports the value's
// Generation, and SetIf, CreateIfAbsent and EraseIf go ahead only if the key
// is still at that generation, failing with kConflict and changing nothing
// otherwise, so that two writers never lose each other's changes; the loser
// re-reads and retries. They are atomic with respect to one another; a plain
// Set racing them is not ordered against their compare.
#ifndef CHUNKWISE_STORE_STORE_H_
#define CHUNKWISE_STORE_STORE_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "chunkwise/core/bytes.h"
#include "chunkwise/core/result.h"
#include "chunkwise/store/byte_range.h"
#include "chunkwise/store/generation.h"
#include "chunkwise/store/value_reader.h"
#include "chunkwise/store/value_writer.h"

namespace chunkwise::store {

// What a store can do, for callers that choose a strategy.
struct StoreCapabilities {
  bool writable = false;
  bool listable = false;
  // List returns every key the store holds, not only those some layout
  // records (an http store lists only what zarr metadata names): a walk of
  // the listed keys misses nothing.
  bool lists_every_key = false;
  bool efficient_ranges = false;  // GetRange reads only the range, not the whole value.
  bool durable = false;           // Values survive the process (files, databases).
  // Requests cost little beyond the bytes they copy (files, memory), so many
  // small ones are as cheap as one large one.
  bool local = false;
  // GetGeneration, GetVersioned, SetIf, CreateIfAbsent and EraseIf work
  // (they return Unsupported otherwise).
  bool conditional_writes = false;
};

class Store {
 public:
  virtual ~Store() = default;

  // The whole value of `key`, or nullopt if absent.
  virtual Result<std::optional<Bytes>> Get(std::string_view key) const = 0;
  // Part of the value; nullopt if absent; OutOfRange if the range is outside it.
  virtual Result<std::optional<Bytes>> GetRange(std::string_view key, ByteRange range) const = 0;
  // Several ranges of one value (a shard's index said where its chunks lie),
  // read one after another into `out`, whose size must be the sum of their
  // lengths (InvalidArgument otherwise): one buffer the caller reuses instead
  // of an allocation per range. Returns false if the key is absent. The
  // default calls GetRange for each and copies.
  virtual Result<bool> GetRangesInto(std::string_view key, std::span<const ByteRange> ranges,
                                     MutableByteView out) const;
  // A reader of the value of `key` (store/value_reader.h), or nullptr if
  // the key is absent. The default reads through GetRangesInto and is not
  // pinned; stores that can hold one version of the value override it.
  virtual Result<std::unique_ptr<ValueReader>> OpenReader(std::string_view key) const;
  // Creates or replaces the value atomically.
  virtual Status Set(std::string_view key, ByteView value) = 0;
  // As Set, with the value given as parts written one after another (a shard's
  // chunks and its index) so that a store need not join them first. The
  // default joins them and calls Set.
  virtual Status SetParts(std::string_view key, std::span<const ByteView> parts);
  // A writer that builds the value of `key` piece by piece and publishes it
  // atomically on Commit (store/value_writer.h). The default gathers the
  // value in memory and calls Set; stores that can stream override it.
  virtual Result<std::unique_ptr<ValueWriter>> OpenWriter(std::string_view key);
  // Removes `key`; removing an absent key succeeds.
  virtual Status Erase(std::string_view key) = 0;
  // Every key that starts with `prefix` (a plain string prefix), sorted.
  virtual Result<std::vector<std::string>> List(std::string_view prefix) const = 0;
  // The value's size in bytes, or nullopt if absent.
  virtual Result<std::optional<std::uint64_t>> Size(std::string_view key) const = 0;
  virtual StoreCapabilities capabilities() const = 0;
  // Where `key` lives, for messages: a path for files, "memory:key" otherwise.
  virtual std::string Describe(std::string_view key) const = 0;

  // True if `key` holds a value.
  Result<bool> Exists(std::string_view key) const;

  // Conditional writes (see the top of this file). Unsupported unless
  // capabilities().conditional_writes.
  //
  // The generation `key` is at now; absent if it holds no value.
  virtual Result<Generation> GetGeneration(std::string_view key) const;
  // The whole value with the generation it was read at; nullopt if absent.
  // The default reads through OpenReader, whose reader must report one.
  virtual Result<std::optional<VersionedValue>> GetVersioned(std::string_view key) const;
  // Writes the parts as one value if `key` is still at `expected` (the
  // absent generation: if it holds no value); returns the new generation.
  // Conflict, naming the key, if it is at another one; nothing is written.
  virtual Result<Generation> SetPartsIf(std::string_view key, std::span<const ByteView> parts,
                                        const Generation& expected);
  // Removes `key` if it is still at `expected`; Conflict otherwise. Erasing
  // an absent key expected absent succeeds.
  virtual Status EraseIf(std::string_view key, const Generation& expected);
  // SetPartsIf with one part.
  Result<Generation> SetIf(std::string_view key, ByteView value, const Generation& expected);
  // Writes `value` only if `key` holds none: Conflict if it does.
  Result<Generation> CreateIfAbsent(std::string_view key, ByteView value);

 protected:
  // GetRangesInto for stores whose OpenReader is their own (it must not read
  // through GetRangesInto, or the two would call each other): every range
  // comes from one version of the value.
  Result<bool> GetRangesThroughReader(std::string_view key, std::span<const ByteRange> ranges,
                                      MutableByteView out) const;
  // Unsupported "<where>: <what> needs conditional writes, which this store lacks".
  Status NoConditionalWrites(std::string_view key, std::string_view what) const;
};

// Conflict "<where>: changed since it was read (expected generation G, found F)".
Status GenerationConflict(std::string_view where, const Generation& expected,
                          const Generation& found);

}  // namespace chunkwise::store

#endif  // CHUNKWISE_STORE_STORE_H_
