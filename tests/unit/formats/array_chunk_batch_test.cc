// Array::ReadChunks and Array::WriteChunks: batches of (chunk, box, buffer
// origin), the form zarr-python's codec pipelines hand their work in.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <memory>
#include <numeric>
#include <string>
#include <vector>

#include "formats/zarr/array.h"
#include "formats/zarr/array_layout.h"
#include "store/memory_store.h"

namespace chunkwise::formats::zarr {
namespace {

using core::Coord;
using core::Region;
using core::Shape;

template <typename T>
T ValueOrDie(Result<T> result) {
  EXPECT_TRUE(result.ok()) << result.status().ToString();
  return std::move(result).value();
}

// A 10×7 uint16 array of 4×3 chunks (edge chunks in both dimensions),
// sharded 8×6 when `sharded`; fill value 9.
Array MakeArray(const std::shared_ptr<store::Store>& store, bool sharded) {
  ArrayLayout layout;
  layout.shape = {10, 7};
  layout.data_type = core::DataType(core::DataTypeId::kUInt16);
  layout.chunk_shape = {4, 3};
  if (sharded) layout.shard_shape = Shape{8, 6};
  layout.fill_value = "9";
  return ValueOrDie(Array::Create(store, "a", ValueOrDie(BuildArrayMetadata(layout)), false));
}

std::vector<std::uint16_t> Iota(std::size_t n, std::uint16_t first = 100) {
  std::vector<std::uint16_t> values(n);
  std::iota(values.begin(), values.end(), first);
  return values;
}

ByteView View(const std::vector<std::uint16_t>& values) {
  return {reinterpret_cast<const std::uint8_t*>(values.data()), values.size() * 2};
}

// The transfers that cover `region` of `array`, each chunk's box placed at its
// offset in a buffer of region's shape: what zarr-python's indexer yields.
std::vector<ChunkTransfer> TransfersFor(const Array& array, const Region& region) {
  std::vector<ChunkTransfer> transfers;
  for (const Coord& chunk : array.grid().ChunksIntersecting(region)) {
    const core::ChunkOverlap overlap = *array.grid().Overlap(chunk, region);
    transfers.push_back({overlap.chunk, overlap.chunk_local, overlap.region_local.start()});
  }
  return transfers;
}

class ChunkBatchTest : public ::testing::TestWithParam<bool> {};

TEST_P(ChunkBatchTest, WriteChunksThenReadChunksEqualsWriteAndRead) {
  auto store = store::MemoryStore::Create();
  Array array = MakeArray(store, GetParam());
  const Region all = Region::Full(array.metadata().shape);
  const std::vector<std::uint16_t> data = Iota(70);
  ASSERT_TRUE(array.WriteChunks(TransfersFor(array, all), View(data), {10, 7}).ok());
  EXPECT_EQ(ValueOrDie(array.Read(all)), Bytes(View(data).begin(), View(data).end()));

  // A box across chunk borders, read into the middle of a larger buffer.
  const Region box({3, 2}, {9, 7});
  std::vector<ChunkTransfer> transfers = TransfersFor(array, box);
  for (ChunkTransfer& transfer : transfers) {
    transfer.buffer_origin[0] += 1;
    transfer.buffer_origin[1] += 2;
  }
  std::vector<std::uint16_t> out(8 * 8, 0);
  const std::vector<bool> stored = ValueOrDie(array.ReadChunks(transfers, out.data(), {8, 8}));
  EXPECT_EQ(stored, std::vector<bool>(transfers.size(), true));
  for (core::Index i = 0; i < 8; ++i) {
    for (core::Index j = 0; j < 8; ++j) {
      const bool inside = i >= 1 && i < 7 && j >= 2 && j < 7;
      const std::uint16_t expected = inside ? data[(i - 1 + 3) * 7 + (j - 2 + 2)] : 0;
      EXPECT_EQ(out[i * 8 + j], expected) << i << "," << j;
    }
  }
}

TEST_P(ChunkBatchTest, MissingChunksReadAsFillAndAreReportedMissing) {
  auto store = store::MemoryStore::Create();
  Array array = MakeArray(store, GetParam());
  // Write only the first chunk (shard), with a partial box: merged over fill.
  const std::vector<std::uint16_t> data = Iota(4);
  const ChunkTransfer first{{0, 0}, Region({1, 1}, {3, 3}), {0, 0}};
  ASSERT_TRUE(array.WriteChunks({&first, 1}, View(data), {2, 2}).ok());

  const Region all = Region::Full(array.metadata().shape);
  const std::vector<ChunkTransfer> transfers = TransfersFor(array, all);
  std::vector<std::uint16_t> out(70, 0);
  const std::vector<bool> stored = ValueOrDie(array.ReadChunks(transfers, out.data(), {10, 7}));
  ASSERT_EQ(stored.size(), transfers.size());
  for (std::size_t i = 0; i < transfers.size(); ++i) {
    // Chunk [0, 0], or when sharded the shard [0, 0] that holds it.
    EXPECT_EQ(stored[i], transfers[i].chunk == Coord({0, 0})) << i;
  }
  std::vector<std::uint16_t> expected(70, 9);
  expected[1 * 7 + 1] = 100, expected[1 * 7 + 2] = 101;
  expected[2 * 7 + 1] = 102, expected[2 * 7 + 2] = 103;
  EXPECT_EQ(out, expected);
}

INSTANTIATE_TEST_SUITE_P(PlainAndSharded, ChunkBatchTest, ::testing::Bool(),
                         [](const auto& info) { return info.param ? "sharded" : "plain"; });

TEST(ChunkBatchErrors, RefusesTransfersOutsideTheGridChunkOrBuffer) {
  auto store = store::MemoryStore::Create();
  Array array = MakeArray(store, false);
  std::vector<std::uint16_t> out(16);
  const auto read = [&](ChunkTransfer transfer) {
    return array.ReadChunks({&transfer, 1}, out.data(), {4, 4}).status();
  };
  Status status = read({{3, 0}, Region({0, 0}, {1, 1}), {0, 0}});
  EXPECT_EQ(status.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(status.message().find("chunk [3,0] is outside the grid"), std::string::npos)
      << status.ToString();
  // The edge chunk [2, 2] holds only 2×1 elements of the array.
  status = read({{2, 2}, Region({0, 0}, {2, 2}), {0, 0}});
  EXPECT_EQ(status.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(status.message().find("leaves the part"), std::string::npos) << status.ToString();
  status = read({{0, 0}, Region({0, 0}, {4, 3}), {1, 0}});
  EXPECT_EQ(status.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(status.message().find("leaves the buffer of shape [4,4]"), std::string::npos)
      << status.ToString();
  status = read({{0}, Region({0}, {1}), {0}});
  EXPECT_EQ(status.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(status.message().find("rank 2"), std::string::npos) << status.ToString();
  // A buffer of another rank, or with a negative extent, even for no transfers.
  status = array.ReadChunks({}, out.data(), {4, -1}).status();
  EXPECT_EQ(status.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(status.message().find("buffer of shape [4,-1]"), std::string::npos)
      << status.ToString();
  status = array.WriteChunks({}, ByteView(), {16});
  EXPECT_EQ(status.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(status.message().find("for an array of rank 2"), std::string::npos)
      << status.ToString();
}

TEST(ChunkBatchErrors, RefusesOneChunkTwiceInAWriteAndDataOfTheWrongSize) {
  auto store = store::MemoryStore::Create();
  Array array = MakeArray(store, true);
  const std::vector<std::uint16_t> data = Iota(16);
  const std::vector<ChunkTransfer> twice = {{{0, 0}, Region({0, 0}, {2, 2}), {0, 0}},
                                            {{0, 0}, Region({2, 2}, {4, 4}), {2, 2}}};
  Status status = array.WriteChunks(twice, View(data), {4, 4});
  EXPECT_EQ(status.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(status.message().find("chunk transfer 1: chunk [0,0] is named twice"),
            std::string::npos)
      << status.ToString();
  EXPECT_FALSE(ValueOrDie(store->Exists("a/c/0/0")));  // Nothing was written.

  status = array.WriteChunks({twice.data(), 1}, View(data), {4, 5});
  EXPECT_EQ(status.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(status.message().find("32 bytes"), std::string::npos) << status.ToString();
}

TEST(ChunkBatchFromMetadata, ReadsWhatAnotherWriterWroteWithoutReadingMetadata) {
  auto store = store::MemoryStore::Create();
  Array written = MakeArray(store, true);
  const std::vector<std::uint16_t> data = Iota(70);
  ASSERT_TRUE(written.Write(Region::Full(written.metadata().shape), View(data)).ok());
  ASSERT_TRUE(store->Erase("a/zarr.json").ok());  // FromMetadata must not need it.

  Array view = ValueOrDie(Array::FromMetadata(store, "a", written.metadata()));
  std::vector<std::uint16_t> out(70);
  const Region all = Region::Full(view.metadata().shape);
  ASSERT_TRUE(view.ReadChunks(TransfersFor(view, all), out.data(), {10, 7}).ok());
  EXPECT_EQ(out, data);
}

}  // namespace
}  // namespace chunkwise::formats::zarr
