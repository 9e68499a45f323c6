// RegularChunkGrid: zarr's `regular` chunk grid, the map between array
// elements and the chunks that store them.
//
// Chunk c covers elements [c[d]·chunk_shape[d], (c[d]+1)·chunk_shape[d]) in
// each dimension. The grid extent is ceil(shape[d] / chunk_shape[d]), so the
// last chunk of a dimension may reach past the array: it is still stored at the
// full chunk_shape, padded with fill_value. The grid answers which chunks a
// region touches and, for each, where the overlap lies in array, chunk-local
// and region-local coordinates: the three boxes a region read or write hands
// to CopyStridedRegion (core/ravel.h). The same grid serves shards (outer
// chunks) and the inner chunks of a shard. Immutable once created, so safe to
// share between threads.
// Spec: docs/formats/zarr.md, "Chunk grid and chunk keys".
#ifndef CHUNKWISE_CORE_CHUNK_GRID_H_
#define CHUNKWISE_CORE_CHUNK_GRID_H_

#include <functional>
#include <optional>
#include <span>
#include <utility>
#include <vector>

#include "chunkwise/core/index.h"
#include "chunkwise/core/region.h"
#include "chunkwise/core/result.h"

namespace chunkwise::core {

// Where a region meets one chunk.
struct ChunkOverlap {
  Coord chunk;          // The chunk's grid coordinate.
  Region array;         // The overlap in array coordinates.
  Region chunk_local;   // The same box relative to the chunk's origin.
  Region region_local;  // The same box relative to the region's start.
};

class RegularChunkGrid {
 public:
  // InvalidArgument when the ranks differ, an array extent is negative or a
  // chunk extent is not positive; OutOfRange when the chunk count or the
  // padded extent (grid_shape·chunk_shape) overflows. Zero array extents are
  // allowed and give an empty grid.
  static Result<RegularChunkGrid> Create(Shape array_shape, Shape chunk_shape);

  int rank() const { return static_cast<int>(array_shape_.size()); }
  const Shape& array_shape() const { return array_shape_; }
  const Shape& chunk_shape() const { return chunk_shape_; }
  // ceil(array_shape[d] / chunk_shape[d]).
  const Shape& grid_shape() const { return grid_shape_; }
  // The product of grid_shape(); 0 for an array with a zero extent.
  Index num_chunks() const { return num_chunks_; }

  // True when 0 <= chunk[d] < grid_shape[d]. REQUIRES: chunk.size() == rank().
  bool ContainsChunk(std::span<const Index> chunk) const;
  // chunk[d]·chunk_shape[d]. REQUIRES: ContainsChunk(chunk).
  Coord ChunkOrigin(std::span<const Index> chunk) const;
  // The chunk's elements inside the array (edge chunks clipped).
  // REQUIRES: ContainsChunk(chunk).
  Region ChunkRegion(std::span<const Index> chunk) const;
  // The chunk's full box, reaching past the array at the edge, as it is encoded.
  // REQUIRES: ContainsChunk(chunk).
  Region UnclippedChunkRegion(std::span<const Index> chunk) const;
  // The chunk holding element `coord`: coord[d] / chunk_shape[d].
  // REQUIRES: coord inside the array.
  Coord ChunkCoordOf(std::span<const Index> coord) const;

  // The box of grid coordinates of the chunks that `region` touches; empty
  // when `region` is. REQUIRES: region inside the array.
  Region ChunkRangeFor(const Region& region) const;
  // The grid coordinates of the chunks `region` touches, in C order.
  // REQUIRES: region inside the array.
  std::vector<Coord> ChunksIntersecting(const Region& region) const;
  // Where `region` meets `chunk`, or nullopt when they share no element.
  // REQUIRES: region inside the array, ContainsChunk(chunk).
  std::optional<ChunkOverlap> Overlap(std::span<const Index> chunk, const Region& region) const;
  // Calls `visit` with the overlap of every chunk `region` touches, in C order
  // of the chunk coordinate, and stops at and returns the first error it
  // returns. REQUIRES: region inside the array.
  Status ForEachChunkIn(const Region& region,
                        const std::function<Status(const ChunkOverlap&)>& visit) const;

 private:
  RegularChunkGrid(Shape array_shape, Shape chunk_shape, Shape grid_shape, Index num_chunks)
      : array_shape_(std::move(array_shape)),
        chunk_shape_(std::move(chunk_shape)),
        grid_shape_(std::move(grid_shape)),
        num_chunks_(num_chunks) {}

  void CheckInArray(const Region& region) const;

  Shape array_shape_;
  Shape chunk_shape_;
  Shape grid_shape_;
  Index num_chunks_;
};

}  // namespace chunkwise::core

#endif  // CHUNKWISE_CORE_CHUNK_GRID_H_
