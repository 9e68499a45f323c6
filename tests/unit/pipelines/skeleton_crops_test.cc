// Skeletons from crops (pipelines/skeletons/skeleton_job.h) against the
// whole-volume path (SkeletonizeVolume: one distance field for the volume):
// the field on each label's voxels, and each skeleton's encoded bytes, are
// equal, with labels touching the volume's faces, labels inside others,
// anisotropic voxels and scan chunks that do not divide the volume.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <random>
#include <vector>

#include "formats/precomputed/skeleton_file.h"
#include "pipelines/skeletons/skeleton_job.h"
#include "pipelines/skeletons/skeletonize.h"
#include "pipelines/skeletons/source_chunks.h"
#include "pipelines/skeletons/teasar.h"
#include "unit/pipelines/synthetic_labels.h"

namespace chunkwise::pipelines::skeletons {
namespace {

using Volume = test::SyntheticLabels;
using test::SourceOf;

// Blobs of a few labels grown from random seeds over the whole volume (so
// that many touch its faces), with background holes and a label inside
// another's box.
Volume RandomVolume(unsigned seed, std::array<std::int64_t, 3> shape) {
  std::mt19937 random(seed);
  Volume v{shape, std::vector<std::uint64_t>(shape[0] * shape[1] * shape[2], 0)};
  std::uniform_real_distribution<double> unit(0, 1);
  struct Seed {
    double z, y, x, r;
    std::uint64_t label;
  };
  std::vector<Seed> seeds;
  for (int i = 0; i < 9; ++i) {
    seeds.push_back({unit(random) * shape[0], unit(random) * shape[1], unit(random) * shape[2],
                     2 + unit(random) * 6, static_cast<std::uint64_t>(1 + i % 6)});
  }
  for (std::int64_t z = 0; z < shape[0]; ++z)
    for (std::int64_t y = 0; y < shape[1]; ++y)
      for (std::int64_t x = 0; x < shape[2]; ++x) {
        std::uint64_t& label = v.labels[(z * shape[1] + y) * shape[2] + x];
        for (const Seed& s : seeds) {
          const double d2 = (z - s.z) * (z - s.z) + (y - s.y) * (y - s.y) + (x - s.x) * (x - s.x);
          if (d2 <= s.r * s.r) label = s.label;
        }
        if (unit(random) < 0.03) label = 0;
      }
  return v;
}

TEST(SkeletonCrops, TheScanFindsWhatFindLabelsFinds) {
  const Volume v = RandomVolume(1, {13, 17, 19});
  const auto whole = FindLabels(v.view());
  for (const auto chunk :
       {std::array<std::int64_t, 3>{4, 5, 6}, std::array<std::int64_t, 3>{13, 17, 19},
        std::array<std::int64_t, 3>{1, 32, 3}}) {
    const SkeletonSource source = SourceOf(v, chunk);
    auto scanned = ScanChunks(source, 0, CountSourceChunks(source), nullptr, nullptr, nullptr);
    ASSERT_TRUE(scanned.ok()) << scanned.status().ToString();
    ASSERT_EQ(scanned->size(), whole.size());
    for (const auto& [label, extent] : whole) {
      const LabelExtent& got = scanned->at(label);
      EXPECT_EQ(got.voxels, extent.voxels) << label;
      EXPECT_EQ(got.box.start, extent.box.start) << label;
      EXPECT_EQ(got.box.stop, extent.box.stop) << label;
    }
    // Split into parts, merged: the same.
    const std::uint64_t n = CountSourceChunks(source);
    LabelTable merged;
    for (std::uint64_t p = 0; p < 3; ++p) {
      auto part = ScanChunks(source, n * p / 3, n * (p + 1) / 3, nullptr, nullptr, nullptr);
      ASSERT_TRUE(part.ok());
      MergeLabelTable(merged, *part);
    }
    EXPECT_EQ(merged.size(), whole.size());
    for (const auto& [label, extent] : whole) EXPECT_EQ(merged.at(label).voxels, extent.voxels);
  }
}

TEST(SkeletonCrops, TheCropFieldIsTheWholeVolumeFieldBitForBit) {
  for (unsigned seed = 1; seed <= 6; ++seed) {
    Volume v = RandomVolume(seed, {11 + seed, 14, 9 + 2 * seed});
    v.voxel_size = {4 + seed * 0.3, 4, 40 / static_cast<double>(seed)};
    const std::vector<float> whole = DistanceToBoundary(v.view());
    for (const auto& [label, extent] : FindLabels(v.view())) {
      LabelCrop crop;
      crop.label = label;
      crop.box = extent.box;
      const auto d = crop.dims();
      crop.mask.assign(crop.voxels(), 0);
      for (std::int64_t z = extent.box.start[0]; z < extent.box.stop[0]; ++z)
        for (std::int64_t y = extent.box.start[1]; y < extent.box.stop[1]; ++y)
          for (std::int64_t x = extent.box.start[2]; x < extent.box.stop[2]; ++x)
            if (v.labels[(z * v.shape[1] + y) * v.shape[2] + x] == label)
              crop.mask[((z - extent.box.start[0] + 1) * d[1] + y - extent.box.start[1] + 1) *
                            d[2] +
                        x - extent.box.start[2] + 1] = 1;
      const std::vector<float> field = CropDistanceToBoundary(crop, v.voxel_size);
      std::uint64_t compared = 0;
      for (std::int64_t z = extent.box.start[0]; z < extent.box.stop[0]; ++z)
        for (std::int64_t y = extent.box.start[1]; y < extent.box.stop[1]; ++y)
          for (std::int64_t x = extent.box.start[2]; x < extent.box.stop[2]; ++x) {
            const std::int64_t i = (z * v.shape[1] + y) * v.shape[2] + x;
            if (v.labels[i] != label) continue;
            const std::int64_t c =
                ((z - extent.box.start[0] + 1) * d[1] + y - extent.box.start[1] + 1) * d[2] + x -
                extent.box.start[2] + 1;
            ASSERT_EQ(std::bit_cast<std::uint32_t>(field[c]),
                      std::bit_cast<std::uint32_t>(whole[i]))
                << "seed " << seed << " label " << label << " at " << z << "," << y << "," << x;
            ++compared;
          }
      EXPECT_EQ(compared, extent.voxels);
    }
  }
}

TEST(SkeletonCrops, SkeletonsFromCropsAreTheWholeVolumesByteForByte) {
  for (unsigned seed = 1; seed <= 5; ++seed) {
    Volume v = RandomVolume(seed + 10, {16, 18 + seed, 20});
    v.voxel_size = {8, 8, 33};
    v.origin = {-12.5, 40, 330};
    TeasarParams params;
    params.constant = 20;
    SkeletonizeVolumeOptions whole_options;
    whole_options.params = params;
    auto whole = SkeletonizeVolume(v.view(), whole_options, "volume");
    ASSERT_TRUE(whole.ok()) << whole.status().ToString();
    ASSERT_GE(whole->size(), 3u);
    const SkeletonSource source = SourceOf(v, {5, 7, 6});
    auto table = ScanChunks(source, 0, CountSourceChunks(source), nullptr, nullptr, nullptr);
    ASSERT_TRUE(table.ok());
    auto work = SelectLabels(*table, {}, "volume");
    ASSERT_TRUE(work.ok());
    CropSkeletonOptions crop_options;
    crop_options.params = params;
    auto crops = SkeletonizeFromSource(source, *work, crop_options, "volume");
    ASSERT_TRUE(crops.ok()) << crops.status().ToString();
    ASSERT_EQ(crops->size(), whole->size());
    for (std::size_t i = 0; i < whole->size(); ++i) {
      EXPECT_EQ((*crops)[i].label, (*whole)[i].label);
      EXPECT_GT((*whole)[i].vertices.size(), 0u);
      EXPECT_EQ(formats::precomputed::EncodeSkeleton((*crops)[i]),
                formats::precomputed::EncodeSkeleton((*whole)[i]))
          << "seed " << seed << " label " << (*whole)[i].label;
    }
  }
}

TEST(SkeletonCrops, BoxesThroughTheChunkCacheAreTheBoxesReadDirectly) {
  const Volume v = RandomVolume(7, {13, 17, 19});
  SkeletonSource source = SourceOf(v, {4, 5, 6});
  int reads = 0;
  const auto direct = source.read;
  source.read = [&](const core::Region& region) {
    ++reads;
    return direct(region);
  };
  std::mt19937 random(3);
  // Room for 3 chunks (evicting), and for none (every box read directly).
  for (const std::uint64_t capacity : {std::uint64_t{3 * 4 * 5 * 6 * 8}, std::uint64_t{8}}) {
    SourceChunks chunks(source, capacity);
    // One buffer for every ReadInto, so each box lands on what earlier,
    // larger or smaller, boxes left there.
    std::vector<std::uint64_t> reused;
    for (int i = 0; i < 200; ++i) {
      VoxelBox box;
      for (int a = 0; a < 3; ++a) {
        std::uniform_int_distribution<std::int64_t> at(0, v.shape[a] - 1);
        const std::int64_t p = at(random), q = at(random);
        box.start[a] = std::min(p, q);
        box.stop[a] = std::max(p, q) + 1;
        if (i % 2 == 0) box.stop[a] = std::min(box.start[a] + 3, v.shape[a]);  // small boxes
      }
      auto got = chunks.Read(box);
      ASSERT_TRUE(got.ok());
      const std::vector<std::uint64_t> expected =
          *direct(core::Region(core::Coord(box.start.begin(), box.start.end()),
                               core::Coord(box.stop.begin(), box.stop.end())));
      ASSERT_EQ(*got, expected) << i;
      ASSERT_TRUE(chunks.ReadInto(box, reused).ok());
      ASSERT_EQ(reused, expected) << i;
      // Row by row, without a copy: every voxel once, where it lies (the
      // boxes over 1.5 chunks, and every box at the smaller capacity, from
      // chunks read without being kept).
      std::vector<std::uint64_t> visited(expected.size(), 0);
      std::vector<int> times(expected.size(), 0);
      const std::int64_t height = box.stop[1] - box.start[1], width = box.stop[2] - box.start[2];
      ASSERT_TRUE(chunks
                      .VisitRows(box,
                                 [&](std::int64_t z, std::int64_t y, std::int64_t x,
                                     const std::uint64_t* labels, std::int64_t n) {
                                   for (std::int64_t k = 0; k < n; ++k) {
                                     const std::int64_t at =
                                         ((z - box.start[0]) * height + y - box.start[1]) * width +
                                         x + k - box.start[2];
                                     visited[at] = labels[k];
                                     ++times[at];
                                   }
                                 })
                      .ok());
      ASSERT_EQ(visited, expected) << i;
      ASSERT_EQ(std::count(times.begin(), times.end(), 1), std::ssize(times)) << i;
    }
  }
  EXPECT_GT(reads, 0);
}

TEST(SkeletonCrops, ALabelOverTheMemoryLimitIsNamedBeforeAnythingIsRead) {
  const Volume v = RandomVolume(3, {10, 10, 10});
  SkeletonSource source = SourceOf(v, {10, 10, 10});
  auto table = ScanChunks(source, 0, 1, nullptr, nullptr, nullptr);
  ASSERT_TRUE(table.ok());
  auto work = SelectLabels(*table, {}, "volume");
  ASSERT_TRUE(work.ok());
  int reads = 0;
  source.read = [&](const core::Region&) -> Result<std::vector<std::uint64_t>> {
    ++reads;
    return Status::Internal("not read");
  };
  CropSkeletonOptions options;
  options.max_memory = 100;
  auto refused = SkeletonizeFromSource(source, *work, options, "volume");
  EXPECT_EQ(refused.status().code(), StatusCode::kResourceExhausted);
  EXPECT_EQ(refused.status().field(), "max_memory");
  EXPECT_NE(refused.status().message().find("label " + std::to_string(work->front().first)),
            std::string::npos)
      << refused.status().ToString();
  EXPECT_EQ(reads, 0);
}

TEST(SkeletonCrops, AVolumeThatChangedSinceTheScanIsCorruption) {
  Volume v = RandomVolume(4, {10, 10, 10});
  const SkeletonSource source = SourceOf(v, {10, 10, 10});
  auto table = ScanChunks(source, 0, 1, nullptr, nullptr, nullptr);
  ASSERT_TRUE(table.ok());
  auto work = SelectLabels(*table, {}, "volume");
  ASSERT_TRUE(work.ok());
  const std::uint64_t label = work->front().first;
  // The label turns up just past its box.
  const LabelExtent& extent = work->front().second;
  bool moved = false;
  for (int a = 0; a < 3 && !moved; ++a) {
    if (extent.box.stop[a] < v.shape[a]) {
      std::array<std::int64_t, 3> at = extent.box.start;
      at[a] = extent.box.stop[a];
      v.labels[(at[0] * v.shape[1] + at[1]) * v.shape[2] + at[2]] = label;
      moved = true;
    }
  }
  ASSERT_TRUE(moved);
  auto refused = SkeletonizeFromSource(source, {work->front()}, {}, "volume");
  EXPECT_EQ(refused.status().code(), StatusCode::kCorruption);
  EXPECT_NE(refused.status().message().find("label " + std::to_string(label)), std::string::npos);
}

}  // namespace
}  // namespace chunkwise::pipelines::skeletons
