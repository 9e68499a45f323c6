// TileBatch: the tile pool of a batch of tile epochs, and TileScatter: how
// incoming frames land in it.
//
// Design: ../shared/seeds/sharding-layer.md ("Tile-to-Shard Lifting"). A
// batch holds E consecutive tile epochs of M tiles each; tile (e, i) is
// contiguous at element (e·M + i)·tile_elements and row-major inside. Input
// arrives as rows of the last dimension (single elements for rank 1); the
// scatter places each row by the layout's lifted strides: element x of
// dimension d lands at (x / tile)·tile_stride + (x % tile)·element_stride.
// Tile parts outside the array are never written, so they keep the fill value
// the pool starts with; the frames a last partial epoch lacks are filled at
// close.
#ifndef CHUNKWISE_PIPELINES_STREAM_TILE_POOL_H_
#define CHUNKWISE_PIPELINES_STREAM_TILE_POOL_H_

#include <cstddef>
#include <cstdint>

#include "chunkwise/core/bytes.h"
#include "chunkwise/core/index.h"
#include "chunkwise/pipelines/stream/stream_config.h"

namespace chunkwise::pipelines::stream {

// Writes the spec's fill value (empty: zero) over every element of `out`.
void FillWithValue(MutableByteView out, const codec::ChunkSpec& spec);

class TileBatch {
 public:
  // A pool of plan.epochs_per_batch epochs, every element the fill value.
  explicit TileBatch(const StreamPlan& plan);

  std::size_t epoch_capacity() const { return epochs_; }
  std::size_t tiles_per_epoch() const { return tiles_per_epoch_; }
  std::size_t tile_bytes() const { return tile_bytes_; }
  const std::uint8_t* tile(std::size_t epoch, std::size_t tile) const {
    return pool_.data() + (epoch * tiles_per_epoch_ + tile) * tile_bytes_;
  }
  std::uint8_t* data() { return pool_.data(); }

  // The first tile epoch (t0) held and how many hold data; set by the writer.
  core::Index first_epoch = 0;
  std::size_t epochs_filled = 0;

 private:
  std::size_t epochs_;
  std::size_t tiles_per_epoch_;
  std::size_t tile_bytes_;
  Bytes pool_;
};

class TileScatter {
 public:
  explicit TileScatter(const StreamPlan& plan);

  // Bytes of one input row: the last dimension, or one element for rank 1.
  std::size_t row_bytes() const { return row_bytes_; }
  // Rows in one frame (an index of dimension 0).
  std::size_t rows_per_frame() const { return rows_per_frame_; }
  // Copies `count` whole rows from `source`, the first being row `first_row`
  // of the batch (rows count from the batch's first frame).
  // REQUIRES: the rows lie inside the batch.
  void ScatterRows(const std::uint8_t* source, std::size_t first_row, std::size_t count,
                   TileBatch& batch) const;
  // Writes the fill value over frames [first_frame, first_frame + count) of the batch.
  void FillFrames(std::size_t first_frame, std::size_t count, TileBatch& batch) const;

 private:
  // The pool element where row `row` (unraveled into `coord`) starts.
  core::Index RowStart(std::span<const core::Index> coord) const;
  void ScatterRow(const std::uint8_t* source, core::Index start, TileBatch& batch) const;

  int rank_;
  std::size_t item_bytes_;
  std::size_t row_bytes_;
  std::size_t rows_per_frame_;
  core::Index frame_tile_;      // Tile extent of dimension 0.
  core::Index epoch_elements_;  // M · tile elements.
  core::Shape row_shape_;       // (frames in a batch, size1 .. size_{D-2}).
  std::vector<core::LiftedStride> strides_;
  Bytes fill_row_;
};

}  // namespace chunkwise::pipelines::stream

#endif  // CHUNKWISE_PIPELINES_STREAM_TILE_POOL_H_
