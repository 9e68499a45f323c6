#include "core/shard_layout.h"

#include <gtest/gtest.h>

#include <random>
#include <set>
#include <tuple>

#include "chunkwise/core/region.h"
#include "core/ravel.h"

namespace chunkwise::core {
namespace {

Index Random(std::mt19937_64& rng, Index low, Index high) {  // Inclusive.
  return std::uniform_int_distribution<Index>(low, high)(rng);
}

ShardLayout MakeLayout(std::vector<DimensionSpec> dims) {
  Result<ShardLayout> layout = ShardLayout::Create(std::move(dims));
  EXPECT_TRUE(layout.ok()) << layout.status().ToString();
  return std::move(layout).value();
}

// Small configurations with ragged edges: sizes that are not multiples of the
// tile, tile counts that are not multiples of tiles_per_shard.
std::vector<DimensionSpec> RandomDims(std::mt19937_64& rng) {
  std::vector<DimensionSpec> dims(static_cast<std::size_t>(Random(rng, 1, 4)));
  for (DimensionSpec& dim : dims) {
    dim.tile_size = Random(rng, 1, 3);
    dim.tiles_per_shard = Random(rng, 1, 3);
    dim.size = Random(rng, 1, 3 * dim.tile_size * dim.tiles_per_shard);
  }
  return dims;
}

Shape Inner(const Shape& shape) { return Shape(shape.begin() + 1, shape.end()); }

TEST(ShardLayout, SeedExampleHas48ActiveShards) {
  // 768 tiles per epoch (16·16·3) with 4×4×4×1 tiles per shard: the design says
  // 12 active shards; it is 768 / (4·4·1) = 48 (docs/pipelines/stream-writer.md).
  const ShardLayout layout = MakeLayout({{0, 32, 4}, {1024, 64, 4}, {1024, 64, 4}, {96, 32, 1}});
  EXPECT_TRUE(layout.unbounded());
  EXPECT_EQ(layout.tile_count(), (Shape{0, 16, 16, 3}));
  EXPECT_EQ(layout.epoch_tile_count(), 768);
  EXPECT_EQ(layout.padded_epoch_tile_count(), 768);
  EXPECT_EQ(layout.tiles_per_shard_inner(), 16);
  EXPECT_EQ(layout.tiles_per_shard_total(), 64);
  EXPECT_EQ(layout.active_shard_count(), 48);
}

TEST(ShardLayout, UpstreamBenchmarkConfig) {
  // tps (16,4,4,3) over the same 768 tiles: 16 inner shards of 768 tiles.
  const ShardLayout layout = MakeLayout({{0, 32, 16}, {1024, 64, 4}, {1024, 64, 4}, {96, 32, 3}});
  EXPECT_EQ(layout.active_shard_count(), 16);
  EXPECT_EQ(layout.tiles_per_shard_total(), 768);
  EXPECT_EQ(layout.tiles_per_shard_inner(), 48);
}

TEST(ShardLayout, NonDivisibleTileCountsNeedPaddedSpace) {
  // Errata #2: 5 tiles with 2 per shard along dim 1 → 3 shards, positions 0..5,
  // one hole (the missing sixth tile).
  const ShardLayout layout = MakeLayout({{10, 2, 2}, {10, 2, 2}});
  EXPECT_EQ(layout.tile_count(), (Shape{5, 5}));
  EXPECT_EQ(layout.shard_count(), (Shape{3, 3}));
  EXPECT_EQ(layout.epoch_tile_count(), 5);
  EXPECT_EQ(layout.padded_epoch_tile_count(), 6);
  EXPECT_EQ(layout.active_shard_count(), 3);
  EXPECT_EQ(layout.ShardMajorPermutation(), (std::vector<Index>{0, 1, 2, 3, 4}));
  EXPECT_EQ(layout.TileAtPosition(5), std::nullopt);
  EXPECT_EQ(layout.IndexSlot(3, 4), 1 * 2 + 0);
  EXPECT_EQ(layout.ShardCoord(3, 2), (Coord{1, 2}));

  // Two inner dimensions, 3×3 tiles in 2×2 shards: M = 9, M' = 16.
  const ShardLayout square = MakeLayout({{4, 4, 1}, {6, 2, 2}, {3, 1, 2}});
  EXPECT_EQ(square.epoch_tile_count(), 9);
  EXPECT_EQ(square.padded_epoch_tile_count(), 16);
  // Tile (t1,t2) → ravel((t1/2, t2/2, t1%2, t2%2), (2,2,2,2)).
  EXPECT_EQ(square.ShardMajorPermutation(), (std::vector<Index>{0, 1, 4, 2, 3, 6, 8, 9, 12}));
}

TEST(ShardLayout, CreateRejectsBadDimensions) {
  const std::vector<std::vector<DimensionSpec>> bad = {
      {},
      {{10, 0, 1}},
      {{10, 2, 0}},
      {{-1, 2, 1}},
      {{10, 2, 1}, {0, 2, 1}},  // Only dimension 0 may be unbounded.
      {{10, 2, 1}, {INT64_MAX, 1, 2}},
      {{10, 2, 1}, {Index{1} << 40, 1, 1}, {Index{1} << 40, 1, 1}},
  };
  for (const auto& dims : bad) EXPECT_FALSE(ShardLayout::Create(dims).ok()) << dims.size();
}

TEST(ShardLayout, RankOne) {
  const ShardLayout layout = MakeLayout({{7, 2, 3}});
  EXPECT_EQ(layout.epoch_tile_count(), 1);
  EXPECT_EQ(layout.padded_epoch_tile_count(), 1);
  EXPECT_EQ(layout.active_shard_count(), 1);
  EXPECT_EQ(layout.shard_count(), (Shape{2}));
  const ShardLocation last = layout.LocateInShard(Coord{6});
  EXPECT_EQ(last.shard, (Coord{1}));
  EXPECT_EQ(last.slot, 0);
  EXPECT_EQ(last.offset, 0);
}

// The definition applied directly to one element.
ShardLocation BruteForceLocation(const std::vector<DimensionSpec>& dims, const Coord& x) {
  Coord tps_shape, tile_shape, w, n;
  ShardLocation location;
  for (std::size_t d = 0; d < dims.size(); ++d) {
    const Index t = x[d] / dims[d].tile_size;
    location.shard.push_back(t / dims[d].tiles_per_shard);
    w.push_back(t % dims[d].tiles_per_shard);
    n.push_back(x[d] % dims[d].tile_size);
    tps_shape.push_back(dims[d].tiles_per_shard);
    tile_shape.push_back(dims[d].tile_size);
  }
  location.slot = Ravel(w, tps_shape);
  location.offset = Ravel(n, tile_shape);
  return location;
}

TEST(ShardLayout, EveryElementLandsWhereTheDefinitionSays) {
  std::mt19937_64 rng(41);
  for (int trial = 0; trial < 400; ++trial) {
    std::vector<DimensionSpec> dims = RandomDims(rng);
    Shape sizes;
    for (const DimensionSpec& dim : dims) sizes.push_back(dim.size);
    if (rng() % 4 == 0) dims[0].size = 0;  // Unbounded; still walk `sizes[0]` epochs' worth.
    const ShardLayout layout = MakeLayout(dims);
    const Region full = Region::Full(sizes);
    // Each (shard, slot, offset) is hit at most once: no two elements collide.
    std::set<std::tuple<Coord, Index, Index>> seen;
    Coord x = full.start();
    do {
      const ShardLocation expected = BruteForceLocation(dims, x);
      const ShardLocation actual = layout.LocateInShard(x);
      ASSERT_EQ(actual.shard, expected.shard) << FormatShape(x);
      ASSERT_EQ(actual.slot, expected.slot) << FormatShape(x);
      ASSERT_EQ(actual.offset, expected.offset) << FormatShape(x);
      ASSERT_TRUE(seen.insert({actual.shard, actual.slot, actual.offset}).second);
      const TileLocation tile = layout.LocateElement(x);
      ASSERT_EQ(layout.EpochPoolOffset(x), tile.tile * layout.tile_elements() + tile.offset);
      ASSERT_LT(tile.tile, layout.epoch_tile_count());
    } while (AdvanceOdometer(x, full.start(), full.stop()));
  }
}

// Checks that the positions P misses (inverse[j] == -1) are exactly those whose
// tile, decoded by the definition, lies past the array edge; returns their count.
Index CheckHoles(const ShardLayout& layout, const std::vector<Index>& inverse) {
  const Index tpsi = layout.tiles_per_shard_inner();
  const Shape tile_count = Inner(layout.tile_count());
  const Shape tps = Inner(layout.tiles_per_shard());
  Index holes = 0;
  for (Index j = 0; j < layout.padded_epoch_tile_count(); ++j) {
    const Coord s = Unravel(j / tpsi, Inner(layout.shard_count()));
    const Coord w = Unravel(j % tpsi, tps);
    bool out_of_range = false;
    for (std::size_t d = 0; d < s.size(); ++d) {
      out_of_range |= s[d] * tps[d] + w[d] >= tile_count[d];
    }
    EXPECT_EQ(inverse[j] == -1, out_of_range) << j;
    EXPECT_EQ(layout.TileAtPosition(j),
              inverse[j] == -1 ? std::nullopt : std::optional<Index>(inverse[j]));
    holes += out_of_range;
  }
  return holes;
}

TEST(ShardLayout, PermutationGroupsShardsAndHolesAreOutOfRangeTiles) {
  std::mt19937_64 rng(42);
  int trials_with_holes = 0;
  for (int trial = 0; trial < 1000; ++trial) {
    const ShardLayout layout = MakeLayout(RandomDims(rng));
    const Index tpsi = layout.tiles_per_shard_inner();
    const Shape tile_count = Inner(layout.tile_count());
    const Shape shard_count = Inner(layout.shard_count());
    const Shape tps = Inner(layout.tiles_per_shard());
    const std::vector<Index> permutation = layout.ShardMajorPermutation();
    ASSERT_EQ(static_cast<Index>(permutation.size()), layout.epoch_tile_count());
    ASSERT_EQ(layout.padded_epoch_tile_count(), layout.active_shard_count() * tpsi);
    std::vector<Index> inverse(layout.padded_epoch_tile_count(), -1);
    for (Index i = 0; i < layout.epoch_tile_count(); ++i) {
      const Index j = permutation[i];
      ASSERT_GE(j, 0);
      ASSERT_LT(j, layout.padded_epoch_tile_count());
      ASSERT_EQ(inverse[j], -1) << "P is not injective";
      inverse[j] = i;
      // Contiguous per shard: j / tpsi is the tile's shard, j % tpsi its slot.
      const Coord t = Unravel(i, tile_count);
      Coord s(t.size()), w(t.size());
      for (std::size_t d = 0; d < t.size(); ++d) {
        s[d] = t[d] / tps[d];
        w[d] = t[d] % tps[d];
      }
      ASSERT_EQ(layout.ShardOfPosition(j), Ravel(s, shard_count));
      ASSERT_EQ(layout.InnerSlotOfPosition(j), Ravel(w, tps));
    }
    const Index holes = CheckHoles(layout, inverse);
    ASSERT_EQ(holes, layout.padded_epoch_tile_count() - layout.epoch_tile_count());
    trials_with_holes += holes > 0;
  }
  EXPECT_GT(trials_with_holes, 200);  // The ragged case is well covered.
}

TEST(ShardLayout, IndexSlotAndShardCoordFollowTheHostLoop) {
  std::mt19937_64 rng(43);
  for (int trial = 0; trial < 300; ++trial) {
    std::vector<DimensionSpec> dims = RandomDims(rng);
    if (rng() % 2) dims[0].size = 0;  // Unbounded: epochs go on forever.
    const ShardLayout layout = MakeLayout(dims);
    const Index epochs =
        layout.unbounded() ? 3 * dims[0].tiles_per_shard + 2 : layout.tile_count()[0];
    const Index tps0 = dims[0].tiles_per_shard;
    const Index tpsi = layout.tiles_per_shard_inner();
    for (Index epoch = 0; epoch < epochs; ++epoch) {
      for (Index j = 0; j < layout.padded_epoch_tile_count(); ++j) {
        ASSERT_EQ(layout.IndexSlot(epoch, j), (epoch % tps0) * tpsi + j % tpsi);
        ASSERT_LT(layout.IndexSlot(epoch, j), layout.tiles_per_shard_total());
        const Coord shard = layout.ShardCoord(epoch, layout.ShardOfPosition(j));
        ASSERT_EQ(shard[0], epoch / tps0);
        ASSERT_EQ(Ravel(Inner(shard), Inner(layout.shard_count())), j / tpsi);
      }
    }
  }
}

TEST(ShardLayout, ScatterStridesAreLifted) {
  const ShardLayout layout = MakeLayout({{0, 2, 1}, {5, 2, 2}, {7, 3, 1}});
  // Tiles 2×2×3 = 12 elements; pool of 3×3 tiles.
  ASSERT_EQ(layout.scatter_strides().size(), 3u);
  EXPECT_EQ(layout.scatter_strides()[0].tile_stride, 0);
  EXPECT_EQ(layout.scatter_strides()[0].element_stride, 6);
  EXPECT_EQ(layout.scatter_strides()[1].tile_stride, 3 * 12);
  EXPECT_EQ(layout.scatter_strides()[1].element_stride, 3);
  EXPECT_EQ(layout.scatter_strides()[2].tile_stride, 12);
  EXPECT_EQ(layout.scatter_strides()[2].element_stride, 1);
  // Element (5, 4, 6): epoch 2, tile (2, 2) = pool 8, offset (1, 0, 0) = 6.
  const TileLocation location = layout.LocateElement(Coord{5, 4, 6});
  EXPECT_EQ(location.epoch, 2);
  EXPECT_EQ(location.tile, 8);
  EXPECT_EQ(location.offset, 6);
  EXPECT_EQ(layout.EpochPoolOffset(Coord{5, 4, 6}), 8 * 12 + 6);
}

}  // namespace
}  // namespace chunkwise::core
