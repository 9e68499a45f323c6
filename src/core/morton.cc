#include "chunkwise/core/morton.h"

#include <algorithm>
#include <bit>
#include <string>

#include "chunkwise/core/check.h"

namespace chunkwise::core {
namespace {

// Scatters the low bits of `value` onto the set bits of `mask`, lowest first
// (a portable BMI2 pdep).
std::uint64_t DepositBits(std::uint64_t value, std::uint64_t mask) {
  std::uint64_t out = 0;
  for (std::uint64_t bit = 1; mask != 0; bit <<= 1) {
    const std::uint64_t lowest = mask & (~mask + 1);
    if (value & bit) out |= lowest;
    mask ^= lowest;
  }
  return out;
}

// Gathers the bits of `code` at the set bits of `mask` into the low bits of
// the result (a portable BMI2 pext).
std::uint64_t ExtractBits(std::uint64_t code, std::uint64_t mask) {
  std::uint64_t out = 0;
  for (std::uint64_t bit = 1; mask != 0; bit <<= 1) {
    const std::uint64_t lowest = mask & (~mask + 1);
    if (code & lowest) out |= bit;
    mask ^= lowest;
  }
  return out;
}

}  // namespace

int BitLength(std::uint64_t value) { return 64 - std::countl_zero(value); }

Result<MortonBits> MortonBits::FromGrid(const GridCoord3& grid) {
  MortonBits result;
  result.grid = grid;
  for (int d = 0; d < 3; ++d) {
    if (grid[d] < 0) {
      return Status::InvalidArgument("Morton grid " + FormatShape(grid) + ": dimension " +
                                     std::to_string(d) + " is negative");
    }
    result.bits[d] = grid[d] <= 1 ? 0 : BitLength(static_cast<std::uint64_t>(grid[d] - 1));
  }
  if (result.total_bits() > 64) {
    return Status::InvalidArgument("Morton grid " + FormatShape(grid) + " needs " +
                                   std::to_string(result.total_bits()) + " code bits, over 64");
  }
  // Walk the code bits in the spec's order once, recording which dimension
  // owns each; encoding and decoding then work one dimension at a time.
  const int max_bits = std::max({result.bits[0], result.bits[1], result.bits[2]});
  int next = 0;
  for (int i = 0; i < max_bits; ++i) {
    for (int d = 0; d < 3; ++d) {
      if (i < result.bits[d]) result.masks[d] |= std::uint64_t{1} << next++;
    }
  }
  return result;
}

std::uint64_t CompressedMortonCode(const GridCoord3& xyz, const MortonBits& bits) {
  std::uint64_t code = 0;
  for (int d = 0; d < 3; ++d) {
    CHUNKWISE_CHECK(xyz[d] >= 0 && BitLength(static_cast<std::uint64_t>(xyz[d])) <= bits.bits[d]);
    code |= DepositBits(static_cast<std::uint64_t>(xyz[d]), bits.masks[d]);
  }
  return code;
}

GridCoord3 DecodeCompressedMorton(std::uint64_t code, const MortonBits& bits) {
  GridCoord3 xyz;
  for (int d = 0; d < 3; ++d) xyz[d] = static_cast<Index>(ExtractBits(code, bits.masks[d]));
  return xyz;
}

GridCoord3 ShardChunkExtent(const MortonBits& bits, int preshift_plus_minishard_bits) {
  CHUNKWISE_CHECK(preshift_plus_minishard_bits >= 0);
  std::array<int, 3> current{0, 0, 0};
  int remaining = preshift_plus_minishard_bits;
  // Deal bits round-robin until they run out or every dimension is full.
  for (bool dealt = true; remaining > 0 && dealt;) {
    dealt = false;
    for (int d = 0; d < 3 && remaining > 0; ++d) {
      if (current[d] < bits.bits[d]) {
        ++current[d];
        --remaining;
        dealt = true;
      }
    }
  }
  GridCoord3 extent;
  for (int d = 0; d < 3; ++d) {
    // 2^63 does not fit an Index, but no grid reaches it, so min() is the grid.
    extent[d] = current[d] >= 63 ? bits.grid[d] : std::min(bits.grid[d], Index{1} << current[d]);
  }
  return extent;
}

}  // namespace chunkwise::core
