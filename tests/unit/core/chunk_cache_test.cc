#include "core/chunk_cache.h"

#include <gtest/gtest.h>

#include <atomic>
#include <string>
#include <thread>
#include <vector>

namespace chunkwise::core {
namespace {

// A value of `n` bytes, each `v`.
std::shared_ptr<const void> Value(std::size_t n, int v) {
  return std::make_shared<const std::string>(n, static_cast<char>(v));
}

int ValueOf(const std::shared_ptr<const void>& value) {
  return value == nullptr ? -1 : static_cast<const std::string*>(value.get())->front();
}

ChunkCacheKey Key(std::string object, std::int64_t part = ChunkCacheKey::kWhole,
                  std::string variant = "v") {
  return ChunkCacheKey{std::move(object), std::move(variant), part};
}

// What an entry of `bytes` bytes under `object` is charged: its value and its key's memory.
std::uint64_t ChargeOf(std::uint64_t bytes, const std::string& object = "o") {
  ChunkCache probe(1 << 20);
  probe.Insert(Key(object), Value(1, 1), bytes, probe.Ticket(object));
  return probe.stats().bytes;
}

bool Put(ChunkCache& cache, const std::string& object, int v, std::uint64_t bytes = 1000,
         std::int64_t part = ChunkCacheKey::kWhole) {
  return cache.Insert(Key(object, part), Value(8, v), bytes, cache.Ticket(object));
}

TEST(ChunkCacheTest, OffByDefaultKeepsNothing) {
  ChunkCache cache;
  EXPECT_FALSE(cache.enabled());
  EXPECT_FALSE(Put(cache, "a", 1, 1));
  EXPECT_EQ(cache.Find(Key("a")), nullptr);
  EXPECT_EQ(cache.stats().entries, 0u);
  EXPECT_EQ(cache.stats().rejected, 1u);
}

TEST(ChunkCacheTest, FindsWhatWasInsertedAndCountsHitsAndMisses) {
  ChunkCache cache(1 << 20);
  ASSERT_TRUE(Put(cache, "a", 7));
  EXPECT_EQ(ValueOf(cache.Find(Key("a"))), 7);
  EXPECT_EQ(cache.Find(Key("b")), nullptr);
  EXPECT_EQ(cache.Find(Key("a", 3)), nullptr);                           // Another part.
  EXPECT_EQ(cache.Find(Key("a", ChunkCacheKey::kWhole, "w")), nullptr);  // Another variant.
  const ChunkCacheStats stats = cache.stats();
  EXPECT_EQ(stats.hits, 1u);
  EXPECT_EQ(stats.misses, 3u);
  EXPECT_EQ(stats.insertions, 1u);
  EXPECT_EQ(stats.entries, 1u);
  EXPECT_EQ(stats.bytes, ChargeOf(1000));
}

TEST(ChunkCacheTest, NeverExceedsItsLimitAndEvictsTheLeastRecentlyUsed) {
  const std::uint64_t charge = ChargeOf(1000);
  ChunkCache cache(3 * charge);  // Room for three.
  ASSERT_TRUE(Put(cache, "a", 1));
  ASSERT_TRUE(Put(cache, "b", 2));
  ASSERT_TRUE(Put(cache, "c", 3));
  EXPECT_EQ(cache.stats().bytes, 3 * charge);
  ASSERT_NE(cache.Find(Key("a")), nullptr);  // a is now the most recent; b the least.
  ASSERT_TRUE(Put(cache, "d", 4));
  EXPECT_EQ(cache.Find(Key("b")), nullptr);
  EXPECT_EQ(ValueOf(cache.Find(Key("a"))), 1);
  EXPECT_EQ(ValueOf(cache.Find(Key("c"))), 3);
  EXPECT_EQ(ValueOf(cache.Find(Key("d"))), 4);
  EXPECT_EQ(cache.stats().evictions, 1u);
  EXPECT_LE(cache.stats().bytes, 3 * charge);
  // Order now (most recent first): d, c, a. Two more push out a, then c.
  ASSERT_TRUE(Put(cache, "e", 5));
  EXPECT_EQ(cache.Find(Key("a")), nullptr);
  ASSERT_TRUE(Put(cache, "f", 6));
  EXPECT_EQ(cache.Find(Key("c")), nullptr);
  EXPECT_EQ(cache.stats().entries, 3u);
  EXPECT_EQ(cache.stats().evictions, 3u);
}

TEST(ChunkCacheTest, AnEntryLargerThanTheLimitIsNotKeptAndEvictsNothing) {
  const std::uint64_t charge = ChargeOf(1000);
  ChunkCache cache(2 * charge);
  ASSERT_TRUE(Put(cache, "a", 1));
  EXPECT_FALSE(Put(cache, "big", 2, 2 * charge));
  EXPECT_EQ(cache.Find(Key("big")), nullptr);
  EXPECT_EQ(ValueOf(cache.Find(Key("a"))), 1);
  EXPECT_EQ(cache.stats().rejected, 1u);
  EXPECT_EQ(cache.stats().evictions, 0u);
}

TEST(ChunkCacheTest, ReplacingAnEntryKeepsOneAndChargesOnce) {
  ChunkCache cache(1 << 20);
  ASSERT_TRUE(Put(cache, "a", 1));
  ASSERT_TRUE(Put(cache, "a", 2));
  EXPECT_EQ(ValueOf(cache.Find(Key("a"))), 2);
  EXPECT_EQ(cache.stats().entries, 1u);
  EXPECT_EQ(cache.stats().bytes, ChargeOf(1000));
}

TEST(ChunkCacheTest, InvalidateDropsEveryPartAndVariantOfTheObjectOnly) {
  ChunkCache cache(1 << 20);
  ASSERT_TRUE(Put(cache, "shard", 1, 100, ChunkCacheKey::kShardIndex));
  ASSERT_TRUE(Put(cache, "shard", 2, 100, 0));
  ASSERT_TRUE(cache.Insert(Key("shard", 5, "other"), Value(8, 3), 100, cache.Ticket("shard")));
  ASSERT_TRUE(Put(cache, "shard2", 4, 100, 0));
  cache.Invalidate("shard");
  EXPECT_EQ(cache.Find(Key("shard", ChunkCacheKey::kShardIndex)), nullptr);
  EXPECT_EQ(cache.Find(Key("shard", 0)), nullptr);
  EXPECT_EQ(cache.Find(Key("shard", 5, "other")), nullptr);
  EXPECT_EQ(ValueOf(cache.Find(Key("shard2", 0))), 4);
  EXPECT_EQ(cache.stats().invalidations, 3u);
  EXPECT_EQ(cache.stats().entries, 1u);
  EXPECT_EQ(cache.stats().bytes, ChargeOf(100, "shard2"));
}

TEST(ChunkCacheTest, InvalidatePrefixDropsTheObjectsUnderIt) {
  ChunkCache cache(1 << 20);
  ASSERT_TRUE(Put(cache, "s/a/c/0", 1));
  ASSERT_TRUE(Put(cache, "s/a/c/1", 2));
  ASSERT_TRUE(Put(cache, "s/ab/c/0", 3));
  cache.InvalidatePrefix("s/a/");
  EXPECT_EQ(cache.Find(Key("s/a/c/0")), nullptr);
  EXPECT_EQ(cache.Find(Key("s/a/c/1")), nullptr);
  EXPECT_EQ(ValueOf(cache.Find(Key("s/ab/c/0"))), 3);
}

TEST(ChunkCacheTest, AValueReadBeforeAWriteIsNotKeptAfterIt) {
  ChunkCache cache(1 << 20);
  const std::uint64_t ticket = cache.Ticket("a");                 // A reader starts...
  cache.Invalidate("a");                                          // ...a writer finishes...
  EXPECT_FALSE(cache.Insert(Key("a"), Value(8, 1), 10, ticket));  // ...the old value is dropped.
  EXPECT_EQ(cache.Find(Key("a")), nullptr);
  const std::uint64_t prefix_ticket = cache.Ticket("b");
  cache.InvalidatePrefix("b");
  EXPECT_FALSE(cache.Insert(Key("b"), Value(8, 1), 10, prefix_ticket));
  EXPECT_TRUE(Put(cache, "a", 2));  // A ticket taken after the write is good.
}

TEST(ChunkCacheTest, LoweringTheLimitEvictsAtOnce) {
  const std::uint64_t charge = ChargeOf(1000);
  ChunkCache cache(4 * charge);
  for (int i = 0; i < 4; ++i) ASSERT_TRUE(Put(cache, std::to_string(i), i));
  cache.SetLimit(charge);
  EXPECT_EQ(cache.stats().entries, 1u);
  EXPECT_EQ(ValueOf(cache.Find(Key("3"))), 3);  // The most recent stays.
  cache.SetLimit(0);
  EXPECT_FALSE(cache.enabled());
  EXPECT_EQ(cache.stats().bytes, 0u);
}

TEST(ChunkCacheTest, InstanceIdsAreNotReusedForANewInstanceAtTheSameAddress) {
  ChunkCache cache(1 << 20);
  auto first = std::make_shared<int>(1);
  const std::uint64_t id = cache.InstanceId(first);
  EXPECT_EQ(cache.InstanceId(first), id);
  auto second = std::make_shared<int>(2);
  EXPECT_NE(cache.InstanceId(second), id);
  const void* address = first.get();
  first.reset();
  // Whatever address a later instance gets, a dead one's id is never handed out again.
  for (int i = 0; i < 100; ++i) {
    auto later = std::make_shared<int>(i);
    if (later.get() == address) EXPECT_NE(cache.InstanceId(later), id);
    EXPECT_NE(cache.InstanceId(later), id);
  }
}

TEST(ChunkCacheTest, ConcurrentUseStaysWithinTheLimitAndReturnsWhatWasStored) {
  const std::uint64_t charge = ChargeOf(1000);
  ChunkCache cache(10 * charge);
  std::atomic<int> wrong{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 2000; ++i) {
        // Eight objects, room for ten: most finds hit.
        const std::string object = std::to_string((i * 7 + t) % 8);
        // Each object's value is its own number: a hit must give it back.
        const std::shared_ptr<const void> found = cache.Find(Key(object));
        if (found != nullptr && ValueOf(found) != std::stoi(object)) ++wrong;
        if (found == nullptr) Put(cache, object, std::stoi(object));
        if (i % 50 == 0) cache.Invalidate(object);
        if (cache.stats().bytes > 10 * charge) ++wrong;
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(wrong.load(), 0);
  EXPECT_LE(cache.stats().bytes, 10 * charge);
  EXPECT_GT(cache.stats().hits, 0u);
}

}  // namespace
}  // namespace chunkwise::core
