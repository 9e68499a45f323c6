// Region: an axis-aligned box (hyperslab) of an n-d index space.
//
// A Region holds, per dimension, a half-open interval [start, stop). It is what
// region reads and writes address, what a chunk covers (core/chunk_grid.h), and
// what the CLI's --region text parses to. A Region with a zero-width dimension
// is empty; a rank-0 Region is the single element of a 0-d array. Regions are
// plain values, safe to copy and share between threads.
// Spec: docs/formats/zarr.md, "Chunk grid and chunk keys" (chunks cover boxes of the grid).
#ifndef CHUNKWISE_CORE_REGION_H_
#define CHUNKWISE_CORE_REGION_H_

#include <iosfwd>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "chunkwise/core/index.h"
#include "chunkwise/core/result.h"

namespace chunkwise::core {

class Region {
 public:
  // The rank-0 region: one element, no dimensions.
  Region() = default;
  // REQUIRES: start.size() == stop.size(); start[d] <= stop[d].
  Region(Coord start, Coord stop);

  // [0, shape[d]) in every dimension. REQUIRES: shape[d] >= 0.
  static Region Full(std::span<const Index> shape);
  // [origin[d], origin[d] + shape[d]). REQUIRES: equal sizes, shape[d] >= 0,
  // and no overflow.
  static Region FromOriginAndShape(std::span<const Index> origin, std::span<const Index> shape);

  int rank() const { return static_cast<int>(start_.size()); }
  const Coord& start() const { return start_; }
  const Coord& stop() const { return stop_; }
  // stop[d] - start[d] per dimension.
  Shape shape() const;
  // The product of shape(); 1 for rank 0.
  // REQUIRES: the product fits in an Index (true for any region of an array
  // whose NumElements succeeded).
  Index num_elements() const;
  // True when some dimension has zero width. A rank-0 region is not empty.
  bool IsEmpty() const;

  // True when start[d] <= coord[d] < stop[d] for all d. REQUIRES: equal rank.
  bool Contains(std::span<const Index> coord) const;
  // True when `other` lies inside this region; an empty `other` always does.
  // REQUIRES: equal rank.
  bool Covers(const Region& other) const;
  // The common part of both regions, or nullopt when it has no elements.
  // REQUIRES: equal rank.
  std::optional<Region> Intersect(const Region& other) const;
  // This region moved by +delta. REQUIRES: delta.size() == rank(), no overflow.
  Region Translate(std::span<const Index> delta) const;
  // This region in coordinates relative to `origin` (moved by -origin), e.g. a
  // chunk-local box from an array box and the chunk's origin.
  // REQUIRES: origin.size() == rank(), no overflow.
  Region RelativeTo(std::span<const Index> origin) const;

  // "0:10,5:7"; "" for rank 0. ParseRegion reads it back.
  std::string ToString() const;

  bool operator==(const Region&) const = default;

 private:
  Coord start_;
  Coord stop_;
};

// Writes ToString() in brackets, e.g. "[0:10,5:7]", for test failure messages.
std::ostream& operator<<(std::ostream& stream, const Region& region);

// Parses numpy-like slice text against an array of `shape`. Dimensions are
// separated by ','; each is "a:b", "a:", ":b", ":" or a single index "a" (a
// 1-wide slab). Negative bounds count from the end of the dimension; missing
// trailing dimensions are full, and "" is the whole array. Unlike numpy,
// bounds are never clamped: InvalidArgument, naming the dimension and its
// text, when a bound lies outside the dimension, start > stop, a step is given,
// a field is not an integer, there are more fields than dimensions, or `shape`
// has a negative extent.
Result<Region> ParseRegion(std::string_view text, std::span<const Index> shape);

}  // namespace chunkwise::core

#endif  // CHUNKWISE_CORE_REGION_H_
