// The CPU backend hands the sink the buffer it compressed into, with where
// each tile lies, rather than gathering the tiles into another buffer; and
// it reuses two such buffers in turn, so a long stream touches no fresh
// memory after its first two batches (issue #40).
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <numeric>
#include <utility>
#include <vector>

#include "chunkwise/core/thread_pool.h"
#include "pipelines/stream/stream_backend.h"
#include "pipelines/stream/stream_config.h"

namespace chunkwise::pipelines::stream {
namespace {

StreamPlan SmallPlan() {
  StreamConfig config;
  config.dimensions = {{0, 2, 2, ""}, {6, 3, 2, ""}, {8, 4, 1, ""}};
  config.data_type = core::DataType(core::DataTypeId::kUInt16);
  config.codec = "zstd:1";
  config.threads = 2;
  Result<StreamPlan> plan = PlanStream(config);
  EXPECT_TRUE(plan.ok()) << plan.status().ToString();
  return *plan;
}

TEST(CpuBackendTest, HandsOverTheBufferItCompressedIntoAndReusesTwoInTurn) {
  const StreamPlan plan = SmallPlan();
  core::ThreadPool pool(plan.threads);
  Result<std::unique_ptr<StreamBackend>> backend = MakeCpuBackend(plan, pool);
  ASSERT_TRUE(backend.ok()) << backend.status().ToString();
  EXPECT_EQ((*backend)->output_batches(), 1u);  // The exchange double-buffers it.
  Result<std::unique_ptr<StagingBatch>> batch = (*backend)->NewBatch();
  ASSERT_TRUE(batch.ok());

  AggregatedBatch out;
  std::vector<const std::uint8_t*> buffers;
  const std::size_t m = static_cast<std::size_t>(plan.layout.padded_epoch_tile_count());
  for (int b = 0; b < 4; ++b) {
    std::vector<std::uint8_t> input((*batch)->capacity());
    std::iota(input.begin(), input.end(), static_cast<std::uint8_t>(b + 1));
    (*batch)->first_epoch = static_cast<core::Index>(b * plan.epochs_per_batch);
    (*batch)->epochs = plan.epochs_per_batch;
    (*batch)->Stage(0, input);
    ASSERT_TRUE((*backend)->Submit(**batch).ok());
    ASSERT_TRUE((*backend)->Complete(out).ok());
    buffers.push_back(out.data.data());

    // Every position holds a stored tile (no tile is all zero), each lying
    // inside the handed-over buffer, none overlapping another.
    ASSERT_EQ(out.sources.size(), out.epochs * m);
    std::vector<std::pair<std::uint64_t, std::uint64_t>> spans;
    for (std::size_t e = 0; e < out.epochs; ++e) {
      for (std::size_t j = 0; j < m; ++j) {
        ASSERT_TRUE(out.Present(e, j));
        const ByteView tile = out.Tile(e, j);
        EXPECT_GT(tile.size(), 0u);
        EXPECT_LE(out.sources[e * m + j] + tile.size(), out.data.size());
        spans.emplace_back(out.sources[e * m + j], out.sources[e * m + j] + tile.size());
      }
    }
    std::sort(spans.begin(), spans.end());
    for (std::size_t i = 1; i < spans.size(); ++i) EXPECT_LE(spans[i - 1].second, spans[i].first);
  }
  // Two buffers, used in turn: the one handed over comes back for the batch
  // after next, already touched.
  EXPECT_NE(buffers[0], buffers[1]);
  EXPECT_EQ(buffers[0], buffers[2]);
  EXPECT_EQ(buffers[1], buffers[3]);
}

TEST(CpuBackendTest, TheEstimateCountsTwoSlotBuffersAndNoGatheredCopy) {
  const StreamPlan plan = SmallPlan();
  const std::uint64_t slots = BatchTiles(plan) * plan.max_encoded_tile_bytes;
  EXPECT_EQ(plan.memory.compressed, kStreamBatchesPerStage * slots);
  EXPECT_LT(plan.memory.aggregated, slots);  // Offsets and flags only.
}

}  // namespace
}  // namespace chunkwise::pipelines::stream
