// A label skeletonized in overlapping blocks (pipelines/skeletons/
// blocked_skeleton.h) against the same label from its whole crop: one
// connected tree, every vertex inside the label, the same cable length
// within 10 %, and the blocks' memory bounded by the budget where the whole
// crop's is not.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <numeric>
#include <vector>

#include "pipelines/skeletons/blocked_skeleton.h"
#include "pipelines/skeletons/skeleton_job.h"
#include "pipelines/skeletons/source_chunks.h"
#include "pipelines/skeletons/teasar.h"

namespace chunkwise::pipelines::skeletons {
namespace {

constexpr std::uint64_t kTube = 7;

struct Volume {
  std::array<std::int64_t, 3> shape;  // z, y, x
  std::vector<std::uint64_t> labels;
  std::array<double, 3> voxel_size{1, 1, 1};  // x, y, z
  std::uint64_t at(std::int64_t z, std::int64_t y, std::int64_t x) const {
    return labels[(z * shape[1] + y) * shape[2] + x];
  }
};

// A tube of radius 4.5 along x that swings 12 voxels either way in y, so
// that it crosses block faces on two axes, with a second label beside it.
Volume Tube() {
  Volume v{{20, 48, 320}, {}};
  v.labels.assign(v.shape[0] * v.shape[1] * v.shape[2], 0);
  for (std::int64_t z = 0; z < v.shape[0]; ++z)
    for (std::int64_t y = 0; y < v.shape[1]; ++y)
      for (std::int64_t x = 4; x < v.shape[2] - 4; ++x) {
        const double cy = 24 + 12 * std::sin(x / 40.0), cz = 10;
        const double d2 = (y - cy) * (y - cy) + (z - cz) * (z - cz);
        if (d2 <= 4.5 * 4.5) v.labels[(z * v.shape[1] + y) * v.shape[2] + x] = kTube;
        if (z < 2 && x % 50 < 20) v.labels[(z * v.shape[1] + y) * v.shape[2] + x] = 3;
      }
  return v;
}

SkeletonSource SourceOf(const Volume& v, std::array<std::int64_t, 3> chunk) {
  SkeletonSource source;
  source.shape = v.shape;
  source.chunk = chunk;
  source.voxel_size = v.voxel_size;
  source.read = [&v](const core::Region& region) -> Result<std::vector<std::uint64_t>> {
    std::vector<std::uint64_t> out;
    for (std::int64_t z = region.start()[0]; z < region.stop()[0]; ++z)
      for (std::int64_t y = region.start()[1]; y < region.stop()[1]; ++y)
        for (std::int64_t x = region.start()[2]; x < region.stop()[2]; ++x)
          out.push_back(v.at(z, y, x));
    return out;
  };
  return source;
}

// The number of connected pieces of the skeleton's graph.
std::size_t Pieces(const Skeleton& s) {
  std::vector<std::size_t> parent(s.vertices.size());
  std::iota(parent.begin(), parent.end(), 0);
  auto root = [&](std::size_t v) {
    while (parent[v] != v) v = parent[v] = parent[parent[v]];
    return v;
  };
  for (const auto& [a, b] : s.edges) parent[root(a)] = root(b);
  std::size_t pieces = 0;
  for (std::size_t v = 0; v < parent.size(); ++v) pieces += root(v) == v;
  return pieces;
}

TEST(SkeletonBlocks, ATubeAcrossManyBlocksIsOneTreeInsideTheLabel) {
  const Volume v = Tube();
  const SkeletonSource source = SourceOf(v, {16, 16, 16});
  auto table = ScanChunks(source, 0, CountSourceChunks(source), nullptr, nullptr, nullptr);
  ASSERT_TRUE(table.ok()) << table.status().ToString();
  auto work = SelectLabels(*table, {kTube}, "tube");
  ASSERT_TRUE(work.ok()) << work.status().ToString();
  const LabelExtent extent = work->front().second;
  TeasarParams params;
  params.constant = 2;

  // The whole crop, the reference.
  CropSkeletonOptions whole_options;
  whole_options.params = params;
  auto whole = SkeletonizeFromSource(source, *work, whole_options, "tube");
  ASSERT_TRUE(whole.ok()) << whole.status().ToString();
  ASSERT_EQ(whole->size(), 1u);

  // A budget well under the crop's needs.
  const std::uint64_t budget = CropBytes(extent) / 8;
  auto plan = PlanBlocks(budget, "tube");
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  SourceChunks chunks(source);
  TeasarWorkspacePtr workspace = NewTeasarWorkspace();
  BlockedSkeletonStats stats;
  auto blocked =
      SkeletonizeInBlocks(source, chunks, kTube, extent, *plan, params, *workspace, "tube", &stats);
  ASSERT_TRUE(blocked.ok()) << blocked.status().ToString();
  EXPECT_GE(stats.blocks, 20u);  // along x, and rows of blocks in y
  EXPECT_LE(stats.peak_bytes, budget);
  EXPECT_GT(stats.peak_bytes, 0u);

  // The whole crop's workspace alone is over that budget.
  TeasarWorkspacePtr whole_workspace = NewTeasarWorkspace();
  {
    auto crop_stats = BlockedSkeletonStats();
    SourceChunks whole_chunks(source);
    auto one_block = SkeletonizeInBlocks(source, whole_chunks, kTube, extent, {1 << 20, 0}, params,
                                         *whole_workspace, "tube", &crop_stats);
    ASSERT_TRUE(one_block.ok()) << one_block.status().ToString();
    EXPECT_EQ(crop_stats.blocks, 1u);
    EXPECT_GT(TeasarWorkspaceBytes(*whole_workspace), 2 * budget);
  }

  const Skeleton& s = *blocked;
  EXPECT_EQ(s.label, kTube);
  ASSERT_GT(s.vertices.size(), 100u);
  EXPECT_EQ(s.radii.size(), s.vertices.size());
  EXPECT_EQ(Pieces(s), 1u);
  EXPECT_EQ(s.edges.size() + 1, s.vertices.size());  // connected with V - 1 edges: a tree
  for (const auto& p : s.vertices) {
    const auto x = static_cast<std::int64_t>(std::floor(p[0])),
               y = static_cast<std::int64_t>(std::floor(p[1])),
               z = static_cast<std::int64_t>(std::floor(p[2]));
    ASSERT_EQ(v.at(z, y, x), kTube) << p[0] << " " << p[1] << " " << p[2];
  }
  const double reference = CableLength(whole->front());
  EXPECT_GT(reference, 300.0);
  EXPECT_NEAR(CableLength(s), reference, 0.1 * reference)
      << "blocked " << CableLength(s) << " whole " << reference;
}

TEST(SkeletonBlocks, TheJobGoesInBlocksOverItsMemoryLimit) {
  const Volume v = Tube();
  const SkeletonSource source = SourceOf(v, {16, 16, 16});
  auto table = ScanChunks(source, 0, CountSourceChunks(source), nullptr, nullptr, nullptr);
  ASSERT_TRUE(table.ok());
  auto work = SelectLabels(*table, {}, "tube");
  ASSERT_TRUE(work.ok());
  CropSkeletonOptions options;
  options.params.constant = 2;
  auto whole = SkeletonizeFromSource(source, *work, options, "tube");
  ASSERT_TRUE(whole.ok()) << whole.status().ToString();
  options.max_memory = CropBytes(table->at(kTube)) / 8;
  auto blocked = SkeletonizeFromSource(source, *work, options, "tube");
  ASSERT_TRUE(blocked.ok()) << blocked.status().ToString();
  ASSERT_EQ(blocked->size(), whole->size());
  for (std::size_t i = 0; i < whole->size(); ++i) {
    const Skeleton &a = (*whole)[i], &b = (*blocked)[i];
    EXPECT_EQ(b.label, a.label);
    EXPECT_EQ(Pieces(b), Pieces(a)) << "label " << a.label;
    EXPECT_NEAR(CableLength(b), CableLength(a), 0.1 * CableLength(a)) << "label " << a.label;
  }
  // The tube's skeleton was drawn in blocks: not the whole crop's bytes.
  EXPECT_NE(formats::precomputed::EncodeSkeleton((*blocked)[1]),
            formats::precomputed::EncodeSkeleton((*whole)[1]));
}

TEST(SkeletonBlocks, ABudgetUnderTheSmallestBlockIsRefusedNamingTheLabel) {
  const Volume v = Tube();
  const SkeletonSource source = SourceOf(v, {16, 16, 16});
  auto table = ScanChunks(source, 0, CountSourceChunks(source), nullptr, nullptr, nullptr);
  ASSERT_TRUE(table.ok());
  auto work = SelectLabels(*table, {kTube}, "tube");
  ASSERT_TRUE(work.ok());
  CropSkeletonOptions options;
  options.max_memory = 14 * 14 * 14 * kBlockBytesPerVoxel - 1;
  auto refused = SkeletonizeFromSource(source, *work, options, "tube");
  EXPECT_EQ(refused.status().code(), StatusCode::kResourceExhausted);
  EXPECT_EQ(refused.status().field(), "max_memory");
  EXPECT_NE(refused.status().message().find("label 7"), std::string::npos)
      << refused.status().ToString();
  options.max_memory += 1;  // the smallest block fits
  EXPECT_TRUE(SkeletonizeFromSource(source, *work, options, "tube").ok());
}

TEST(SkeletonBlocks, MergingJoinsEqualVerticesAndDropsRepeatsAndCycles) {
  Skeleton a, b;
  a.vertices = {{0, 0, 0}, {1, 0, 0}, {2, 0, 0}};
  a.radii = {1, 2, 3};
  a.edges = {{0, 1}, {1, 2}};
  b.vertices = {{2, 0, 0}, {1, 0, 0}, {3, 0, 0}, {0, 0, 0}};
  b.radii = {9, 9, 4, 9};
  b.edges = {{0, 1}, {0, 2}, {3, 0}, {3, 3}};  // a repeat, a new edge, a cycle's edge, a loop
  const Skeleton m = MergeFragments(5, {a, b});
  EXPECT_EQ(m.label, 5u);
  ASSERT_EQ(m.vertices.size(), 4u);
  EXPECT_EQ(m.vertices[3], (std::array<float, 3>{3, 0, 0}));
  EXPECT_EQ(m.radii, (std::vector<float>{1, 2, 3, 4}));
  ASSERT_EQ(m.edges.size(), 3u);
  EXPECT_EQ(m.edges[2], (std::array<std::uint32_t, 2>{2, 3}));
}

TEST(SkeletonBlocks, PruningDropsEndBranchesInsideOtherBallsOnly) {
  // A path along x from 0 to 20, radius 1; a spur of 2 at x = 10 (inside the
  // balls of the path: 1.5 * 1 + 2 = 3.5) and one of 6 at x = 15 (its tip
  // outside every ball).
  Skeleton s;
  s.label = 9;
  for (int x = 0; x <= 20; ++x) {
    s.vertices.push_back({float(x), 0, 0});
    s.radii.push_back(1);
    if (x > 0) s.edges.push_back({std::uint32_t(x - 1), std::uint32_t(x)});
  }
  auto spur = [&](int x, int length) {
    std::uint32_t previous = std::uint32_t(x);
    for (int k = 1; k <= length; ++k) {
      s.vertices.push_back({float(x), float(k), 0});
      s.radii.push_back(1);
      s.edges.push_back({previous, std::uint32_t(s.vertices.size() - 1)});
      previous = std::uint32_t(s.vertices.size() - 1);
    }
  };
  spur(10, 2);
  spur(15, 6);
  TeasarParams params;
  params.constant = 2;
  PruneCoveredBranches(s, params);
  EXPECT_EQ(s.label, 9u);
  ASSERT_EQ(s.vertices.size(), 21u + 6u);  // the short spur went, the long one stayed
  EXPECT_EQ(s.edges.size(), s.vertices.size() - 1);
  EXPECT_EQ(s.radii.size(), s.vertices.size());
  EXPECT_EQ(s.vertices.back(), (std::array<float, 3>{15, 6, 0}));
  // The path's two ends stay: their branches run to the fork at x = 15,
  // and their tips lie outside the balls of every vertex beyond them.
  EXPECT_EQ(s.vertices.front(), (std::array<float, 3>{0, 0, 0}));
  EXPECT_EQ(Pieces(s), 1u);
}

}  // namespace
}  // namespace chunkwise::pipelines::skeletons
