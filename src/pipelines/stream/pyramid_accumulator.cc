#include "pipelines/stream/pyramid_accumulator.h"

#include <algorithm>
#include <cstring>

namespace chunkwise::pipelines::stream {
namespace {

using core::Index;

// Frames made at once when whole windows arrive together, up to this size:
// enough for the next level's writer to stage them in parallel.
constexpr std::size_t kOutputBytes = std::size_t{4} << 20;
// Reductions of at least this much input are split over the pool.
constexpr std::size_t kParallelInputBytes = std::size_t{1} << 20;

std::size_t FrameBytes(const core::Shape& frame, std::size_t item) {
  std::size_t bytes = item;
  for (Index extent : frame) bytes *= static_cast<std::size_t>(extent);
  return bytes;
}

std::size_t OutputFrames(std::size_t out_frame_bytes) {
  return std::max<std::size_t>(1, kOutputBytes / out_frame_bytes);
}

core::Shape WithFrames(Index frames, const core::Shape& frame) {
  core::Shape shape{frames};
  shape.insert(shape.end(), frame.begin(), frame.end());
  return shape;
}

}  // namespace

std::vector<core::Shape> PyramidAccumulator::LevelFrameShapes(const core::Downsampler& downsampler,
                                                              const core::Shape& frame_shape,
                                                              std::size_t levels) {
  std::vector<core::Shape> shapes{frame_shape};
  for (std::size_t k = 1; k <= levels; ++k) {
    core::Shape next = downsampler.OutputShape(WithFrames(1, shapes.back()));
    next.erase(next.begin());
    shapes.push_back(std::move(next));
  }
  return shapes;
}

std::uint64_t PyramidAccumulator::MemoryBytes(const core::Downsampler& downsampler,
                                              const core::Shape& frame_shape, std::size_t levels) {
  const std::vector<core::Shape> shapes = LevelFrameShapes(downsampler, frame_shape, levels);
  const std::size_t item = downsampler.type().size();
  const auto window = static_cast<std::uint64_t>(downsampler.factors()[0]);
  std::uint64_t bytes = 0;
  for (std::size_t k = 1; k <= levels; ++k) {
    const std::size_t out_frame = FrameBytes(shapes[k], item);
    bytes += window * FrameBytes(shapes[k - 1], item) + OutputFrames(out_frame) * out_frame;
  }
  return bytes;
}

PyramidAccumulator::PyramidAccumulator(core::Downsampler downsampler,
                                       const core::Shape& frame_shape, std::size_t levels,
                                       FrameSink sink, core::ThreadPool* pool)
    : downsampler_(std::move(downsampler)), sink_(std::move(sink)), pool_(pool) {
  const std::vector<core::Shape> shapes = LevelFrameShapes(downsampler_, frame_shape, levels);
  const std::size_t item = downsampler_.type().size();
  const auto window = static_cast<std::size_t>(downsampler_.factors()[0]);
  levels_.resize(levels);
  for (std::size_t k = 1; k <= levels; ++k) {
    Level& level = levels_[k - 1];
    level.in_frame = shapes[k - 1];
    level.in_frame_bytes = FrameBytes(shapes[k - 1], item);
    level.out_frame_bytes = FrameBytes(shapes[k], item);
    level.sums_frames = window > 1 && downsampler_.SumsFrames(level.in_frame);
    if (level.sums_frames) {
      level.slab.resize(level.in_frame_bytes);
      level.sums.resize(level.out_frame_bytes / item);
    } else {
      level.slab.resize(window * level.in_frame_bytes);
    }
    level.out_frames = OutputFrames(level.out_frame_bytes);
    level.out.resize(level.out_frames * level.out_frame_bytes);
  }
}

Status PyramidAccumulator::Add(ByteView bytes) {
  if (levels_.empty()) return Status::Ok();
  return AddTo(1, bytes);
}

Status PyramidAccumulator::AddTo(std::size_t k, ByteView bytes) {
  Level& level = levels_[k - 1];
  if (level.sums_frames) return SumTo(k, bytes);
  const auto window = static_cast<std::size_t>(downsampler_.factors()[0]);
  const std::size_t window_bytes = window * level.in_frame_bytes;
  while (!bytes.empty()) {
    if (level.held == 0 && bytes.size() >= window_bytes) {
      // Whole windows, reduced where they lie.
      const std::size_t windows = std::min(bytes.size() / window_bytes, level.out_frames);
      CHUNKWISE_RETURN_IF_ERROR(ReduceAndEmit(k, bytes.first(windows * window_bytes),
                                              static_cast<Index>(windows * window)));
      bytes = bytes.subspan(windows * window_bytes);
      continue;
    }
    const std::size_t n = std::min(window_bytes - level.held, bytes.size());
    std::memcpy(level.slab.data() + level.held, bytes.data(), n);
    level.held += n;
    bytes = bytes.subspan(n);
    if (level.held == window_bytes) {
      level.held = 0;
      CHUNKWISE_RETURN_IF_ERROR(ReduceAndEmit(k, level.slab, static_cast<Index>(window)));
    }
  }
  return Status::Ok();
}

Status PyramidAccumulator::ReduceAndEmit(std::size_t k, ByteView in, Index frames) {
  Level& level = levels_[k - 1];
  const core::Shape shape = WithFrames(frames, level.in_frame);
  const Index out_frames = downsampler_.OutputShape(shape)[0];
  const MutableByteView out = MutableByteView(level.out).first(
      static_cast<std::size_t>(out_frames) * level.out_frame_bytes);
  ReduceSplit(in, shape, out);
  CHUNKWISE_RETURN_IF_ERROR(sink_(k, out));
  return k < levels_.size() ? AddTo(k + 1, out) : Status::Ok();
}

void PyramidAccumulator::ReduceSplit(ByteView in, const core::Shape& shape, MutableByteView out) {
  const Index rows = downsampler_.OutputRows(shape);
  const std::size_t pieces =
      pool_ == nullptr || in.size() < kParallelInputBytes
          ? 1
          : std::min<std::size_t>(pool_->num_threads() + 1, static_cast<std::size_t>(rows));
  if (pieces <= 1) return downsampler_.Reduce(in, shape, out);
  const Index per_piece = (rows + static_cast<Index>(pieces) - 1) / static_cast<Index>(pieces);
  (void)pool_->ParallelFor(pieces, [&](std::size_t i) {
    const Index first = static_cast<Index>(i) * per_piece;
    downsampler_.Reduce(in, shape, out, first, std::min(rows, first + per_piece));
    return Status::Ok();
  });
}

Status PyramidAccumulator::SumTo(std::size_t k, ByteView bytes) {
  Level& level = levels_[k - 1];
  const auto window = static_cast<std::size_t>(downsampler_.factors()[0]);
  const std::size_t window_bytes = window * level.in_frame_bytes;
  while (!bytes.empty()) {
    if (level.held == 0 && level.frames_summed == 0 && bytes.size() >= window_bytes) {
      // Whole windows, reduced where they lie.
      const std::size_t windows = std::min(bytes.size() / window_bytes, level.out_frames);
      CHUNKWISE_RETURN_IF_ERROR(ReduceAndEmit(k, bytes.first(windows * window_bytes),
                                              static_cast<Index>(windows * window)));
      bytes = bytes.subspan(windows * window_bytes);
    } else if (level.held == 0 && bytes.size() >= level.in_frame_bytes) {
      CHUNKWISE_RETURN_IF_ERROR(SumFrame(k, bytes.first(level.in_frame_bytes)));
      bytes = bytes.subspan(level.in_frame_bytes);
    } else {  // Part of a frame: kept until the frame is whole.
      const std::size_t n = std::min(level.in_frame_bytes - level.held, bytes.size());
      std::memcpy(level.slab.data() + level.held, bytes.data(), n);
      level.held += n;
      bytes = bytes.subspan(n);
      if (level.held == level.in_frame_bytes) {
        level.held = 0;
        CHUNKWISE_RETURN_IF_ERROR(SumFrame(k, level.slab));
      }
    }
  }
  return Status::Ok();
}

Status PyramidAccumulator::SumFrame(std::size_t k, ByteView frame) {
  Level& level = levels_[k - 1];
  const bool first = level.frames_summed == 0;
  const Index rows = downsampler_.OutputRows(WithFrames(1, level.in_frame));  // A frame's.
  const std::size_t pieces =
      pool_ == nullptr || frame.size() < kParallelInputBytes
          ? 1
          : std::min<std::size_t>(pool_->num_threads() + 1, static_cast<std::size_t>(rows));
  if (pieces <= 1) {
    downsampler_.AddFrameSums(frame, level.in_frame, level.sums, first, 0, rows);
  } else {
    const Index per_piece = (rows + static_cast<Index>(pieces) - 1) / static_cast<Index>(pieces);
    (void)pool_->ParallelFor(pieces, [&](std::size_t i) {
      const Index begin = static_cast<Index>(i) * per_piece;
      downsampler_.AddFrameSums(frame, level.in_frame, level.sums, first, begin,
                                std::min(rows, begin + per_piece));
      return Status::Ok();
    });
  }
  ++level.frames_summed;
  if (level.frames_summed < static_cast<std::size_t>(downsampler_.factors()[0])) {
    return Status::Ok();
  }
  return EmitSums(k);
}

Status PyramidAccumulator::EmitSums(std::size_t k) {
  Level& level = levels_[k - 1];
  const MutableByteView out = MutableByteView(level.out).first(level.out_frame_bytes);
  downsampler_.MeansOfFrameSums(level.sums, static_cast<Index>(level.frames_summed), out);
  level.frames_summed = 0;
  CHUNKWISE_RETURN_IF_ERROR(sink_(k, out));
  return k < levels_.size() ? AddTo(k + 1, out) : Status::Ok();
}

Status PyramidAccumulator::Finish() {
  for (std::size_t k = 1; k <= levels_.size(); ++k) {
    Level& level = levels_[k - 1];
    if (level.sums_frames) {  // The part of a frame held is dropped.
      level.held = 0;
      if (level.frames_summed > 0) CHUNKWISE_RETURN_IF_ERROR(EmitSums(k));
      continue;
    }
    const std::size_t frames = level.held / level.in_frame_bytes;
    level.held = 0;
    if (frames > 0) {
      CHUNKWISE_RETURN_IF_ERROR(ReduceAndEmit(k, level.slab, static_cast<Index>(frames)));
    }
  }
  return Status::Ok();
}

}  // namespace chunkwise::pipelines::stream
