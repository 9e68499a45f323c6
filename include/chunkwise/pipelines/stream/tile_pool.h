// FrameBatch: the staging buffer of the streaming writer, and TileScatter:
// how staged frames land in tiles.
//
// Design: ../shared/seeds/sharding-layer.md ("Tile-to-Shard Lifting"). The
// input (frames in row-major order, split anywhere) is copied as it comes
// into a FrameBatch holding E tile epochs of frames, the host staging buffer
// the seed's H2D copy reads. A backend then scatters each tile epoch into its
// tile pool, M tiles of the epoch in row-major order of (t1..t_{D-1}), each
// tile row-major inside: element x of dimension d lands at
// (x / tile)·tile_stride + (x % tile)·element_stride, the layout's lifted
// strides. TileScatter builds one tile of that pool at a time, so a CPU
// backend can compress each tile while it is still in cache. Parts of a tile
// outside the array, and frames a last partial epoch lacks, hold the fill
// value.
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

class FrameBatch {
 public:
  // Room for plan.epochs_per_batch tile epochs of frames.
  explicit FrameBatch(const StreamPlan& plan);

  std::uint8_t* data() { return frames_.data(); }
  const std::uint8_t* data() const { return frames_.data(); }
  std::size_t capacity() const { return frames_.size(); }

  // Set by the writer: the first tile epoch (t0) held, the whole frames
  // held (later ones read as fill), and the tile epochs to compress.
  core::Index first_epoch = 0;
  core::Index frames = 0;
  std::size_t epochs = 0;

 private:
  Bytes frames_;
};

class TileScatter {
 public:
  explicit TileScatter(const StreamPlan& plan);

  // Fills `tile` (one tile's bytes) with tile `tile` of the pool of epoch
  // `epoch` of `batch`, placed by the lifted strides.
  void BuildTile(const FrameBatch& batch, std::size_t epoch, std::size_t tile,
                 MutableByteView out) const;

 private:
  core::Shape staged_shape_;  // (frames in a batch, size1, ..., size_{D-1}).
  core::Shape tile_shape_;
  core::Shape tile_grid_;  // tile_count[1..]: the pool's row-major grid.
  codec::ChunkSpec spec_;
};

}  // namespace chunkwise::pipelines::stream

#endif  // CHUNKWISE_PIPELINES_STREAM_TILE_POOL_H_
