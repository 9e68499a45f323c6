// Index, Shape and Coord: the integer vocabulary of n-d grid math.
//
// Every extent, coordinate and element count in chunkwise is a signed 64-bit
// Index, so differences and negative (from-the-end) indices need no casts.
// Shapes and coordinates are plain vectors ordered slowest to fastest (C order,
// zarr's dimension order). Products of extents are overflow-checked once, where
// a shape enters the library; code below that boundary may then multiply
// freely. Spec: docs/formats/zarr.md, "Chunk grid and chunk keys" (regular grid).
#ifndef CHUNKWISE_CORE_INDEX_H_
#define CHUNKWISE_CORE_INDEX_H_

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "chunkwise/core/result.h"

namespace chunkwise::core {

using Index = std::int64_t;
using Shape = std::vector<Index>;
using Coord = std::vector<Index>;

// a * b, or nullopt when the product does not fit in an Index.
inline std::optional<Index> CheckedMultiply(Index a, Index b) {
  Index product;
  if (__builtin_mul_overflow(a, b, &product)) return std::nullopt;
  return product;
}

// a + b, or nullopt when the sum does not fit in an Index.
inline std::optional<Index> CheckedAdd(Index a, Index b) {
  Index sum;
  if (__builtin_add_overflow(a, b, &sum)) return std::nullopt;
  return sum;
}

// ceil(a / b) without the overflow of (a + b - 1) / b.
// REQUIRES: a >= 0, b > 0.
inline Index CeilDiv(Index a, Index b) { return a / b + (a % b != 0 ? 1 : 0); }

// The number of elements of `shape` (1 for rank 0). InvalidArgument when an
// extent is negative, OutOfRange when the product overflows an Index.
Result<Index> NumElements(std::span<const Index> shape);

// "2048,2048" (decimal, comma-separated, no spaces); "" for rank 0.
std::string FormatShape(std::span<const Index> shape);

// `text` without leading and trailing white space (the parsers accept " 1, 2 ").
std::string_view TrimSpaces(std::string_view text);

// Parses a comma-separated list of non-negative decimal integers such as
// "0,2048,2048" (spaces around each number are allowed), as the CLI's --shape,
// --chunk and --offset take them. InvalidArgument naming the dimension and the
// text when the text is empty, a field is not a number, or a number is negative
// or does not fit in an Index.
Result<Shape> ParseShape(std::string_view text);

// Parses one optionally signed decimal integer ("-3", "+7", "12"), nothing
// else; nullopt on any other text or on overflow.
std::optional<Index> ParseIndex(std::string_view text);

// Advances `coord` to the next coordinate of the box [start, stop) in C order
// (last dimension fastest). Returns false, leaving `coord` at `start`, once it
// wraps past the last coordinate. Rank 0 boxes have one coordinate, so this
// returns false at once.
// REQUIRES: equal sizes; start[d] <= coord[d] < stop[d].
inline bool AdvanceOdometer(std::span<Index> coord, std::span<const Index> start,
                            std::span<const Index> stop) {
  for (std::size_t d = coord.size(); d-- > 0;) {
    if (++coord[d] < stop[d]) return true;
    coord[d] = start[d];
  }
  return false;
}

}  // namespace chunkwise::core

#endif  // CHUNKWISE_CORE_INDEX_H_
