// The Context's chunk cache (ContextOptions::cache_bytes): off by default,
// shared by the arrays the context opens, never stale after a write through
// the context, and the same values whether on or off.
#include <gtest/gtest.h>

#include <random>
#include <thread>
#include <vector>

#include "api_test_support.h"
#include "chunkwise/chunkwise.h"

namespace chunkwise {
namespace {

using api_test::At16;
using api_test::Ramp16;

ZarrArraySpec Sharded16() {
  ZarrArraySpec spec;
  spec.shape = {16, 24};
  spec.data_type = *ParseDataType("<u2");
  spec.chunks = {4, 6};
  spec.shards = core::Shape{8, 12};
  spec.codecs = *ParseCodecs("zstd:1");
  spec.fill_value = "7";
  return spec;
}

ZarrArray CreateFilled(const Context& context, const std::string& url, std::uint16_t start) {
  Result<ZarrArray> created = CreateZarrArray(context, url, Sharded16(), {.overwrite = true});
  EXPECT_TRUE(created.ok()) << created.status().ToString();
  EXPECT_TRUE(
      WriteRegion(context, *created, core::Region({0, 0}, {16, 24}), Ramp16(384, start)).ok());
  return std::move(created).value();
}

TEST(ChunkCacheApi, OffByDefault) {
  Context context;
  EXPECT_EQ(context.cache_stats().limit_bytes, 0u);
  ZarrArray array = CreateFilled(context, "memory://off", 0);
  for (int i = 0; i < 2; ++i) {
    ASSERT_TRUE(ReadRegion(context, array, core::Region({0, 0}, {4, 6})).ok());
  }
  EXPECT_EQ(context.cache_stats().hits, 0u);
  EXPECT_EQ(context.cache_stats().entries, 0u);
}

TEST(ChunkCacheApi, ArraysOpenedByOneContextShareItsCache) {
  Context context({.cache_bytes = 1 << 20});
  CreateFilled(context, "memory://shared", 0);
  ZarrArray first = *OpenZarrArray(context, "memory://shared");
  ZarrArray second = *OpenZarrArray(context, "memory://shared");
  const core::Region box({1, 1}, {3, 5});
  const Bytes read = *ReadRegion(context, first, box);
  context.ResetCacheStats();
  EXPECT_EQ(*ReadRegion(context, second, box), read);
  const CacheStats stats = context.cache_stats();
  EXPECT_GT(stats.hits, 0u);
  EXPECT_EQ(stats.misses, 0u);  // Neither the index nor the chunk was read again.
  EXPECT_EQ(At16(read, 0), 25);
}

TEST(ChunkCacheApi, AReadAfterAWriteThroughTheContextIsNeverStale) {
  for (const char* url : {"memory://stale", "directory"}) {
    Context context({.cache_bytes = 1 << 20});
    const std::string where =
        std::string(url) == "directory"
            ? (api_test::FreshDirectory("chunk_cache_api") / "a.zarr").string()
            : std::string(url);
    ZarrArray reader = CreateFilled(context, where, 0);
    const core::Region all({0, 0}, {16, 24});
    ASSERT_EQ(*ReadRegion(context, reader, all), Ramp16(384, 0));
    // Another handle of the same array, opened by URL (for a directory: another store).
    ZarrArray writer = *OpenZarrArray(context, where);
    ASSERT_TRUE(WriteRegion(context, writer, core::Region({2, 3}, {3, 4}), Ramp16(1, 9999)).ok());
    const Bytes after = *ReadRegion(context, reader, all);
    EXPECT_EQ(At16(after, 2 * 24 + 3), 9999) << where;
    EXPECT_EQ(At16(after, 2 * 24 + 4), 2 * 24 + 4) << where;
    // Re-created over itself with the same spec: fill everywhere.
    ASSERT_TRUE(CreateZarrArray(context, where, Sharded16(), {.overwrite = true}).ok());
    EXPECT_EQ(At16(*ReadRegion(context, reader, all), 0), 7) << where;
  }
}

TEST(ChunkCacheApi, OnAndOffReadTheSameValues) {
  Context off;
  Context on({.cache_bytes = 4096});  // Small: evictions on the way.
  ZarrArray a = CreateFilled(off, "memory://same", 3);
  ZarrArray b = CreateFilled(on, "memory://same", 3);
  std::mt19937 rng(5);
  for (int i = 0; i < 100; ++i) {
    const core::Index r0 = rng() % 16, c0 = rng() % 24;
    const core::Region box({r0, c0}, {r0 + 1 + static_cast<core::Index>(rng() % (16 - r0)),
                                      c0 + 1 + static_cast<core::Index>(rng() % (24 - c0))});
    if (i % 10 == 0) {  // Now and then a write, the same to both.
      const Bytes data =
          Ramp16(static_cast<std::size_t>(box.num_elements()), static_cast<std::uint16_t>(i));
      ASSERT_TRUE(WriteRegion(off, a, box, data).ok());
      ASSERT_TRUE(WriteRegion(on, b, box, data).ok());
    }
    ASSERT_EQ(*ReadRegion(off, a, box), *ReadRegion(on, b, box)) << box.ToString();
  }
  const CacheStats stats = on.cache_stats();
  EXPECT_GT(stats.hits, 0u);
  EXPECT_LE(stats.bytes, 4096u);
}

TEST(ChunkCacheApi, SettingTheLimitToZeroDropsEverything) {
  Context context({.cache_bytes = 1 << 20});
  ZarrArray array = CreateFilled(context, "memory://drop", 0);
  ASSERT_TRUE(ReadRegion(context, array, core::Region({0, 0}, {16, 24})).ok());
  EXPECT_GT(context.cache_stats().entries, 0u);
  context.SetCacheBytes(0);
  EXPECT_EQ(context.cache_stats().entries, 0u);
  EXPECT_EQ(context.cache_stats().bytes, 0u);
}

TEST(ChunkCacheApi, ThreadsReadingAndWritingTheirOwnShardsReadTheirWrites) {
  Context context({.threads = 2, .cache_bytes = 8192});
  CreateFilled(context, "memory://threads", 0);
  std::vector<std::thread> threads;
  std::vector<int> wrong(4, 0);
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      ZarrArray array = *OpenZarrArray(context, "memory://threads");
      // Thread t owns shard (t / 2, t % 2): an 8×12 box.
      const core::Region box({(t / 2) * 8, (t % 2) * 12}, {(t / 2) * 8 + 8, (t % 2) * 12 + 12});
      for (int round = 0; round < 30; ++round) {
        const Bytes data = Ramp16(96, static_cast<std::uint16_t>(t * 1000 + round));
        if (!WriteRegion(context, array, box, data).ok()) ++wrong[t];
        Result<Bytes> back = ReadRegion(context, array, box);
        if (!back.ok() || *back != data) ++wrong[t];
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(wrong, std::vector<int>(4, 0));
}

}  // namespace
}  // namespace chunkwise
