// FrameBatch: the streaming writer's tile pool for one batch of tile epochs,
// into which the input is scattered as it arrives.
//
// Design: ../shared/seeds/sharding-layer.md ("Tile-to-Shard Lifting"). The
// input is frames (one index of dimension 0) in row-major order, split
// anywhere. A batch holds E tile epochs; each epoch is M tiles in row-major
// order of (t1..t_{D-1}), each tile row-major inside, so element x of
// dimension d lands at (x / tile)·tile_stride + (x % tile)·element_stride,
// the layout's lifted strides. Along the last dimension a frame's row breaks
// into segments of one tile row each, so staging costs one memcpy per segment
// and the tiles are ready to compress in place. (The seed stages frames and
// scatters them in a second pass, as a GPU must after its H2D copy; on a CPU
// that pass is a second copy of the whole input.)
//
// Parts of a tile outside the array hold the fill value from construction on,
// since staging never writes there; frames a last partial batch lacks are set
// to the fill value by FillFrames.
#ifndef CHUNKWISE_PIPELINES_STREAM_TILE_POOL_H_
#define CHUNKWISE_PIPELINES_STREAM_TILE_POOL_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "chunkwise/core/bytes.h"
#include "chunkwise/core/index.h"
#include "chunkwise/pipelines/stream/stream_config.h"

namespace chunkwise::pipelines::stream {

// Writes the spec's fill value (empty: zero) over every element of `out`.
void FillWithValue(MutableByteView out, const codec::ChunkSpec& spec);

class FrameBatch {
 public:
  // Room for plan.epochs_per_batch tile epochs.
  explicit FrameBatch(const StreamPlan& plan);

  // The input bytes a full batch holds: E·tile[0] frames.
  std::size_t capacity() const { return capacity_; }
  // Scatters `bytes`, this batch's input from byte `offset` on, into the tiles.
  void Stage(std::size_t offset, ByteView bytes);
  // Sets frames [first, last) of the batch to the fill value.
  void FillFrames(core::Index first, core::Index last);
  // Tile `tile` (row-major in the epoch's tile grid) of epoch `epoch`.
  ByteView Tile(std::size_t epoch, std::size_t tile) const {
    return {tiles_.data() + epoch * epoch_bytes_ + tile * tile_bytes_, tile_bytes_};
  }

  // Set by the writer: the first tile epoch (t0) held and the tile epochs to
  // compress.
  core::Index first_epoch = 0;
  std::size_t epochs = 0;

 private:
  std::size_t StageRowPart(std::size_t frame, std::size_t row, std::size_t in_row, ByteView bytes);

  std::size_t frame_bytes_;
  std::size_t row_bytes_;         // One row of a frame: its last dimension.
  std::size_t segment_bytes_;     // The part of a row inside one tile.
  std::size_t tile_bytes_;        // Also the step from a segment to the next.
  std::size_t tile_frame_bytes_;  // One frame's part of a tile.
  std::size_t epoch_bytes_;
  std::size_t tile0_;
  std::size_t capacity_;
  // Where row r of frame 0 starts in the tiles: its first segment's place.
  std::vector<std::size_t> row_offsets_;
  Bytes fill_row_;
  Bytes tiles_;
};

}  // namespace chunkwise::pipelines::stream

#endif  // CHUNKWISE_PIPELINES_STREAM_TILE_POOL_H_
