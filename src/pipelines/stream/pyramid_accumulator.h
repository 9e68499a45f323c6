// PyramidAccumulator: the frames of a multiscale stream's coarser levels,
// made from level 0's input as it arrives.
//
// Level k (1..N) is level k-1 reduced by the downsampler's windows
// (core/downsample.h): a window spans factors[0] frames of level k-1, so each
// level holds at most factors[0] frames of the level above it, the "slab" of
// the window it is filling, and nothing when dimension 0 is not
// downsampled except the part of a frame an append split. Whole windows that
// arrive in one append are reduced where they lie, without a copy. Each frame
// a level makes goes to the sink and on to the next level, in order. Finish
// reduces the windows still partial along dimension 0 (fewer frames than the
// factor: the last frames of a stream whose length the factor does not
// divide), level after level, so level k ends with ceil(frames(k-1) /
// factors[0]) frames; a partial frame is dropped (the writer reports it).
//
// Where the downsampler sums frames (core/downsample.h: the mean of 8- and
// 16-bit integers over 2^k elements, the factors dividing the frame), a
// level holds its window's 32-bit sums instead of its frames: each whole
// frame that arrives is added into them where it lies, and only a frame an
// append splits is copied, so that a stream appending one frame at a time
// copies nothing (the copy into the slab cost as much as the mean itself).
//
// Used by one thread; given a pool, large reductions are split over it.
#ifndef CHUNKWISE_PIPELINES_STREAM_PYRAMID_ACCUMULATOR_H_
#define CHUNKWISE_PIPELINES_STREAM_PYRAMID_ACCUMULATOR_H_

#include <cstdint>
#include <functional>
#include <vector>

#include "chunkwise/core/bytes.h"
#include "chunkwise/core/downsample.h"
#include "chunkwise/core/index.h"
#include "chunkwise/core/thread_pool.h"

namespace chunkwise::pipelines::stream {

class PyramidAccumulator {
 public:
  // Takes level `level`'s next whole frames, in order.
  using FrameSink = std::function<Status(std::size_t level, ByteView frames)>;

  // Levels 1..`levels` of frames shaped `frame_shape` (every dimension of
  // level 0 but the first); the downsampler's factors cover every dimension.
  // `pool` may be null and must outlive the accumulator.
  PyramidAccumulator(core::Downsampler downsampler, const core::Shape& frame_shape,
                     std::size_t levels, FrameSink sink, core::ThreadPool* pool = nullptr);

  // The frame shape of each level 0..levels (dimension 0 left out).
  static std::vector<core::Shape> LevelFrameShapes(const core::Downsampler& downsampler,
                                                   const core::Shape& frame_shape,
                                                   std::size_t levels);
  // The bytes an accumulator for these arguments holds: its slabs and buffers.
  static std::uint64_t MemoryBytes(const core::Downsampler& downsampler,
                                   const core::Shape& frame_shape, std::size_t levels);

  // Takes level 0's next bytes, split anywhere.
  Status Add(ByteView bytes);
  // Reduces the partial windows along dimension 0; nothing may follow.
  Status Finish();

  // Bytes of level k-1 that level k (1..levels) holds now.
  std::uint64_t held_bytes(std::size_t level) const {
    const Level& held = levels_[level - 1];
    return held.frames_summed * held.in_frame_bytes + held.held;
  }

 private:
  struct Level {
    std::size_t in_frame_bytes = 0;   // A frame of the level above.
    std::size_t out_frame_bytes = 0;  // A frame of this level.
    core::Shape in_frame;             // The level above's frame shape.
    Bytes slab;                       // The window being filled: factors[0] frames above.
    std::size_t held = 0;             // Bytes of it filled.
    Bytes out;                        // Frames made, before they go on.
    std::size_t out_frames = 0;       // out's room, in frames.
    // Frame sums: the window's sums; slab then holds one split frame.
    bool sums_frames = false;
    std::vector<std::int32_t, DefaultInitAllocator<std::int32_t>> sums;  // Set before read.
    std::size_t frames_summed = 0;  // Frames of the window in `sums`.
  };

  // Level `level` (1-based) takes the next bytes of the level above.
  Status AddTo(std::size_t level, ByteView bytes);
  // Reduces `frames` frames of the level above held in `in` into level `level`'s
  // output and passes them on.
  Status ReduceAndEmit(std::size_t level, ByteView in, core::Index frames);
  void ReduceSplit(ByteView in, const core::Shape& shape, MutableByteView out);
  // Frame sums: level `level` takes the next bytes of the level above.
  Status SumTo(std::size_t level, ByteView bytes);
  // Adds one whole frame of the level above; emits the window once whole.
  Status SumFrame(std::size_t level, ByteView frame);
  // The means of the frames summed, passed on as one frame.
  Status EmitSums(std::size_t level);

  core::Downsampler downsampler_;
  std::vector<Level> levels_;
  FrameSink sink_;
  core::ThreadPool* pool_;
};

}  // namespace chunkwise::pipelines::stream

#endif  // CHUNKWISE_PIPELINES_STREAM_PYRAMID_ACCUMULATOR_H_
