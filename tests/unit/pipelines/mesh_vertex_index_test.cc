#include "pipelines/meshing/mesh_vertex_index.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <unordered_map>
#include <vector>

namespace chunkwise::pipelines {
namespace {

TEST(MeshVertexIndex, AKeyKeepsTheNumberItWasGivenFirst) {
  MeshVertexIndex index;
  EXPECT_EQ(index.TryEmplace(42, 0), std::make_pair(std::uint32_t{0}, true));
  EXPECT_EQ(index.TryEmplace(7, 1), std::make_pair(std::uint32_t{1}, true));
  EXPECT_EQ(index.TryEmplace(42, 2), std::make_pair(std::uint32_t{0}, false));
  EXPECT_EQ(index.TryEmplace(7, 3), std::make_pair(std::uint32_t{1}, false));
  EXPECT_EQ(index.size(), 2u);
}

// Key 0 and keys with the top bit set (a loop's centroid) are keys like any
// other; only the vertex number kEmpty marks an empty slot.
TEST(MeshVertexIndex, ZeroAndTopBitKeysAreKeys) {
  MeshVertexIndex index;
  const std::uint64_t top = std::uint64_t{1} << 63;
  EXPECT_TRUE(index.TryEmplace(0, 5).second);
  EXPECT_TRUE(index.TryEmplace(top, 6).second);
  EXPECT_TRUE(index.TryEmplace(top | 1, 7).second);
  EXPECT_EQ(index.TryEmplace(0, 8).first, 5u);
  EXPECT_EQ(index.TryEmplace(top, 8).first, 6u);
  EXPECT_EQ(index.TryEmplace(top | 1, 8).first, 7u);
  EXPECT_EQ(index.size(), 3u);
}

// Through many growths, with keys packed as marching cubes packs them (21
// bits an axis, so that many share their low bits), every key answers what
// std::unordered_map's try_emplace answers.
TEST(MeshVertexIndex, AnswersAsAnUnorderedMapThroughGrowth) {
  MeshVertexIndex index;
  std::unordered_map<std::uint64_t, std::uint32_t> reference;
  std::mt19937_64 random(41);
  for (std::uint32_t n = 0; n < 200000; ++n) {
    const std::uint64_t x = random() % 64, y = random() % 64, z = random() % 64;
    const std::uint64_t key = (z << 42) | (y << 21) | x;
    const auto [expected, expected_added] = reference.try_emplace(key, n);
    const auto [vertex, added] = index.TryEmplace(key, n);
    ASSERT_EQ(vertex, expected->second) << "key " << key << " at " << n;
    ASSERT_EQ(added, expected_added) << "key " << key << " at " << n;
  }
  EXPECT_EQ(index.size(), reference.size());
  EXPECT_GT(reference.size(), 100000u);  // Grown many times over.
}

}  // namespace
}  // namespace chunkwise::pipelines
