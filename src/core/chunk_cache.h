// ChunkCache: a byte-bounded LRU cache of decoded values (chunks, shard
// indexes) that the arrays of one facade Context share.
//
// Small random reads (a viewer's chunks under the cursor, a training loop's
// patches) would otherwise read a shard's index and decode the same chunks
// again on every read. An entry is named by a ChunkCacheKey: the object (a
// store key, qualified by its store: the formats layer builds it), the
// variant (how its bytes were decoded: the array's codecs, data type and
// chunk shape, so two arrays over one key never share a decoding) and the
// part (the whole object, one inner chunk, or a shard's index).
//
// The limit is in bytes and is never exceeded: a value charged more than it
// is not kept, and inserting evicts the least recently used entries first.
// A limit of 0 keeps nothing (the default: whole-volume jobs would only
// churn it).
//
// Invalidation: a writer calls Invalidate(object) (or InvalidatePrefix) once
// its write is done, which drops every entry of the object. A reader that
// decoded a value takes a Ticket for its object before reading the store and
// hands it to Insert, which drops the value if the object was invalidated
// since: a reader that raced a writer never leaves the old value behind.
//
// Thread-safe: every call may come from any thread.
#ifndef CHUNKWISE_SRC_CORE_CHUNK_CACHE_H_
#define CHUNKWISE_SRC_CORE_CHUNK_CACHE_H_

#include <array>
#include <cstdint>
#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>

namespace chunkwise::core {

struct ChunkCacheKey {
  // The part of an object that is a whole chunk, and a shard's index;
  // parts >= 0 are inner chunks by row-major position.
  static constexpr std::int64_t kWhole = -1;
  static constexpr std::int64_t kShardIndex = -2;

  std::string object;
  std::string variant;
  std::int64_t part = kWhole;
};

// Counters since the cache was made (or ResetStats).
struct ChunkCacheStats {
  std::uint64_t hits = 0;
  std::uint64_t misses = 0;
  std::uint64_t insertions = 0;
  std::uint64_t evictions = 0;      // Dropped to make room (not invalidations).
  std::uint64_t invalidations = 0;  // Entries dropped by Invalidate*.
  std::uint64_t rejected = 0;       // Inserts not kept: too large, or raced by a write.
  std::uint64_t entries = 0;        // Held now.
  std::uint64_t bytes = 0;          // Charged now; never above limit_bytes.
  std::uint64_t limit_bytes = 0;
};

class ChunkCache {
 public:
  // A cache of at most `limit_bytes` charged bytes (0: keeps nothing).
  explicit ChunkCache(std::uint64_t limit_bytes = 0);
  ChunkCache(const ChunkCache&) = delete;
  ChunkCache& operator=(const ChunkCache&) = delete;

  // Whether values are kept at all: callers skip building them when not.
  bool enabled() const;
  std::uint64_t limit_bytes() const;
  // Changes the limit, evicting down to it at once.
  void SetLimit(std::uint64_t limit_bytes);

  // The value under `key` (marked most recently used), or null, counted as
  // a hit or a miss.
  std::shared_ptr<const void> Find(const ChunkCacheKey& key);
  // Typed Find for callers that know what they stored under a part.
  template <typename T>
  std::shared_ptr<const T> FindAs(const ChunkCacheKey& key) {
    return std::static_pointer_cast<const T>(Find(key));
  }
  // The value under `key`, or null, neither counted nor marked used: for a
  // caller that looks before it chooses how to read, and Finds what it uses.
  std::shared_ptr<const void> Peek(const ChunkCacheKey& key) const;
  template <typename T>
  std::shared_ptr<const T> PeekAs(const ChunkCacheKey& key) const {
    return std::static_pointer_cast<const T>(Peek(key));
  }

  // A ticket for `object`, taken before its value is read from the store.
  std::uint64_t Ticket(std::string_view object) const;
  // Keeps `value` under `key`, charged `bytes` (its size in memory), unless
  // it alone exceeds the limit or `object` was invalidated since `ticket`.
  // Replaces an entry already under `key`. Returns whether it was kept.
  bool Insert(const ChunkCacheKey& key, std::shared_ptr<const void> value, std::uint64_t bytes,
              std::uint64_t ticket);

  // Drops every entry of `object`, and of each object starting with `prefix`.
  void Invalidate(std::string_view object);
  void InvalidatePrefix(std::string_view prefix);
  // Drops every entry.
  void Clear();

  ChunkCacheStats stats() const;
  void ResetStats();

  // A small number naming one live instance (of a store, say) for as long as
  // it lives: an address alone could be reused by a later instance, whose
  // entries must not be mistaken for the old one's.
  std::uint64_t InstanceId(const std::shared_ptr<const void>& instance);

 private:
  struct Entry {
    ChunkCacheKey key;
    std::shared_ptr<const void> value;
    std::uint64_t charge = 0;
  };
  using Lru = std::list<Entry>;  // Most recently used first.
  // One object's entries by (variant, part).
  using Parts = std::map<std::pair<std::string, std::int64_t>, Lru::iterator>;
  // Writes bump a stripe's counter; a ticket is the counter of its object's stripe.
  static constexpr std::size_t kStripes = 1024;

  static std::size_t StripeOf(std::string_view object);
  // The following need mutex_ held.
  void EvictTo(std::uint64_t limit);
  void Remove(Lru::iterator entry);
  void DropObject(std::map<std::string, Parts, std::less<>>::iterator object);

  mutable std::mutex mutex_;
  std::uint64_t limit_;
  std::uint64_t bytes_ = 0;
  Lru lru_;
  std::map<std::string, Parts, std::less<>> objects_;
  std::array<std::uint64_t, kStripes> stripes_{};
  ChunkCacheStats counts_;
  struct Instance {
    std::weak_ptr<const void> alive;
    std::uint64_t id = 0;
  };
  std::map<const void*, Instance> instances_;
  std::uint64_t next_instance_ = 1;
  std::size_t instances_swept_ = 16;  // The table's size after the last sweep.
};

}  // namespace chunkwise::core

#endif  // CHUNKWISE_SRC_CORE_CHUNK_CACHE_H_
