// Neuroglancer compressed Morton codes and the box of chunks one shard spans.
//
// neuroglancer_uint64_sharded_v1 names each chunk of a 3-d grid by a
// "compressed" Morton code: bit i of x, then of y, then of z, for i = 0, 1, …,
// but a dimension drops out once its bits[d] = ceil(log2 grid[d]) bits are
// used, so no code bits are wasted on an uneven grid. With the identity hash a
// shard is then an axis-aligned box of chunks whose extent ShardChunkExtent
// gives. All functions are pure and thread-safe.
// Spec: docs/formats/precomputed.md, "Sharding" (Morton bits, shard extent);
// neuroglancer's src/datasource/precomputed/sharded.md and tensorstore's
// GetShardChunkHierarchy.
#ifndef CHUNKWISE_CORE_MORTON_H_
#define CHUNKWISE_CORE_MORTON_H_

#include <array>
#include <cstdint>

#include "chunkwise/core/index.h"
#include "chunkwise/core/result.h"

namespace chunkwise::core {

using GridCoord3 = std::array<Index, 3>;  // (x, y, z), neuroglancer's order.

// The code bits each dimension contributes, and where they go.
struct MortonBits {
  GridCoord3 grid{};                     // Chunks per dimension.
  std::array<int, 3> bits{};             // grid <= 1 ? 0 : bit_length(grid - 1).
  std::array<std::uint64_t, 3> masks{};  // The code bits holding each dimension.

  // InvalidArgument when an extent is negative or the code needs more than 64
  // bits.
  static Result<MortonBits> FromGrid(const GridCoord3& grid);
  // Bits in a code: bits[0] + bits[1] + bits[2].
  int total_bits() const { return bits[0] + bits[1] + bits[2]; }
};

// Number of bits needed to write `value` (0 for 0).
int BitLength(std::uint64_t value);

// The compressed Morton code of chunk `xyz`.
// REQUIRES: 0 <= xyz[d] < 2^bits[d] (true for every chunk of the grid).
std::uint64_t CompressedMortonCode(const GridCoord3& xyz, const MortonBits& bits);

// The chunk whose compressed Morton code is `code`. Code bits above
// total_bits() are ignored.
GridCoord3 DecodeCompressedMorton(std::uint64_t code, const MortonBits& bits);

// Chunks per dimension of one shard under the identity hash: the
// `preshift_plus_minishard_bits` low code bits are dealt round-robin to x, y, z,
// skipping a dimension whose bits are used up, giving curBit[d]; the extent is
// min(grid[d], 2^curBit[d]). Shards are boxes only when the identity hash is
// used and total_bits() <= preshift + minishard + shard bits; callers check.
// REQUIRES: preshift_plus_minishard_bits >= 0.
GridCoord3 ShardChunkExtent(const MortonBits& bits, int preshift_plus_minishard_bits);

}  // namespace chunkwise::core

#endif  // CHUNKWISE_CORE_MORTON_H_
