// Row-major (C order) ravel/unravel and strided copies between n-d buffers.
//
// Every buffer chunkwise hands between layers is a dense C-order array: the
// last dimension is contiguous. Ravel/Unravel convert between a coordinate
// and its flat index. CopyStridedRegion moves an n-d box of elements between
// two such buffers of different shapes, the step under every region read and
// write, every edge-chunk pad and every scatter into tiles; FillStridedRegion
// writes one element value over a box (fill_value padding).
// Spec: docs/formats/zarr.md, "Chunk grid and chunk keys" (C order, edge chunks at
// full chunk_shape) and docs/formats/zarr-shard-index.md, "Layout" (index entries in
// C order of the inner coordinate).
#ifndef CHUNKWISE_CORE_RAVEL_H_
#define CHUNKWISE_CORE_RAVEL_H_

#include <cstddef>
#include <cstdint>
#include <span>

#include "chunkwise/core/index.h"

namespace chunkwise::core {

// The C-order strides of `shape` in elements: strides[D-1] = 1 and
// strides[d] = strides[d+1] * shape[d+1]. REQUIRES: the product fits.
Shape CStrides(std::span<const Index> shape);

// The flat C-order index of `coord` in `shape`.
// REQUIRES: equal sizes; 0 <= coord[d] < shape[d].
Index Ravel(std::span<const Index> coord, std::span<const Index> shape);

// The coordinate whose flat C-order index in `shape` is `index`.
// REQUIRES: 0 <= index < NumElements(shape).
Coord Unravel(Index index, std::span<const Index> shape);
// As above, writing into `coord` without allocating.
// REQUIRES: coord.size() == shape.size().
void UnravelInto(Index index, std::span<const Index> shape, std::span<Index> coord);

// A dense C-order buffer of `shape` and a box origin inside it, the source of a
// strided copy. The buffer is borrowed, never owned.
struct StridedSource {
  const void* data;
  std::span<const Index> shape;
  std::span<const Index> origin;
};

// The same for the destination of a strided copy or fill.
struct StridedDestination {
  void* data;
  std::span<const Index> shape;
  std::span<const Index> origin;
  // Runs of kMinStreamedRunBytes or more are written with non-temporal
  // stores (streamed_copy.h).
  bool streaming = false;
};

// Copies the box of `extent` elements at source.origin in the source buffer to
// the box at destination.origin in the destination buffer, element_size bytes
// per element. Each maximal run that is contiguous in both buffers is one
// memcpy (or one streamed copy), so copying a whole array or whole rows costs
// one call.
// REQUIRES: all spans have the same size; origin[d] + extent[d] <= shape[d] in
// both buffers; the buffers do not overlap. Aborts (CHUNKWISE_CHECK) on a box
// outside either buffer.
void CopyStridedRegion(const StridedSource& source, const StridedDestination& destination,
                       std::span<const Index> extent, std::size_t element_size);

// Writes `element` (one element's bytes, element.size() bytes per element) to
// every element of the box of `extent` at destination.origin.
// REQUIRES: as for CopyStridedRegion; element is not empty.
void FillStridedRegion(const StridedDestination& destination, std::span<const Index> extent,
                       std::span<const std::uint8_t> element);

}  // namespace chunkwise::core

#endif  // CHUNKWISE_CORE_RAVEL_H_
