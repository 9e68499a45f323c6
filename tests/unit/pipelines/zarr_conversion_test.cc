// pipelines::ConvertZarrArray in one process: a job stopped part-way and
// resumed reports, as its total, only the bytes it still copies.
#include "pipelines/zarr_conversion.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "formats/zarr/array_layout.h"
#include "store/memory_store.h"
#include "unit/value_or_die.h"

namespace chunkwise::pipelines {
namespace {

namespace zarr = formats::zarr;

using test::ValueOrDie;

class Totals final : public core::ProgressObserver {
 public:
  void OnStart(std::string_view, std::uint64_t total_units, std::string_view) override {
    total = total_units;
  }
  void OnFinish(std::string_view, std::uint64_t done_units) override { done = done_units; }

  std::uint64_t total = 0;
  std::uint64_t done = 0;
};

// uint16 [12, 40] in 4 × 10 chunks: 12 chunks of 80 bytes, 960 bytes in all.
zarr::Array Source() {
  zarr::ArrayLayout layout;
  layout.shape = {12, 40};
  layout.data_type = core::DataType(core::DataTypeId::kUInt16);
  layout.chunk_shape = {4, 10};
  zarr::Array source = ValueOrDie(zarr::Array::Create(
      store::MemoryStore::Create(), "", ValueOrDie(zarr::BuildArrayMetadata(layout)), false));
  Bytes values(std::size_t{12} * 40 * 2);
  for (std::size_t i = 0; i < values.size(); ++i) values[i] = static_cast<std::uint8_t>(i * 7 + 1);
  EXPECT_TRUE(source.Write(core::Region::Full(source.metadata().shape), values).ok());
  return source;
}

TEST(ZarrConversion, AResumedJobCountsOnlyWhatItStillCopies) {
  const zarr::Array source = Source();
  ZarrConversionLayout layout;
  layout.codecs = "zstd:1";
  const zarr::ArrayMetadata metadata = ValueOrDie(ConvertedMetadata(source.metadata(), layout));
  auto destination = store::MemoryStore::Create();

  ZarrConversionOptions first;
  std::atomic<int> objects{0};
  first.before_object = [&](const std::string& key) {
    return ++objects > 5 ? Status::IOError(key + ": stopped for the test") : Status::Ok();
  };
  ASSERT_EQ(ConvertZarrArray(source, destination, "", metadata, first).status().code(),
            StatusCode::kIOError);
  std::uint64_t kept = 0;
  for (const std::string& key : ValueOrDie(destination->List("c/"))) {
    kept += 80;
    EXPECT_TRUE(key.starts_with("c/")) << key;
  }
  ASSERT_GT(kept, 0u);
  ASSERT_LT(kept, 960u);

  Totals totals;
  ZarrConversionOptions resumed;
  resumed.resume = true;
  resumed.progress.observer = &totals;
  const zarr::Array copy = ValueOrDie(ConvertZarrArray(source, destination, "", metadata, resumed));
  EXPECT_EQ(totals.total, 960u - kept);
  EXPECT_EQ(totals.done, totals.total);
  const Bytes all = ValueOrDie(copy.Read(core::Region::Full(copy.metadata().shape)));
  const Bytes expected = ValueOrDie(source.Read(core::Region::Full(source.metadata().shape)));
  EXPECT_EQ(all, expected);
}

// uint16 [64, 64] in 16 × 16 shards of 2 × 2 chunks; six shards each store a
// 3 × 3 box across the 2 × 2 inner chunks [16a + 2, 16a + 6) × [16b + 4,
// 16b + 8): 16 elements, 32 bytes, to copy per shard.
zarr::Array SparseShardedSource() {
  zarr::ArrayLayout layout;
  layout.shape = {64, 64};
  layout.data_type = core::DataType(core::DataTypeId::kUInt16);
  layout.chunk_shape = {2, 2};
  layout.shard_shape = core::Shape{16, 16};
  zarr::Array source = ValueOrDie(zarr::Array::Create(
      store::MemoryStore::Create(), "", ValueOrDie(zarr::BuildArrayMetadata(layout)), false));
  const std::vector<std::pair<core::Index, core::Index>> shards = {{0, 0}, {0, 3}, {1, 1},
                                                                   {2, 0}, {3, 2}, {3, 3}};
  for (const auto& [a, b] : shards) {
    Bytes values(std::size_t{9} * 2);
    for (std::size_t i = 0; i < values.size(); ++i) {
      values[i] = static_cast<std::uint8_t>(i + 4 * a + b + 1);
    }
    EXPECT_TRUE(
        source.Write(core::Region({16 * a + 3, 16 * b + 5}, {16 * a + 6, 16 * b + 8}), values)
            .ok());
  }
  return source;
}

TEST(ZarrConversion, AResumedSparseShardedJobCountsTheBoxesItStillCopies) {
  const zarr::Array source = SparseShardedSource();
  const zarr::ArrayMetadata metadata = ValueOrDie(ConvertedMetadata(source.metadata(), {}));
  ASSERT_TRUE(metadata.codecs[0].value("name", "") == "sharding_indexed") << metadata.codecs.dump();
  auto destination = store::MemoryStore::Create();

  ZarrConversionOptions first;
  std::atomic<int> objects{0};
  first.before_object = [&](const std::string& key) {
    return ++objects > 3 ? Status::IOError(key + ": stopped for the test") : Status::Ok();
  };
  ASSERT_EQ(ConvertZarrArray(source, destination, "", metadata, first).status().code(),
            StatusCode::kIOError);
  const std::uint64_t kept = ValueOrDie(destination->List("c/")).size() * 32;
  ASSERT_GT(kept, 0u);
  ASSERT_LT(kept, 6u * 32);

  Totals totals;
  ZarrConversionOptions resumed;
  resumed.resume = true;
  resumed.progress.observer = &totals;
  const zarr::Array copy = ValueOrDie(ConvertZarrArray(source, destination, "", metadata, resumed));
  EXPECT_EQ(totals.total, 6u * 32 - kept);
  EXPECT_EQ(totals.done, totals.total);
  const core::Region all = core::Region::Full(copy.metadata().shape);
  EXPECT_EQ(ValueOrDie(copy.Read(all)), ValueOrDie(source.Read(all)));
  EXPECT_EQ(ValueOrDie(copy.Stats()).stored_inner_chunks, 6u * 4);
}

}  // namespace
}  // namespace chunkwise::pipelines
