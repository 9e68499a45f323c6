// The CUDA scatter kernel's arithmetic (scatter_geometry.h), run on the host:
// frame-major staging scattered unit by unit must equal the CPU backend's
// tile-major staging, over every shape of the stream writer's tests.
#include "pipelines/stream/scatter_geometry.h"

#include <gtest/gtest.h>

#include <cstring>

#include "pipelines/stream/frame_major_batch.h"
#include "pipelines/stream/tile_major_batch.h"
#include "unit/pipelines/stream_test_cases.h"

namespace chunkwise::pipelines::stream {
namespace {

using testing_cases::Case;

// What the GPU does after its copy: every unit to TilePoolOffset, over a
// pool that starts as fill value.
Bytes ScatterLikeTheKernel(const StreamPlan& plan, ByteView frames) {
  const ScatterGeometry g = MakeScatterGeometry(plan);
  const std::vector<std::uint64_t> rows = FrameRowOffsets(plan);
  const std::uint32_t unit = ScatterUnitBytes(g);
  Bytes tiles(plan.epochs_per_batch * g.epoch_bytes);
  FillWithValue(tiles, plan.tile_spec);
  for (std::uint64_t at = 0; at < frames.size(); at += unit) {
    std::memcpy(tiles.data() + TilePoolOffset(g, rows.data(), at), frames.data() + at, unit);
  }
  return tiles;
}

class ScatterGeometryTest : public ::testing::TestWithParam<Case> {};

TEST_P(ScatterGeometryTest, KernelArithmeticEqualsTheCpuStaging) {
  const Case& c = GetParam();
  StreamConfig config = testing_cases::ConfigOf(c);
  config.epochs_per_batch = 1;
  if (c.dims[0].tiles_per_shard % 2 == 0) config.epochs_per_batch = 2;
  const Result<StreamPlan> plan = PlanStream(config);
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  const ScatterGeometry g = MakeScatterGeometry(*plan);
  const std::uint32_t unit = ScatterUnitBytes(g);
  EXPECT_EQ(g.segment_bytes % unit, 0u);
  EXPECT_EQ(g.row_bytes % unit, 0u);

  TileMajorBatch cpu(*plan);
  Bytes pinned_stand_in(cpu.capacity());
  FrameMajorBatch gpu(*plan, pinned_stand_in, nullptr);
  ASSERT_EQ(gpu.capacity(), cpu.capacity());
  // A batch whose last epoch is partial: its missing frames are fill value.
  const std::size_t frames = cpu.capacity() / plan->frame_bytes - 1;
  const Bytes input = testing_cases::MakeInput(frames * plan->frame_bytes, 11);
  for (std::size_t at = 0; at < input.size(); at += 333) {
    const ByteView piece =
        ByteView(input).subspan(at, std::min<std::size_t>(333, input.size() - at));
    cpu.Stage(at, piece);
    gpu.Stage(at, piece);
  }
  const auto all = static_cast<core::Index>(cpu.capacity() / plan->frame_bytes);
  cpu.FillFrames(static_cast<core::Index>(frames), all);
  gpu.FillFrames(static_cast<core::Index>(frames), all);
  const Bytes scattered = ScatterLikeTheKernel(*plan, gpu.Frames(static_cast<std::size_t>(all)));
  ASSERT_EQ(scattered.size(), cpu.tiles().size());
  EXPECT_TRUE(std::equal(scattered.begin(), scattered.end(), cpu.tiles().begin()));
}

INSTANTIATE_TEST_SUITE_P(Shapes, ScatterGeometryTest, ::testing::ValuesIn(testing_cases::Cases()),
                         [](const auto& info) { return info.param.name; });

TEST(ScatterGeometryTest, UnitIsTheWidestThatKeepsSegmentsWhole) {
  ScatterGeometry g{};
  g.segment_bytes = 256;
  g.row_bytes = 4096;
  EXPECT_EQ(ScatterUnitBytes(g), 16u);
  g.row_bytes = 2 * 1000;  // 1000 uint16: the last segment of a row is 2·(1000 % 128) bytes.
  EXPECT_EQ(ScatterUnitBytes(g), 16u);
  g.row_bytes = 2 * 1001;
  EXPECT_EQ(ScatterUnitBytes(g), 2u);
  g.segment_bytes = 3;
  EXPECT_EQ(ScatterUnitBytes(g), 1u);
}

}  // namespace
}  // namespace chunkwise::pipelines::stream
