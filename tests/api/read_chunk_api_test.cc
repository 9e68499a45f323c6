// ReadChunk (facade/zarr_arrays.h): one whole decoded chunk as a shared,
// immutable buffer, the cache's own when it holds the chunk (#42).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <string>

#include "api_test_support.h"
#include "chunkwise/chunkwise.h"

namespace chunkwise {
namespace {

using api_test::At16;
using api_test::Message;
using api_test::Ramp16;

// 16×24 uint16 in inner chunks of 4×6, shards of 8×12 (when `sharded`),
// fill value 7.
ZarrArraySpec Spec16(bool sharded) {
  ZarrArraySpec spec;
  spec.shape = {16, 24};
  spec.data_type = *ParseDataType("<u2");
  spec.chunks = {4, 6};
  if (sharded) spec.shards = core::Shape{8, 12};
  spec.codecs = *ParseCodecs("zstd:1");
  spec.fill_value = "7";
  return spec;
}

ZarrArray CreateFilled(const Context& context, const std::string& url, const ZarrArraySpec& spec) {
  Result<ZarrArray> created = CreateZarrArray(context, url, spec, {.overwrite = true});
  EXPECT_TRUE(created.ok()) << created.status().ToString();
  const core::Region all(core::Coord(spec.shape.size(), 0), spec.shape);
  EXPECT_TRUE(
      WriteRegion(context, *created, all, Ramp16(static_cast<std::size_t>(all.num_elements())))
          .ok());
  return std::move(created).value();
}

// The elements of `chunk`'s box inside the array, from `buffer` (the whole
// chunk of `chunk_shape`, C order): what ReadRegion gives for that box.
Bytes InsideOf(const Bytes& buffer, const core::Shape& chunk_shape, const core::Region& box) {
  Bytes out;
  const core::Index rows = box.shape()[0], columns = box.shape()[1];
  for (core::Index r = 0; r < rows; ++r) {
    const auto* row = buffer.data() + 2 * r * chunk_shape[1];
    out.insert(out.end(), row, row + 2 * columns);
  }
  return out;
}

TEST(ReadChunkApi, WithTheCacheOnTwoReadsGetTheCachesOneBuffer) {
  for (const bool sharded : {true, false}) {
    Context context({.cache_bytes = 1 << 20});
    ZarrArray array = CreateFilled(context, "memory://same_buffer", Spec16(sharded));
    Result<std::shared_ptr<const Bytes>> first = ReadChunk(context, array, {1, 2});
    ASSERT_TRUE(first.ok()) << first.status().ToString();
    context.ResetCacheStats();
    Result<std::shared_ptr<const Bytes>> second = ReadChunk(context, array, {1, 2});
    ASSERT_TRUE(second.ok()) << second.status().ToString();
    EXPECT_EQ(first->get(), second->get()) << "sharded " << sharded;
    const CacheStats stats = context.cache_stats();
    EXPECT_GE(stats.hits, 1u) << "sharded " << sharded;
    EXPECT_EQ(stats.misses, 0u) << "sharded " << sharded;
    // Rows 4..7, columns 12..17: the same values as ReadRegion's.
    const core::Region box({4, 12}, {8, 18});
    ASSERT_EQ((*first)->size(), 4u * 6u * 2u);
    EXPECT_EQ(**first, *ReadRegion(context, array, box)) << "sharded " << sharded;
    EXPECT_EQ(At16(**first, 0), 4 * 24 + 12);
  }
}

TEST(ReadChunkApi, WithTheCacheOffEachReadDecodesTheSameValues) {
  for (const bool sharded : {true, false}) {
    Context context;
    ZarrArray array = CreateFilled(context, "memory://cache_off", Spec16(sharded));
    const std::shared_ptr<const Bytes> first = *ReadChunk(context, array, {3, 3});
    const std::shared_ptr<const Bytes> second = *ReadChunk(context, array, {3, 3});
    EXPECT_NE(first.get(), second.get());  // Nothing kept: a buffer each.
    EXPECT_EQ(*first, *ReadRegion(context, array, core::Region({12, 18}, {16, 24})));
    EXPECT_EQ(*first, *second);
    EXPECT_EQ(context.cache_stats().entries, 0u);
  }
}

TEST(ReadChunkApi, TheBufferOutlivesTheCacheEntryAndTheArray) {
  Context context({.cache_bytes = 1 << 20});
  std::shared_ptr<const Bytes> kept;
  {
    ZarrArray array = CreateFilled(context, "memory://outlives", Spec16(true));
    kept = *ReadChunk(context, array, {0, 1});
    ASSERT_EQ(kept.get(), ReadChunk(context, array, {0, 1})->get());
  }
  context.SetCacheBytes(0);  // Every entry dropped.
  EXPECT_EQ(context.cache_stats().entries, 0u);
  ASSERT_EQ(kept->size(), 48u);
  EXPECT_EQ(At16(*kept, 0), 6);             // Row 0, column 6.
  EXPECT_EQ(At16(*kept, 23), 3 * 24 + 11);  // Row 3, column 11.
}

TEST(ReadChunkApi, AnEdgeChunkIsWholeItsPartInsideIsTheArrays) {
  for (const bool sharded : {true, false}) {
    Context context({.cache_bytes = 1 << 20});
    ZarrArraySpec spec = Spec16(sharded);
    spec.shape = {10, 13};  // The last row and column of chunks are cut.
    ZarrArray array = CreateFilled(context, "memory://edge", spec);
    const std::shared_ptr<const Bytes> chunk = *ReadChunk(context, array, {2, 2});
    ASSERT_EQ(chunk->size(), 4u * 6u * 2u);
    const core::Region inside({8, 12}, {10, 13});
    EXPECT_EQ(InsideOf(*chunk, {4, 6}, inside), *ReadRegion(context, array, inside))
        << "sharded " << sharded;
  }
}

TEST(ReadChunkApi, AChunkNotStoredIsTheFillValueAndNotKept) {
  for (const bool sharded : {true, false}) {
    Context context({.cache_bytes = 1 << 20});
    ZarrArray array =
        *CreateZarrArray(context, "memory://unwritten", Spec16(sharded), {.overwrite = true});
    const std::shared_ptr<const Bytes> chunk = *ReadChunk(context, array, {2, 1});
    ASSERT_EQ(chunk->size(), 48u);
    for (std::size_t i = 0; i < 24; ++i) ASSERT_EQ(At16(*chunk, i), 7) << i;
    EXPECT_EQ(context.cache_stats().entries, 0u) << "sharded " << sharded;
  }
}

TEST(ReadChunkApi, CoordinatesOutsideTheGridAreRefusedNamingThem) {
  Context context({.cache_bytes = 1 << 20});
  ZarrArray array = CreateFilled(context, "memory://outside", Spec16(true));
  Result<std::shared_ptr<const Bytes>> past = ReadChunk(context, array, {4, 0});
  ASSERT_EQ(past.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(Message(past.status()).find("chunk [4,0] is outside the grid of chunks [4,4]"),
            std::string::npos)
      << past.status().ToString();
  Result<std::shared_ptr<const Bytes>> negative = ReadChunk(context, array, {0, -1});
  ASSERT_EQ(negative.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(Message(negative.status()).find("chunk [0,-1]"), std::string::npos);
  Result<std::shared_ptr<const Bytes>> rank = ReadChunk(context, array, {0});
  ASSERT_EQ(rank.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(Message(rank.status()).find("chunk [0] is outside"), std::string::npos);
}

TEST(ReadChunkApi, ADamagedChunkIsCorruptionNamingItsKey) {
  const std::filesystem::path where = api_test::FreshDirectory("read_chunk_api") / "a.zarr";
  Context context({.cache_bytes = 1 << 20});
  ZarrArray array = CreateFilled(context, where.string(), Spec16(false));
  const std::filesystem::path chunk = where / "c" / "1" / "0";
  ASSERT_TRUE(std::filesystem::exists(chunk));
  {
    std::fstream file(chunk, std::ios::in | std::ios::out | std::ios::binary);
    file.seekp(3);
    file.put('\xff');
  }
  Result<std::shared_ptr<const Bytes>> damaged = ReadChunk(context, array, {1, 0});
  ASSERT_EQ(damaged.status().code(), StatusCode::kCorruption) << damaged.status().ToString();
  EXPECT_NE(damaged.status().ToString().find("c/1/0"), std::string::npos)
      << damaged.status().ToString();
}

}  // namespace
}  // namespace chunkwise
