#include "pipelines/stream/pyramid_accumulator.h"

#include <gtest/gtest.h>

#include <random>
#include <vector>

namespace chunkwise::pipelines::stream {
namespace {

using core::DataType;
using core::DataTypeId;
using core::DownsampleMethod;
using core::Index;
using core::Shape;

Bytes RandomBytes(std::size_t n, std::uint32_t seed) {
  std::mt19937 random(seed);
  Bytes bytes(n);
  for (auto& b : bytes) b = static_cast<std::uint8_t>(random() % 7 * 31);
  return bytes;
}

// Levels 1..levels of `frames` frames of `frame` reduced whole, one after another.
std::vector<Bytes> WholeArrayLevels(const core::Downsampler& downsampler, ByteView input,
                                    Index frames, const Shape& frame, std::size_t levels) {
  std::vector<Bytes> out;
  Shape shape{frames};
  shape.insert(shape.end(), frame.begin(), frame.end());
  Bytes current(input.begin(), input.end());
  for (std::size_t k = 1; k <= levels; ++k) {
    const Shape next_shape = downsampler.OutputShape(shape);
    std::size_t bytes = downsampler.type().size();
    for (Index extent : next_shape) bytes *= static_cast<std::size_t>(extent);
    Bytes next(bytes);
    downsampler.Reduce(current, shape, next);
    out.push_back(next);
    current = std::move(next);
    shape = next_shape;
  }
  return out;
}

struct Accumulated {
  std::vector<Bytes> levels;
  std::vector<std::uint64_t> max_held;  // Per level, the most it held after an Add.
};

Accumulated Accumulate(const core::Downsampler& downsampler, ByteView input, const Shape& frame,
                       std::size_t levels, std::uint32_t seed, core::ThreadPool* pool = nullptr,
                       std::size_t max_piece = 5000) {
  Accumulated run;
  run.levels.resize(levels);
  run.max_held.assign(levels, 0);
  PyramidAccumulator accumulator(
      downsampler, frame, levels,
      [&](std::size_t level, ByteView frames) {
        run.levels[level - 1].insert(run.levels[level - 1].end(), frames.begin(), frames.end());
        return Status::Ok();
      },
      pool);
  std::mt19937 random(seed);
  for (std::size_t at = 0; at < input.size();) {
    const std::size_t n = std::min<std::size_t>(input.size() - at, 1 + random() % max_piece);
    EXPECT_TRUE(accumulator.Add(input.subspan(at, n)).ok());
    at += n;
    for (std::size_t k = 1; k <= levels; ++k) {
      run.max_held[k - 1] = std::max(run.max_held[k - 1], accumulator.held_bytes(k));
    }
  }
  EXPECT_TRUE(accumulator.Finish().ok());
  return run;
}

struct Case {
  DataTypeId type;
  DownsampleMethod method;
  Shape factors;
  Index frames;
  Shape frame;
  std::size_t levels;
};

TEST(PyramidAccumulatorTest, LevelsEqualTheWholeArrayReducedLevelByLevel) {
  const std::vector<Case> cases = {
      // Odd extents, a stream the window does not divide (partial last slabs).
      {DataTypeId::kUInt16, DownsampleMethod::kMean, {2, 2, 2}, 23, {37, 29}, 3},
      {DataTypeId::kUInt8, DownsampleMethod::kMode, {2, 2, 2}, 9, {5, 7}, 4},  // Down to 1.
      // Dimension 0 (time) kept: each level frame comes from one frame.
      {DataTypeId::kFloat32, DownsampleMethod::kMax, {1, 2, 2}, 7, {19, 11}, 2},
      {DataTypeId::kInt64, DownsampleMethod::kMin, {2, 1, 2, 2}, 5, {3, 9, 6}, 2},
      {DataTypeId::kUInt32, DownsampleMethod::kMean, {2}, 1001, {}, 5},         // Rank 1.
      {DataTypeId::kUInt16, DownsampleMethod::kMean, {2, 2, 2}, 1, {6, 6}, 2},  // One frame.
      // Frame sums (the factors divide the frames): whole windows, a partial
      // last window, and levels whose frames the factors no longer divide.
      {DataTypeId::kUInt16, DownsampleMethod::kMean, {2, 2, 2}, 23, {36, 28}, 3},
      {DataTypeId::kInt8, DownsampleMethod::kMean, {2, 2, 2}, 9, {6, 4}, 3},
      // A window of 4 frames; the last holds 3 (12 elements: by division).
      {DataTypeId::kInt16, DownsampleMethod::kMean, {4, 2, 2}, 11, {8, 10}, 2},
      {DataTypeId::kUInt8, DownsampleMethod::kMean, {2, 1, 2, 2}, 7, {3, 4, 6}, 2},
  };
  for (const Case& c : cases) {
    const auto downsampler = core::Downsampler::Create(c.method, DataType(c.type), c.factors);
    ASSERT_TRUE(downsampler.ok()) << downsampler.status().ToString();
    std::size_t frame_bytes = DataType(c.type).size();
    for (Index extent : c.frame) frame_bytes *= static_cast<std::size_t>(extent);
    const Bytes input = RandomBytes(frame_bytes * static_cast<std::size_t>(c.frames),
                                    static_cast<std::uint32_t>(c.frames));
    const std::vector<Bytes> expected =
        WholeArrayLevels(*downsampler, input, c.frames, c.frame, c.levels);
    const Accumulated run = Accumulate(*downsampler, input, c.frame, c.levels, 7);
    const std::vector<Shape> shapes =
        PyramidAccumulator::LevelFrameShapes(*downsampler, c.frame, c.levels);
    for (std::size_t k = 1; k <= c.levels; ++k) {
      EXPECT_EQ(run.levels[k - 1], expected[k - 1])
          << "level " << k << " of " << c.frames << " frames [" << core::FormatShape(c.frame)
          << "]";
      // A level holds at most the window it fills: factors[0] frames of the level above.
      std::size_t above = DataType(c.type).size();
      for (Index extent : shapes[k - 1]) above *= static_cast<std::size_t>(extent);
      EXPECT_LT(run.max_held[k - 1], static_cast<std::uint64_t>(c.factors[0]) * above);
    }
  }
}

TEST(PyramidAccumulatorTest, LargeAppendsReducedOnAPoolMatchSmallOnes) {
  const auto downsampler =
      core::Downsampler::Create(DownsampleMethod::kMean, DataType(DataTypeId::kUInt16), {2, 2, 2});
  ASSERT_TRUE(downsampler.ok());
  const Shape frame{257, 515};
  const Index frames = 41;
  const Bytes input = RandomBytes(2 * 257 * 515 * static_cast<std::size_t>(frames), 3);
  core::ThreadPool pool(3);
  const Accumulated small = Accumulate(*downsampler, input, frame, 3, 5);
  const Accumulated large = Accumulate(*downsampler, input, frame, 3, 5, &pool, 16 << 20);
  EXPECT_EQ(large.levels, small.levels);
  EXPECT_EQ(small.levels, WholeArrayLevels(*downsampler, input, frames, frame, 3));
}

TEST(PyramidAccumulatorTest, FrameSumsOnAPoolMatchTheWholeArray) {
  const auto downsampler =
      core::Downsampler::Create(DownsampleMethod::kMean, DataType(DataTypeId::kInt16), {2, 2, 2});
  ASSERT_TRUE(downsampler.ok());
  const Shape frame{256, 512};  // 256 KiB frames: summed on the pool.
  const Index frames = 13;
  Bytes input = RandomBytes(2 * 256 * 512 * static_cast<std::size_t>(frames), 9);
  core::ThreadPool pool(3);
  const std::vector<Bytes> expected = WholeArrayLevels(*downsampler, input, frames, frame, 3);
  // One frame an append, as a camera gives them: summed where it lies.
  std::vector<Bytes> got(3);
  PyramidAccumulator accumulator(
      *downsampler, frame, 3,
      [&](std::size_t level, ByteView frames) {
        got[level - 1].insert(got[level - 1].end(), frames.begin(), frames.end());
        return Status::Ok();
      },
      &pool);
  const std::size_t frame_bytes = 2 * 256 * 512;
  for (std::size_t at = 0; at < input.size(); at += frame_bytes) {
    ASSERT_TRUE(accumulator.Add(ByteView(input).subspan(at, frame_bytes)).ok());
    EXPECT_LT(accumulator.held_bytes(1), 2 * frame_bytes);
  }
  ASSERT_TRUE(accumulator.Finish().ok());
  EXPECT_EQ(got, expected);
  // Pieces of any size: split frames are kept until whole.
  EXPECT_EQ(Accumulate(*downsampler, input, frame, 3, 5, &pool, 300000).levels, expected);
}

TEST(PyramidAccumulatorTest, APartialTrailingFrameIsDropped) {
  const auto downsampler =
      core::Downsampler::Create(DownsampleMethod::kMax, DataType(DataTypeId::kUInt8), {2, 2});
  ASSERT_TRUE(downsampler.ok());
  std::vector<Bytes> got(1);
  PyramidAccumulator accumulator(*downsampler, {4}, 1, [&](std::size_t, ByteView frames) {
    got[0].insert(got[0].end(), frames.begin(), frames.end());
    return Status::Ok();
  });
  const Bytes input = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 99, 99};  // 3 frames and a part.
  ASSERT_TRUE(accumulator.Add(input).ok());
  EXPECT_EQ(accumulator.held_bytes(1), 4u + 2u);  // Frame 2 and the part.
  ASSERT_TRUE(accumulator.Finish().ok());
  EXPECT_EQ(got[0], (Bytes{6, 8, 10, 12}));  // Frames 0-1 by 2x2, then frame 2 alone.
}

TEST(PyramidAccumulatorTest, SinkErrorsStopIt) {
  const auto downsampler =
      core::Downsampler::Create(DownsampleMethod::kMin, DataType(DataTypeId::kUInt8), {1, 2});
  ASSERT_TRUE(downsampler.ok());
  PyramidAccumulator accumulator(*downsampler, {4}, 2, [](std::size_t level, ByteView) {
    return level == 2 ? Status::IOError("level 2 refused") : Status::Ok();
  });
  const Status status = accumulator.Add(Bytes(8, 1));
  EXPECT_EQ(status.code(), StatusCode::kIOError);
  EXPECT_EQ(status.message(), "level 2 refused");
}

TEST(PyramidAccumulatorTest, MemoryCountsEachLevelsSlabAndOutput) {
  const auto downsampler =
      core::Downsampler::Create(DownsampleMethod::kMean, DataType(DataTypeId::kUInt16), {2, 2, 2});
  ASSERT_TRUE(downsampler.ok());
  // Frames 2048 x 2048 (8 MiB): level 1 holds two of them and makes 2 MiB
  // frames (two fit the 4 MiB output); level 2 two 2 MiB frames, eight of 512 KiB.
  const std::uint64_t mib = 1 << 20;
  EXPECT_EQ(PyramidAccumulator::MemoryBytes(*downsampler, {2048, 2048}, 2),
            (16 + 4) * mib + (4 + 4) * mib);
  EXPECT_EQ(PyramidAccumulator::MemoryBytes(*downsampler, {2048, 2048}, 0), 0u);
}

}  // namespace
}  // namespace chunkwise::pipelines::stream
