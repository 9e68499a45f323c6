#include "chunkwise/core/morton.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <vector>

namespace chunkwise::core {
namespace {

MortonBits Bits(const GridCoord3& grid) {
  Result<MortonBits> bits = MortonBits::FromGrid(grid);
  EXPECT_TRUE(bits.ok()) << bits.status().ToString();
  return *bits;
}

// bits chosen directly (any grid with these bit lengths has the same codes).
MortonBits BitsOf(int x, int y, int z) {
  return Bits({Index{1} << x, Index{1} << y, Index{1} << z});
}

// The plain loop of docs/formats/precomputed.md, "Sharding" (Morton bits).
std::uint64_t NaiveMorton(const GridCoord3& c, const std::array<int, 3>& bits) {
  std::uint64_t out = 0;
  int j = 0;
  const int max_bits = std::max({bits[0], bits[1], bits[2]});
  for (int i = 0; i < max_bits; ++i) {
    for (int d = 0; d < 3; ++d) {
      if (i < bits[d]) out |= ((static_cast<std::uint64_t>(c[d]) >> i) & 1) << j++;
    }
  }
  return out;
}

TEST(MortonBits, FromGrid) {
  const MortonBits mcns = Bits({1471, 1224, 2103});
  EXPECT_EQ(mcns.bits, (std::array<int, 3>{11, 11, 12}));
  EXPECT_EQ(mcns.total_bits(), 34);
  EXPECT_EQ(Bits({0, 1, 2}).bits, (std::array<int, 3>{0, 0, 1}));
  EXPECT_EQ(Bits({3, 4, 5}).bits, (std::array<int, 3>{2, 2, 3}));
  EXPECT_EQ(Bits({1024, 1025, 1}).bits, (std::array<int, 3>{10, 11, 0}));
  EXPECT_FALSE(MortonBits::FromGrid({-1, 1, 1}).ok());
  EXPECT_FALSE(MortonBits::FromGrid({Index{1} << 30, Index{1} << 30, Index{1} << 10}).ok());
  EXPECT_TRUE(MortonBits::FromGrid({Index{1} << 30, Index{1} << 30, Index{1} << 4}).ok());
}

TEST(MortonBits, BitLength) {
  EXPECT_EQ(BitLength(0), 0);
  EXPECT_EQ(BitLength(1), 1);
  EXPECT_EQ(BitLength(1470), 11);
  EXPECT_EQ(BitLength(2102), 12);
  EXPECT_EQ(BitLength(~std::uint64_t{0}), 64);
}

TEST(CompressedMortonCode, SpecVectors) {
  const MortonBits mcns = Bits({1471, 1224, 2103});
  EXPECT_EQ(CompressedMortonCode({1, 2, 3}, mcns), 0x35u);
  EXPECT_EQ(CompressedMortonCode({32, 0, 0}, mcns), 0x8000u);
  EXPECT_EQ(CompressedMortonCode({1470, 1223, 2102}, mcns), 0x2C16AD3FAu);
  EXPECT_EQ(DecodeCompressedMorton(0x2C16AD3FAu, mcns), (GridCoord3{1470, 1223, 2102}));

  const MortonBits small = BitsOf(4, 2, 1);
  EXPECT_EQ(CompressedMortonCode({2, 3, 0}, small), 0b11010u);
  EXPECT_EQ(CompressedMortonCode({9, 2, 1}, small), 0b1010101u);
  EXPECT_EQ(DecodeCompressedMorton(0b1010101u, small), (GridCoord3{9, 2, 1}));
}

TEST(CompressedMortonCode, BijectionOntoCodeSpaceAndMatchesNaiveLoop) {
  std::mt19937_64 rng(51);
  for (int trial = 0; trial < 300; ++trial) {
    const GridCoord3 grid{static_cast<Index>(rng() % 20), static_cast<Index>(rng() % 20),
                          static_cast<Index>(rng() % 20)};
    const MortonBits bits = Bits(grid);
    // Every coordinate below 2^bits (a superset of the grid) gets a distinct
    // code in [0, 2^total_bits), so the codes cover that range exactly.
    const std::uint64_t space = std::uint64_t{1} << bits.total_bits();
    std::vector<bool> hit(space, false);
    for (Index x = 0; x < (Index{1} << bits.bits[0]); ++x) {
      for (Index y = 0; y < (Index{1} << bits.bits[1]); ++y) {
        for (Index z = 0; z < (Index{1} << bits.bits[2]); ++z) {
          const std::uint64_t code = CompressedMortonCode({x, y, z}, bits);
          ASSERT_EQ(code, NaiveMorton({x, y, z}, bits.bits));
          ASSERT_LT(code, space);
          ASSERT_FALSE(hit[code]);
          hit[code] = true;
          ASSERT_EQ(DecodeCompressedMorton(code, bits), (GridCoord3{x, y, z}));
        }
      }
    }
    EXPECT_TRUE(std::all_of(hit.begin(), hit.end(), [](bool b) { return b; }));
  }
}

TEST(CompressedMortonCode, LargeGridsMatchNaiveLoop) {
  std::mt19937_64 rng(52);
  for (int trial = 0; trial < 2000; ++trial) {
    GridCoord3 grid;
    for (Index& extent : grid) extent = 1 + static_cast<Index>(rng() % (Index{1} << (rng() % 22)));
    const MortonBits bits = Bits(grid);
    GridCoord3 xyz;
    for (int d = 0; d < 3; ++d) xyz[d] = static_cast<Index>(rng() % grid[d]);
    const std::uint64_t code = CompressedMortonCode(xyz, bits);
    ASSERT_EQ(code, NaiveMorton(xyz, bits.bits));
    ASSERT_EQ(DecodeCompressedMorton(code, bits), xyz);
  }
}

TEST(ShardChunkExtent, SpecVectors) {
  const MortonBits mcns = Bits({1471, 1224, 2103});
  // preshift 9 + minishard 6 = 15 bits → 5/5/5 → 32³ chunks (2048³ voxels).
  EXPECT_EQ(ShardChunkExtent(mcns, 15), (GridCoord3{32, 32, 32}));
  EXPECT_EQ(ShardChunkExtent(mcns, 16), (GridCoord3{64, 32, 32}));
  EXPECT_EQ(ShardChunkExtent(mcns, 0), (GridCoord3{1, 1, 1}));
  // Past every dimension's bits the shard is the whole grid.
  EXPECT_EQ(ShardChunkExtent(mcns, 40), (GridCoord3{1471, 1224, 2103}));
  // Dimensions whose bits are used up are skipped: x has 1 bit, y 0, z 4.
  const MortonBits skewed = Bits({2, 1, 16});
  EXPECT_EQ(ShardChunkExtent(skewed, 3), (GridCoord3{2, 1, 4}));
  EXPECT_EQ(ShardChunkExtent(skewed, 5), (GridCoord3{2, 1, 16}));
}

TEST(ShardChunkExtent, ShardsAreBoxesOfConsecutiveCodes) {
  // With the identity hash a shard holds the chunks sharing code >> n; check
  // that those chunks form a box of the computed extent (grid-clipped).
  std::mt19937_64 rng(53);
  for (int trial = 0; trial < 200; ++trial) {
    const GridCoord3 grid{1 + static_cast<Index>(rng() % 12), 1 + static_cast<Index>(rng() % 12),
                          1 + static_cast<Index>(rng() % 12)};
    const MortonBits bits = Bits(grid);
    const int n = static_cast<int>(rng() % (bits.total_bits() + 2));
    const GridCoord3 extent = ShardChunkExtent(bits, n);
    for (Index x = 0; x < grid[0]; ++x) {
      for (Index y = 0; y < grid[1]; ++y) {
        for (Index z = 0; z < grid[2]; ++z) {
          // Same shard iff same box of `extent` (boxes aligned at multiples of 2^curBit).
          const GridCoord3 a{x, y, z};
          const GridCoord3 b{static_cast<Index>(rng() % grid[0]),
                             static_cast<Index>(rng() % grid[1]),
                             static_cast<Index>(rng() % grid[2])};
          const bool same_shard = n >= 64 || (CompressedMortonCode(a, bits) >> n) ==
                                                 (CompressedMortonCode(b, bits) >> n);
          const bool same_box = a[0] / extent[0] == b[0] / extent[0] &&
                                a[1] / extent[1] == b[1] / extent[1] &&
                                a[2] / extent[2] == b[2] / extent[2];
          ASSERT_EQ(same_shard, same_box) << n;
        }
      }
    }
  }
}

}  // namespace
}  // namespace chunkwise::core
