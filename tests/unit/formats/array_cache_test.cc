// Arrays reading through a shared chunk cache (ArrayOptions::cache): what a
// cached read fetches, and that writes leave no stale value behind.
#include <gtest/gtest.h>

#include <atomic>
#include <cstring>
#include <functional>
#include <future>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "chunkwise/store/file_store.h"
#include "core/chunk_cache.h"
#include "core/thread_pool_counts.h"
#include "formats/zarr/array.h"
#include "store/batched_gets.h"
#include "store/memory_store.h"
#include "unit/forwarding_store.h"
#include "unit/scratch_directory.h"
#include "unit/value_or_die.h"

namespace chunkwise::formats::zarr {
namespace {

using core::DataType;
using core::DataTypeId;
using core::Index;
using core::Region;
using core::Shape;
using nlohmann::json;
using test::ValueOrDie;

// Counts every call that reads a value (whole, ranged, or through a reader),
// running `before_read` (when set) first.
class CountingStore final : public test::ForwardingStore {
 public:
  Result<std::optional<Bytes>> Get(std::string_view key) const override {
    ++reads;
    if (before_read) before_read();
    return ForwardingStore::Get(key);
  }
  Result<std::optional<Bytes>> GetRange(std::string_view key,
                                        store::ByteRange range) const override {
    ++reads;
    if (before_read) before_read();
    return ForwardingStore::GetRange(key, range);
  }
  Result<std::unique_ptr<store::ValueReader>> OpenReader(std::string_view key) const override {
    ++opens;
    if (before_read) before_read();
    return Store::OpenReader(key);
  }
  mutable std::atomic<int> reads{0};
  mutable std::atomic<int> opens{0};
  std::function<void()> before_read;
};

const json kBytesLittle = {{"name", "bytes"}, {"configuration", {{"endian", "little"}}}};
const json kZstd = {{"name", "zstd"}, {"configuration", {{"level", 1}}}};

ArrayMetadata Uint16Metadata(Shape shape, Shape chunk_shape, json codecs) {
  ArrayMetadata metadata;
  metadata.shape = std::move(shape);
  metadata.chunk_shape = std::move(chunk_shape);
  metadata.data_type = DataType(DataTypeId::kUInt16);
  metadata.fill_value = {0, 0};
  metadata.codecs = std::move(codecs);
  return metadata;
}

// uint16 16×12 in shards of 8×6 of inner chunks 2×3 (8 per shard), zstd.
ArrayMetadata Sharded() {
  return Uint16Metadata({16, 12}, {8, 6},
                        json::array({{{"name", "sharding_indexed"},
                                      {"configuration",
                                       {{"chunk_shape", {2, 3}},
                                        {"codecs", json::array({kBytesLittle, kZstd})},
                                        {"index_location", "end"}}}}}));
}

// uint16 16×12 in plain chunks of 4×6, zstd.
ArrayMetadata Plain() {
  return Uint16Metadata({16, 12}, {4, 6}, json::array({kBytesLittle, kZstd}));
}

Bytes Iota16(std::size_t n, std::uint16_t first) {
  Bytes data(2 * n);
  for (std::size_t i = 0; i < n; ++i) {
    const auto value = static_cast<std::uint16_t>(first + i);
    std::memcpy(data.data() + 2 * i, &value, 2);
  }
  return data;
}

ArrayOptions WithCache(std::shared_ptr<core::ChunkCache> cache) {
  ArrayOptions options;
  options.pool = std::make_shared<core::ThreadPool>(2);
  options.cache = std::move(cache);
  return options;
}

class ArrayCacheTest : public ::testing::TestWithParam<bool> {  // Sharded or not.
 protected:
  ArrayMetadata metadata() const { return GetParam() ? Sharded() : Plain(); }
};

TEST_P(ArrayCacheTest, ASecondReadOfTheSameChunksTouchesNoStore) {
  auto store = std::make_shared<CountingStore>();
  auto cache = std::make_shared<core::ChunkCache>(1 << 20);
  Array array = ValueOrDie(Array::Create(store, "a", metadata(), false, WithCache(cache)));
  ASSERT_TRUE(array.Write(Region({0, 0}, {16, 12}), Iota16(192, 1)).ok());
  const Region box({1, 1}, {7, 5});
  const Bytes first = ValueOrDie(array.Read(box));
  ASSERT_GT(store->reads + store->opens, 0);
  store->reads = 0;
  store->opens = 0;
  const std::uint64_t hits = cache->stats().hits;
  const Bytes second = ValueOrDie(array.Read(box));
  EXPECT_EQ(second, first);
  EXPECT_EQ(store->reads, 0);
  EXPECT_EQ(store->opens, 0);
  EXPECT_GT(cache->stats().hits, hits);
  // And the values are the array's: element (1, 1) is 1 + 12 + 1.
  std::uint16_t element = 0;
  std::memcpy(&element, first.data(), 2);
  EXPECT_EQ(element, 14);
}

// Element (i, j) of the 16×12 array written with Iota16(192, 1).
Bytes IotaBox(const Region& box) {
  Bytes data;
  for (Index i = box.start()[0]; i < box.stop()[0]; ++i) {
    const Bytes row = Iota16(static_cast<std::size_t>(box.stop()[1] - box.start()[1]),
                             static_cast<std::uint16_t>(1 + 12 * i + box.start()[1]));
    data.insert(data.end(), row.begin(), row.end());
  }
  return data;
}

// A store over memory whose gets are batched, as a remote store's are
// (plain chunks are then read through GridObjects::ReadAll).
class BatchingStore final : public test::ForwardingStore, public store::BatchedGets {
 public:
  std::vector<Result<std::optional<Bytes>>> GetMany(std::span<const std::string> keys,
                                                    const core::Cancellation*) const override {
    ++batches;
    std::vector<Result<std::optional<Bytes>>> values;
    for (const std::string& key : keys) values.push_back(inner().Get(key));
    return values;
  }
  std::vector<Result<std::optional<Bytes>>> GetRangeMany(std::span<const store::RangedKey> reads,
                                                         const core::Cancellation*) const override {
    ++batches;
    std::vector<Result<std::optional<Bytes>>> values;
    for (const store::RangedKey& read : reads)
      values.push_back(inner().GetRange(read.key, read.range));
    return values;
  }
  std::vector<Result<std::optional<std::uint64_t>>> SizeMany(
      std::span<const std::string> keys, const core::Cancellation*) const override {
    ++batches;
    std::vector<Result<std::optional<std::uint64_t>>> sizes;
    for (const std::string& key : keys) sizes.push_back(inner().Size(key));
    return sizes;
  }
  mutable std::atomic<int> batches{0};
};

// A read whose every chunk the cache holds copies them out on the calling
// thread: it queues no task for the pool's workers, whose scheduling on a
// loaded machine can take longer than the copy (#42). So over a local
// store and over one whose gets are batched (a remote store's path), for a
// box over several chunks (shards) and for one inside a single one. The
// reads that filled the cache did queue tasks, so the count does move.
// (The count is the process's: no other pool works during the test.)
TEST_P(ArrayCacheTest, AReadOfCachedChunksQueuesNoTaskForThePool) {
  for (const bool batched : {false, true}) {
    SCOPED_TRACE(batched ? "store with batched gets" : "local store");
    const auto batching = std::make_shared<BatchingStore>();
    const std::shared_ptr<store::Store> store =
        batched ? std::shared_ptr<store::Store>(batching) : std::make_shared<CountingStore>();
    auto cache = std::make_shared<core::ChunkCache>(1 << 20);
    Array array = ValueOrDie(Array::Create(store, "a", metadata(), false, WithCache(cache)));
    ASSERT_TRUE(array.Write(Region({0, 0}, {16, 12}), Iota16(192, 1)).ok());
    // Rows 3-8 and columns 4-7: 6 plain chunks of 4×6, or 4 shards of 8×6.
    const Region across({3, 4}, {9, 8});
    const Region inside({0, 0}, {2, 3});  // One chunk, or one shard's inner chunk.
    const std::uint64_t before_cold = core::TasksQueuedForWorkers();
    EXPECT_EQ(ValueOrDie(array.Read(across)), IotaBox(across));
    EXPECT_GT(core::TasksQueuedForWorkers(), before_cold);
    EXPECT_EQ(ValueOrDie(array.Read(inside)), IotaBox(inside));
    const int batches = batching->batches;
    const std::uint64_t hits = cache->stats().hits;
    const std::uint64_t before_warm = core::TasksQueuedForWorkers();
    EXPECT_EQ(ValueOrDie(array.Read(across)), IotaBox(across));
    EXPECT_EQ(ValueOrDie(array.Read(inside)), IotaBox(inside));
    EXPECT_EQ(core::TasksQueuedForWorkers(), before_warm);
    EXPECT_GT(cache->stats().hits, hits);
    EXPECT_EQ(batching->batches, batches);  // And no batch of requests, even an empty one.
  }
}

TEST_P(ArrayCacheTest, AReadAfterAWriteSeesTheWrite) {
  auto store = std::make_shared<CountingStore>();
  auto cache = std::make_shared<core::ChunkCache>(1 << 20);
  Array array = ValueOrDie(Array::Create(store, "a", metadata(), false, WithCache(cache)));
  ASSERT_TRUE(array.Write(Region({0, 0}, {16, 12}), Iota16(192, 1)).ok());
  const Region all({0, 0}, {16, 12});
  ASSERT_EQ(ValueOrDie(array.Read(all)), Iota16(192, 1));
  // A partial write (merged into a chunk and a shard), then a whole one.
  ASSERT_TRUE(array.Write(Region({1, 1}, {3, 4}), Iota16(6, 1000)).ok());
  Bytes expected = Iota16(192, 1);
  for (int i = 0; i < 2; ++i) {
    for (int j = 0; j < 3; ++j) {
      const auto value = static_cast<std::uint16_t>(1000 + i * 3 + j);
      std::memcpy(expected.data() + 2 * ((1 + i) * 12 + 1 + j), &value, 2);
    }
  }
  EXPECT_EQ(ValueOrDie(array.Read(all)), expected);
  ASSERT_TRUE(array.Write(all, Iota16(192, 500)).ok());
  EXPECT_EQ(ValueOrDie(array.Read(all)), Iota16(192, 500));
  // A write of all fill value removes the stored objects; reads give fill.
  ASSERT_TRUE(array.Write(all, Bytes(384, 0)).ok());
  EXPECT_EQ(ValueOrDie(array.Read(all)), Bytes(384, 0));
}

TEST_P(ArrayCacheTest, AWriteThroughAnotherArrayOfTheSameStoreIsSeen) {
  auto store = std::make_shared<CountingStore>();
  auto cache = std::make_shared<core::ChunkCache>(1 << 20);
  Array reader = ValueOrDie(Array::Create(store, "a", metadata(), false, WithCache(cache)));
  ASSERT_TRUE(reader.Write(Region({0, 0}, {16, 12}), Iota16(192, 1)).ok());
  const Region all({0, 0}, {16, 12});
  ASSERT_EQ(ValueOrDie(reader.Read(all)), Iota16(192, 1));
  Array writer = ValueOrDie(Array::Open(store, "a", WithCache(cache)));
  ASSERT_TRUE(writer.Write(all, Iota16(192, 77)).ok());
  EXPECT_EQ(ValueOrDie(reader.Read(all)), Iota16(192, 77));
}

TEST_P(ArrayCacheTest, OverwritingTheArrayDropsItsEntries) {
  auto store = std::make_shared<CountingStore>();
  auto cache = std::make_shared<core::ChunkCache>(1 << 20);
  const Region all({0, 0}, {16, 12});
  Array old = ValueOrDie(Array::Create(store, "a", metadata(), false, WithCache(cache)));
  ASSERT_TRUE(old.Write(all, Iota16(192, 1)).ok());
  ASSERT_EQ(ValueOrDie(old.Read(all)), Iota16(192, 1));
  // The same metadata again, over it: its chunks are gone, so reads give fill.
  Array fresh = ValueOrDie(Array::Create(store, "a", metadata(), true, WithCache(cache)));
  EXPECT_EQ(ValueOrDie(fresh.Read(all)), Bytes(384, 0));
}

TEST_P(ArrayCacheTest, ResizeDropsTheChunksItErases) {
  auto store = std::make_shared<CountingStore>();
  auto cache = std::make_shared<core::ChunkCache>(1 << 20);
  const Region all({0, 0}, {16, 12});
  Array array = ValueOrDie(Array::Create(store, "a", metadata(), false, WithCache(cache)));
  ASSERT_TRUE(array.Write(all, Iota16(192, 1)).ok());
  ASSERT_EQ(ValueOrDie(array.Read(all)), Iota16(192, 1));
  ASSERT_TRUE(array.Resize({8, 6}).ok());
  ASSERT_TRUE(array.Resize({16, 12}).ok());
  // Chunks outside 8×6 were erased: fill there, the old values inside.
  const Bytes back = ValueOrDie(array.Read(all));
  std::uint16_t inside = 0, outside = 0;
  std::memcpy(&inside, back.data() + 2 * (0 * 12 + 0), 2);
  std::memcpy(&outside, back.data() + 2 * (12 * 12 + 11), 2);
  EXPECT_EQ(inside, 1);
  EXPECT_EQ(outside, 0);
}

TEST_P(ArrayCacheTest, CacheOffReadsAsBeforeAndKeepsNothing) {
  auto store = std::make_shared<CountingStore>();
  auto cache = std::make_shared<core::ChunkCache>(0);
  Array array = ValueOrDie(Array::Create(store, "a", metadata(), false, WithCache(cache)));
  const Region all({0, 0}, {16, 12});
  ASSERT_TRUE(array.Write(all, Iota16(192, 3)).ok());
  store->reads = 0;
  store->opens = 0;
  EXPECT_EQ(ValueOrDie(array.Read(all)), Iota16(192, 3));
  const int once = store->reads + store->opens;
  EXPECT_EQ(ValueOrDie(array.Read(all)), Iota16(192, 3));
  EXPECT_EQ(store->reads + store->opens, 2 * once);  // Read again from the store.
  EXPECT_EQ(cache->stats().entries, 0u);
  EXPECT_EQ(cache->stats().hits, 0u);
}

TEST_P(ArrayCacheTest, TheCacheStaysWithinItsLimit) {
  auto store = std::make_shared<CountingStore>();
  // Room for a few entries: each is charged its key's text (a few hundred
  // bytes with the codecs) besides its 12 (inner) or 48 (plain) bytes.
  auto cache = std::make_shared<core::ChunkCache>(1500);
  Array array = ValueOrDie(Array::Create(store, "a", metadata(), false, WithCache(cache)));
  const Region all({0, 0}, {16, 12});
  ASSERT_TRUE(array.Write(all, Iota16(192, 1)).ok());
  for (int i = 0; i < 3; ++i) ASSERT_EQ(ValueOrDie(array.Read(all)), Iota16(192, 1));
  const core::ChunkCacheStats stats = cache->stats();
  EXPECT_LE(stats.bytes, stats.limit_bytes);
  EXPECT_GT(stats.entries, 0u);
  EXPECT_GT(stats.evictions, 0u);
}

TEST_P(ArrayCacheTest, ConcurrentReadersAndWritersAlwaysReadWholeWrites) {
  // A memory store's readers hold one version of a value, so a read of an
  // object being written sees it whole, before or after, with or without a cache.
  std::shared_ptr<store::Store> store = store::MemoryStore::Create();
  auto cache = std::make_shared<core::ChunkCache>(4096);  // Small: evictions too.
  Array array = ValueOrDie(Array::Create(store, "a", metadata(), false, WithCache(cache)));
  // Each writer owns one object (a shard of 8×6, or a chunk of 4×6) and fills
  // it with one value per round; a reader of the object must see one value
  // throughout, never an older round than the last one finished before it
  // began reading.
  const int objects = 2;
  const Index rows = GetParam() ? 8 : 4, columns = 6;
  const auto box = [&](int object) {
    return Region({0, object * columns}, {rows, (object + 1) * columns});
  };
  std::atomic<int> wrong{0};
  std::vector<std::atomic<int>> latest(objects);
  for (auto& value : latest) value = 0;
  std::vector<std::thread> threads;
  for (int object = 0; object < objects; ++object) {
    threads.emplace_back([&, object] {
      Array writer = ValueOrDie(Array::Open(store, "a", WithCache(cache)));
      for (int round = 1; round <= 40; ++round) {
        const auto value = static_cast<std::uint16_t>(object * 1000 + round);
        Bytes data(static_cast<std::size_t>(2 * rows * columns));
        for (std::size_t i = 0; i < data.size(); i += 2) std::memcpy(data.data() + i, &value, 2);
        if (!writer.Write(box(object), data).ok()) ++wrong;
        latest[object] = round;
        if (ValueOrDie(writer.Read(box(object))) != data) ++wrong;  // Its own write.
      }
    });
  }
  for (int t = 0; t < 2; ++t) {
    threads.emplace_back([&, t] {
      Array reader = ValueOrDie(Array::Open(store, "a", WithCache(cache)));
      std::mt19937 rng(t);
      for (int i = 0; i < 300; ++i) {
        const int object = static_cast<int>(rng() % objects);
        const int before = latest[object];
        const Result<Bytes> back = reader.Read(box(object));
        if (!back.ok()) {
          ++wrong;
          continue;
        }
        std::uint16_t first = 0;
        std::memcpy(&first, back->data(), 2);
        for (std::size_t j = 0; j < back->size(); j += 2) {
          std::uint16_t value = 0;
          std::memcpy(&value, back->data() + j, 2);
          if (value != first) ++wrong;
        }
        if (before > 0 && (first < object * 1000 + before || first > object * 1000 + 40)) ++wrong;
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(wrong.load(), 0);
  EXPECT_LE(cache->stats().bytes, 4096u);
}

INSTANTIATE_TEST_SUITE_P(PlainAndSharded, ArrayCacheTest, ::testing::Bool(),
                         [](const auto& info) { return info.param ? "Sharded" : "Plain"; });

// Keeps every worker of `pool` busy until `release` is set, so that a
// ParallelFor on it runs its items on the calling thread, in order.
void OccupyWorkers(core::ThreadPool& pool, std::shared_future<void> release) {
  std::atomic<std::size_t> started{0};
  for (std::size_t i = 0; i < pool.num_threads(); ++i) {
    pool.Submit([&started, release] {
      ++started;
      release.wait();
    });
  }
  while (started.load() < pool.num_threads()) std::this_thread::yield();
}

// zarr-python's codec pipeline reads through ReadChunks: a batch naming a
// chunk the cache holds after one it lacks gets the cached one copied out
// before the store is asked for the other, as a region read does.
TEST_P(ArrayCacheTest, ReadChunksCopiesCachedChunksBeforeAnyStoreRead) {
  auto store = std::make_shared<CountingStore>();
  auto cache = std::make_shared<core::ChunkCache>(1 << 20);
  ArrayOptions options = WithCache(cache);
  const std::shared_ptr<core::ThreadPool> pool = options.pool;
  Array array = ValueOrDie(Array::Create(store, "a", metadata(), false, std::move(options)));
  ASSERT_TRUE(array.Write(Region({0, 0}, {16, 12}), Iota16(192, 1)).ok());
  const Shape chunk = metadata().chunk_shape;  // 4×6 plain, 8×6 sharded.
  const Region first({0, 0}, {chunk[0], chunk[1]});
  const Region second({chunk[0], 0}, {2 * chunk[0], chunk[1]});
  ASSERT_EQ(ValueOrDie(array.Read(first)), IotaBox(first));  // Now kept.
  // Chunk (1, 0), not kept, goes to the buffer's top half; chunk (0, 0),
  // kept, to its bottom half.
  const std::vector<ChunkTransfer> transfers = {
      {{1, 0}, Region::Full(chunk), {0, 0}},
      {{0, 0}, Region::Full(chunk), {chunk[0], 0}},
  };
  Bytes out(static_cast<std::size_t>(2 * chunk[0] * chunk[1] * 2), 0);
  const Bytes kept = IotaBox(first);
  bool kept_was_copied_first = false;
  int store_reads = 0;
  store->before_read = [&] {
    if (store_reads++ == 0) {
      kept_was_copied_first = std::memcmp(out.data() + kept.size(), kept.data(), kept.size()) == 0;
    }
  };
  store->reads = 0;
  store->opens = 0;
  std::promise<void> release;
  OccupyWorkers(*pool, release.get_future().share());
  const Result<std::vector<bool>> stored =
      array.ReadChunks(transfers, out.data(), {2 * chunk[0], chunk[1]});
  release.set_value();
  store->before_read = nullptr;
  ASSERT_TRUE(stored.ok()) << stored.status().ToString();
  EXPECT_EQ(*stored, (std::vector<bool>{true, true}));
  EXPECT_TRUE(kept_was_copied_first);
  Bytes expected = IotaBox(second);
  expected.insert(expected.end(), kept.begin(), kept.end());
  EXPECT_EQ(out, expected);
  // The kept chunk read nothing: the other's one Get (plain), or one
  // opening of its shard (sharded; its index and chunks come through it).
  if (GetParam()) {
    EXPECT_EQ(store->opens, 1);
  } else {
    EXPECT_EQ(store->reads, 1);
    EXPECT_EQ(store->opens, 0);
  }
}

TEST(ArrayCacheSharded, TheShardIndexIsReadOnceWhileCached) {
  auto store = std::make_shared<CountingStore>();
  auto cache = std::make_shared<core::ChunkCache>(1 << 20);
  Array array = ValueOrDie(Array::Create(store, "a", Sharded(), false, WithCache(cache)));
  ASSERT_TRUE(array.Write(Region({0, 0}, {8, 6}), Iota16(48, 1)).ok());
  store->opens = 0;
  // Two reads of different inner chunks of one shard: the index is read for the first only.
  ASSERT_TRUE(array.Read(Region({0, 0}, {2, 3})).ok());
  EXPECT_EQ(store->opens, 1);  // The index, then the chunk through the same reader.
  ASSERT_TRUE(array.Read(Region({2, 3}, {4, 6})).ok());
  EXPECT_EQ(store->opens, 2);  // The chunk only.
  // ReadIndex (zarr info's counts) finds it too.
  const std::optional<ShardIndex> index = ValueOrDie(array.Shard(core::Coord{0, 0}).ReadIndex());
  ASSERT_TRUE(index.has_value());
  EXPECT_EQ(store->opens, 2);
}

TEST(ArrayCacheSharded, ABoxOverCachedAndUncachedShardsCountsEachLookupOnce) {
  auto store = std::make_shared<CountingStore>();
  auto cache = std::make_shared<core::ChunkCache>(1 << 20);
  Array array = ValueOrDie(Array::Create(store, "a", Sharded(), false, WithCache(cache)));
  ASSERT_TRUE(array.Write(Region({0, 0}, {16, 12}), Iota16(192, 1)).ok());
  ASSERT_EQ(ValueOrDie(array.Read(Region({0, 0}, {8, 6}))), IotaBox(Region({0, 0}, {8, 6})));
  cache->ResetStats();
  store->opens = 0;
  // Rows 4-11 of columns 0-5: 4 inner chunks of shard (0, 0), all kept, and
  // 4 of shard (1, 0), not yet read. The kept shard is copied out first
  // (its lookups counted once, as hits); the other is read as before.
  const Region box({4, 0}, {12, 6});
  EXPECT_EQ(ValueOrDie(array.Read(box)), IotaBox(box));
  EXPECT_EQ(cache->stats().hits, 5u);    // Shard (0, 0)'s index and 4 chunks.
  EXPECT_EQ(cache->stats().misses, 5u);  // Shard (1, 0)'s.
  EXPECT_EQ(store->opens, 1);            // Shard (1, 0) only.
  // Both kept now: all hits, nothing read.
  EXPECT_EQ(ValueOrDie(array.Read(box)), IotaBox(box));
  EXPECT_EQ(cache->stats().hits, 15u);
  EXPECT_EQ(cache->stats().misses, 5u);
  EXPECT_EQ(store->opens, 1);
}

TEST(ArrayCacheSharded, AWriteThroughTheShardStoreDropsTheShard) {
  auto store = std::make_shared<CountingStore>();
  auto cache = std::make_shared<core::ChunkCache>(1 << 20);
  Array array = ValueOrDie(Array::Create(store, "a", Sharded(), false, WithCache(cache)));
  ASSERT_TRUE(array.Write(Region({0, 0}, {8, 6}), Iota16(48, 1)).ok());
  const Region first_inner({0, 0}, {2, 3});
  Bytes expected = Iota16(3, 1);  // Rows 0 and 1 of the 8×6 write: 1 2 3, 7 8 9.
  const Bytes second_row = Iota16(3, 7);
  expected.insert(expected.end(), second_row.begin(), second_row.end());
  ASSERT_EQ(ValueOrDie(array.Read(first_inner)), expected);
  // Inner chunk 0 erased through the shard's store: reads give fill.
  ShardStore shard = array.Shard(core::Coord{0, 0});
  ASSERT_TRUE(shard.Erase("0/0").ok());
  EXPECT_EQ(ValueOrDie(array.Read(first_inner)), Bytes(12, 0));
}

TEST(ArrayCacheScope, TwoFileStoresOverOneDirectoryShareEntriesAndWrites) {
  const std::filesystem::path directory = test::FreshScratchDirectory("array_cache");
  auto cache = std::make_shared<core::ChunkCache>(1 << 20);
  std::shared_ptr<store::Store> first =
      ValueOrDie(store::FileStore::Open(directory, {.create_root = true}));
  std::shared_ptr<store::Store> second = ValueOrDie(store::FileStore::Open(directory));
  const Region all({0, 0}, {16, 12});
  Array a = ValueOrDie(Array::Create(first, "a", Sharded(), false, WithCache(cache)));
  ASSERT_TRUE(a.Write(all, Iota16(192, 1)).ok());
  ASSERT_EQ(ValueOrDie(a.Read(all)), Iota16(192, 1));
  Array b = ValueOrDie(Array::Open(second, "a", WithCache(cache)));
  const std::uint64_t hits = cache->stats().hits;
  ASSERT_EQ(ValueOrDie(b.Read(all)), Iota16(192, 1));
  EXPECT_GT(cache->stats().hits, hits);  // The other instance's entries.
  ASSERT_TRUE(b.Write(all, Iota16(192, 9)).ok());
  EXPECT_EQ(ValueOrDie(a.Read(all)), Iota16(192, 9));
}

TEST(ArrayCacheScope, TwoMemoryStoresNeverShareEntries) {
  auto cache = std::make_shared<core::ChunkCache>(1 << 20);
  auto first = std::make_shared<CountingStore>();
  auto second = std::make_shared<CountingStore>();
  const Region all({0, 0}, {16, 12});
  Array a = ValueOrDie(Array::Create(first, "a", Plain(), false, WithCache(cache)));
  Array b = ValueOrDie(Array::Create(second, "a", Plain(), false, WithCache(cache)));
  ASSERT_TRUE(a.Write(all, Iota16(192, 1)).ok());
  ASSERT_TRUE(b.Write(all, Iota16(192, 2)).ok());
  EXPECT_EQ(ValueOrDie(a.Read(all)), Iota16(192, 1));
  EXPECT_EQ(ValueOrDie(b.Read(all)), Iota16(192, 2));
}

// Says it is durable and read-only, and describes every key alike, as two
// reference sets of one name do.
class ReadOnlyDurableStore final : public test::ForwardingStore {
 public:
  store::StoreCapabilities capabilities() const override {
    store::StoreCapabilities capabilities = ForwardingStore::capabilities();
    capabilities.durable = true;
    capabilities.writable = false;
    return capabilities;
  }
  std::string Describe(std::string_view key) const override {
    return "references:" + std::string(key);
  }
};

TEST(ArrayCacheScope, ReadOnlyStoresOfOneDescriptionNeverShareEntries) {
  auto cache = std::make_shared<core::ChunkCache>(1 << 20);
  auto first = std::make_shared<ReadOnlyDurableStore>();
  auto second = std::make_shared<ReadOnlyDurableStore>();
  const Region all({0, 0}, {16, 12});
  // Written around the cache (the double is writable underneath), then read through it.
  ASSERT_TRUE(
      ValueOrDie(Array::Create(first, "a", Sharded(), false)).Write(all, Iota16(192, 1)).ok());
  ASSERT_TRUE(
      ValueOrDie(Array::Create(second, "a", Sharded(), false)).Write(all, Iota16(192, 2)).ok());
  Array a = ValueOrDie(Array::Open(first, "a", WithCache(cache)));
  Array b = ValueOrDie(Array::Open(second, "a", WithCache(cache)));
  EXPECT_EQ(ValueOrDie(a.Read(all)), Iota16(192, 1));
  EXPECT_EQ(ValueOrDie(b.Read(all)), Iota16(192, 2));
}

TEST(ArrayCacheScope, ArraysDecodingTheSameKeyDifferentlyDoNotShare) {
  auto store = std::make_shared<CountingStore>();
  auto cache = std::make_shared<core::ChunkCache>(1 << 20);
  const Region all({0, 0}, {16, 12});
  Array little = ValueOrDie(Array::Create(store, "a", Plain(), false, WithCache(cache)));
  ASSERT_TRUE(little.Write(all, Iota16(192, 1)).ok());
  ASSERT_EQ(ValueOrDie(little.Read(all)), Iota16(192, 1));
  // The same chunks read as big-endian: every element byte-swapped.
  ArrayMetadata big_endian = Plain();
  big_endian.codecs =
      json::array({{{"name", "bytes"}, {"configuration", {{"endian", "big"}}}}, kZstd});
  Array big = ValueOrDie(Array::FromMetadata(store, "a", big_endian, WithCache(cache)));
  const Bytes swapped = ValueOrDie(big.Read(all));
  ASSERT_EQ(swapped.size(), 384u);
  EXPECT_EQ(swapped[0], 0);
  EXPECT_EQ(swapped[1], 1);
}

}  // namespace
}  // namespace chunkwise::formats::zarr
