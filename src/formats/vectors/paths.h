// Paths of a zarr-vectors store: the level-delta segment, chunk keys, cell keys.
//
// Spec: docs/formats/vectors.md, "Tree" (names, `<delta>`). These are
// the only functions that spell a `<delta>` segment ("0", "+1", "-1") or a
// dotted chunk key; everything else asks them. The node names of one format
// version (where each family lives) are in layout.h, beside any later version.
// All functions are pure and thread-safe.
#ifndef CHUNKWISE_FORMATS_VECTORS_PATHS_H_
#define CHUNKWISE_FORMATS_VECTORS_PATHS_H_

#include <array>
#include <compare>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "chunkwise/core/result.h"

namespace chunkwise::formats::vectors {

// chunkwise writes and reads stores of three spatial dimensions (sid_ndim 3).
inline constexpr int kSpatialDims = 3;

// A spatial chunk's integer coordinates, floor(position / chunk_shape); may be negative.
using ChunkCoord = std::array<std::int64_t, kSpatialDims>;

// "0" for 0, "+N" for N > 0, "-N" for N < 0.
std::string FormatDelta(int delta);
// The inverse of FormatDelta; InvalidArgument for anything it does not write
// ("1", "+0", "-0", "+01", text, out of int range).
Result<int> ParseDelta(std::string_view segment);

// "x.y.z", e.g. "0.1.2" or "-1.0.2".
std::string FormatChunkKey(const ChunkCoord& chunk);
// The inverse of FormatChunkKey; InvalidArgument unless exactly three dotted integers.
Result<ChunkCoord> ParseChunkKey(std::string_view key);

// The dotted concatenation of `chunks` (a cross-chunk cell key, 3·L components).
std::string FormatCellKey(std::span<const ChunkCoord> chunks);
// Splits a cell key into `link_width` chunk coordinates; InvalidArgument when
// the arity is not 3·link_width or a component is not an integer.
Result<std::vector<ChunkCoord>> ParseCellKey(std::string_view key, int link_width);

}  // namespace chunkwise::formats::vectors

#endif  // CHUNKWISE_FORMATS_VECTORS_PATHS_H_
