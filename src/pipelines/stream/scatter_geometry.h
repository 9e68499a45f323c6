// ScatterGeometry: where each byte of a batch's frame-major input lands in the
// batch's tile pool, as plain arithmetic that the host and the CUDA scatter
// kernel share (core/host_device.h).
//
// Design: docs/pipelines/stream-writer.md, "Layout arithmetic" (epoch pool). A
// batch holds E tile epochs; each epoch is M tiles in row-major order of
// (t1..t_{D-1}), each tile row-major inside, so element x of dimension d
// lands at (x / tile)·tile_stride + (x % tile)·element_stride: the lifted
// strides. Along the last dimension a frame's row breaks into segments of one
// tile row each, contiguous in both layouts, so the arithmetic is done once
// per row (a table of where each row of frame 0 starts) and once per segment.
#ifndef CHUNKWISE_PIPELINES_STREAM_SCATTER_GEOMETRY_H_
#define CHUNKWISE_PIPELINES_STREAM_SCATTER_GEOMETRY_H_

#include <cstdint>
#include <vector>

#include "core/host_device.h"

namespace chunkwise::pipelines::stream {

struct StreamPlan;

struct ScatterGeometry {
  std::uint64_t frame_bytes;       // One index of dimension 0.
  std::uint64_t row_bytes;         // One row of a frame: its last dimension.
  std::uint64_t segment_bytes;     // The part of a row inside one tile.
  std::uint64_t tile_bytes;        // Also the step from a segment to the next.
  std::uint64_t tile_frame_bytes;  // One frame's part of a tile.
  std::uint64_t epoch_bytes;       // M tiles.
  std::uint64_t tile0;             // Frames per tile epoch.
};

// The tile-pool offset of input byte `byte` of a batch (frame-major, from
// the batch's first frame). `row_offsets[r]` is where row r of frame 0
// starts: FrameRowOffsets.
CHUNKWISE_HOST_DEVICE inline std::uint64_t TilePoolOffset(const ScatterGeometry& g,
                                                          const std::uint64_t* row_offsets,
                                                          std::uint64_t byte) {
  const std::uint64_t frame = byte / g.frame_bytes;
  const std::uint64_t in_frame = byte % g.frame_bytes;
  const std::uint64_t in_row = in_frame % g.row_bytes;
  return (frame / g.tile0) * g.epoch_bytes + (frame % g.tile0) * g.tile_frame_bytes +
         row_offsets[in_frame / g.row_bytes] + (in_row / g.segment_bytes) * g.tile_bytes +
         in_row % g.segment_bytes;
}

ScatterGeometry MakeScatterGeometry(const StreamPlan& plan);

// Where each row of a frame (a position in dimensions 1..D-2) starts in an
// epoch's tiles, for frame 0 of the epoch and its first segment.
std::vector<std::uint64_t> FrameRowOffsets(const StreamPlan& plan);

// The widest power of two up to 16 bytes that divides every segment and row,
// so that a scatter moving units of it never splits one across tiles.
std::uint32_t ScatterUnitBytes(const ScatterGeometry& g);

}  // namespace chunkwise::pipelines::stream

#endif  // CHUNKWISE_PIPELINES_STREAM_SCATTER_GEOMETRY_H_
