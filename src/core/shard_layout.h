// ShardLayout: the tile→shard lifting of the streaming shard writer.
//
// The writer cuts an array into tiles (zarr inner chunks) and streams it one
// epoch at a time: an epoch is every tile with the same index t0 along
// dimension 0, and its M = prod_{d>0} tile_count[d] tiles sit in a pool in
// row-major order of (t1..t_{D-1}). Each tile coordinate lifts to a shard
// coordinate s = t / tps and a within-shard coordinate w = t % tps. The
// shard-major permutation P sends pool tile i to position
// ravel((s1..s_{D-1}, w1..w_{D-1}), (shard_count[1..], tps[1..])), grouping
// each shard's tiles contiguously in row-major order of w. When tile_count[d]
// is not a multiple of tps[d] those positions span a padded space of
// M' = prod_{d>0} shard_count[d]·tps[d] > M; the positions no tile reaches are
// holes (tiles beyond the array edge) whose index entries must stay empty.
// This class holds that arithmetic only, with no buffers; it is immutable and
// safe to share between threads.
// Spec: docs/pipelines/stream-writer.md, "Layout arithmetic" (with the corrections
// to the original design: 48 open shards, the padded space, (s, w, n)).
#ifndef CHUNKWISE_CORE_SHARD_LAYOUT_H_
#define CHUNKWISE_CORE_SHARD_LAYOUT_H_

#include <optional>
#include <span>
#include <vector>

#include "chunkwise/core/index.h"
#include "chunkwise/core/result.h"

namespace chunkwise::core {

// One dimension of the writer, in the design's words. size 0 marks an unbounded
// (append) dimension; only dimension 0 may be unbounded.
struct DimensionSpec {
  Index size;
  Index tile_size;
  Index tiles_per_shard;
};

// Where an element lands in the epoch tile pool.
struct TileLocation {
  Index epoch;   // t0.
  Index tile;    // Pool index i in [0, M): row-major over (t1..t_{D-1}).
  Index offset;  // Row-major element offset inside the full (padded) tile.
};

// Where an element lands in the written shards.
struct ShardLocation {
  Coord shard;   // s[d] = t[d] / tps[d], all dimensions.
  Index slot;    // Row-major ravel of w over tps: the shard index entry.
  Index offset;  // Row-major element offset inside the inner chunk.
};

// The scatter's lifted strides for one dimension: element x lands at
// (x / tile_size)·tile_stride + (x % tile_size)·element_stride in the epoch
// pool (in elements). tile_stride is 0 for dimension 0, whose tile index is
// the epoch rather than a pool position.
struct LiftedStride {
  Index tile_size;
  Index tile_stride;
  Index element_stride;
};

class ShardLayout {
 public:
  // InvalidArgument when there are no dimensions, a tile_size or
  // tiles_per_shard is not positive, a size is negative, or a dimension other
  // than 0 has size 0; OutOfRange when a count (M', the pool's elements, the
  // padded array extent) overflows.
  static Result<ShardLayout> Create(std::vector<DimensionSpec> dims);

  int rank() const { return static_cast<int>(dims_.size()); }
  const std::vector<DimensionSpec>& dims() const { return dims_; }
  // True when dimension 0 has size 0 and epochs never end.
  bool unbounded() const { return dims_[0].size == 0; }
  // ceil(size / tile_size) per dimension; entry 0 is 0 when unbounded.
  const Shape& tile_count() const { return tile_count_; }
  // ceil(tile_count / tiles_per_shard) per dimension; entry 0 is 0 when unbounded.
  const Shape& shard_count() const { return shard_count_; }
  const Shape& tile_shape() const { return tile_shape_; }
  const Shape& tiles_per_shard() const { return tiles_per_shard_; }
  // Elements in one full tile.
  Index tile_elements() const { return tile_elements_; }
  // Tiles per shard, all dimensions: the entry count n of a shard index.
  Index tiles_per_shard_total() const { return tiles_per_shard_total_; }
  // Tiles of one shard within one epoch: prod_{d>0} tps[d] ("tpsi").
  Index tiles_per_shard_inner() const { return tiles_per_shard_inner_; }
  // M: tiles in one epoch's pool.
  Index epoch_tile_count() const { return epoch_tile_count_; }
  // M': size of the shard-major position space, holes included; M' >= M.
  Index padded_epoch_tile_count() const { return padded_epoch_tile_count_; }
  // S_inner = prod_{d>0} shard_count[d]: shards open at once (= M' / tpsi).
  Index active_shard_count() const { return active_shard_count_; }

  // P[tile]: the shard-major position in [0, M') of pool tile `tile`.
  // REQUIRES: 0 <= tile < M.
  Index ShardMajorPosition(Index tile) const;
  // P as a table of M entries; injective into [0, M').
  std::vector<Index> ShardMajorPermutation() const;
  // The inverse of P: the pool tile at `position`, or nullopt for a hole.
  // REQUIRES: 0 <= position < M'.
  std::optional<Index> TileAtPosition(Index position) const;
  // Which active shard (row-major over shard_count[1..]) owns `position`.
  Index ShardOfPosition(Index position) const { return position / tiles_per_shard_inner_; }
  // The position's row-major within-shard slot among one epoch's tiles.
  Index InnerSlotOfPosition(Index position) const { return position % tiles_per_shard_inner_; }
  // The shard index entry for `position` in `epoch`:
  // (epoch % tps[0])·tpsi + position % tpsi.
  // REQUIRES: epoch >= 0 (and < tile_count[0] unless unbounded), 0 <= position < M'.
  Index IndexSlot(Index epoch, Index position) const;
  // The full shard coordinate of active shard `shard_index` in `epoch`:
  // (epoch / tps[0], unravel(shard_index, shard_count[1..])).
  // REQUIRES: epoch as for IndexSlot, 0 <= shard_index < S_inner.
  Coord ShardCoord(Index epoch, Index shard_index) const;

  // The scatter's per-dimension lifted strides.
  const std::vector<LiftedStride>& scatter_strides() const { return scatter_strides_; }
  // Where element `coord` lands in its epoch's pool.
  // REQUIRES: coord inside the array (any coord[0] >= 0 when unbounded).
  TileLocation LocateElement(std::span<const Index> coord) const;
  // tile·tile_elements + offset of LocateElement, by the lifted strides.
  // REQUIRES: as for LocateElement.
  Index EpochPoolOffset(std::span<const Index> coord) const;
  // Where element `coord` lands in the shards, composed as the writer does it:
  // LocateElement, then P, then ShardCoord and IndexSlot of that position.
  // REQUIRES: as for LocateElement.
  ShardLocation LocateInShard(std::span<const Index> coord) const;

 private:
  ShardLayout() = default;
  // Fill the counts, then the strides, from dims_ (already validated).
  Status DeriveCounts();
  void DeriveStrides();
  void CheckEpoch(Index epoch) const;

  std::vector<DimensionSpec> dims_;
  Shape tile_count_;
  Shape shard_count_;
  Shape tile_shape_;
  Shape tiles_per_shard_;
  Shape pool_strides_;             // CStrides(tile_count[1..]) in tiles, entry 0 unused.
  Shape position_shard_strides_;   // Stride of s[d] in the position space.
  Shape position_within_strides_;  // Stride of w[d] in the position space.
  std::vector<LiftedStride> scatter_strides_;
  Index tile_elements_ = 0;
  Index tiles_per_shard_total_ = 0;
  Index tiles_per_shard_inner_ = 0;
  Index epoch_tile_count_ = 0;
  Index padded_epoch_tile_count_ = 0;
  Index active_shard_count_ = 0;
};

}  // namespace chunkwise::core

#endif  // CHUNKWISE_CORE_SHARD_LAYOUT_H_
