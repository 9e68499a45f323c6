#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "pipelines/skeletons/teasar.h"

namespace chunkwise::pipelines::skeletons {
namespace {

struct Volume {
  std::array<std::int64_t, 3> shape;  // z, y, x
  std::vector<std::uint64_t> labels;
  std::array<double, 3> voxel_size{1, 1, 1};
  explicit Volume(std::array<std::int64_t, 3> s) : shape(s), labels(s[0] * s[1] * s[2], 0) {}
  std::uint64_t& at(std::int64_t z, std::int64_t y, std::int64_t x) {
    return labels[(z * shape[1] + y) * shape[2] + x];
  }
  LabelVolume view() const { return {labels, shape, voxel_size, {0, 0, 0}}; }
};

// Distance from point p to the segment a-b (all z, y, x in voxels).
double SegmentDistance(std::array<double, 3> p, std::array<double, 3> a, std::array<double, 3> b) {
  double ab2 = 0, t = 0;
  for (int k = 0; k < 3; ++k) {
    ab2 += (b[k] - a[k]) * (b[k] - a[k]);
    t += (p[k] - a[k]) * (b[k] - a[k]);
  }
  t = ab2 > 0 ? std::clamp(t / ab2, 0.0, 1.0) : 0.0;
  double d2 = 0;
  for (int k = 0; k < 3; ++k) {
    const double e = p[k] - (a[k] + t * (b[k] - a[k]));
    d2 += e * e;
  }
  return std::sqrt(d2);
}

void DrawTube(Volume& v, std::uint64_t label, std::array<double, 3> a, std::array<double, 3> b,
              double radius) {
  for (std::int64_t z = 0; z < v.shape[0]; ++z)
    for (std::int64_t y = 0; y < v.shape[1]; ++y)
      for (std::int64_t x = 0; x < v.shape[2]; ++x)
        if (SegmentDistance({double(z), double(y), double(x)}, a, b) <= radius)
          v.at(z, y, x) = label;
}

Skeleton Only(const Volume& v, std::uint64_t label, const TeasarParams& params) {
  const auto labels = FindLabels(v.view());
  EXPECT_EQ(labels.count(label), 1u);
  return SkeletonizeLabel(v.view(), label, labels.at(label).box, params);
}

std::vector<int> Degrees(const Skeleton& s) {
  std::vector<int> degree(s.vertices.size(), 0);
  for (const auto& [a, b] : s.edges) {
    ++degree[a];
    ++degree[b];
  }
  return degree;
}

// Every vertex lies in a voxel of its label.
void ExpectInside(const Volume& v, const Skeleton& s) {
  for (const auto& p : s.vertices) {
    const auto x = static_cast<std::int64_t>(std::floor(p[0] / v.voxel_size[0]));
    const auto y = static_cast<std::int64_t>(std::floor(p[1] / v.voxel_size[1]));
    const auto z = static_cast<std::int64_t>(std::floor(p[2] / v.voxel_size[2]));
    ASSERT_GE(x, 0);
    ASSERT_LT(x, v.shape[2]);
    ASSERT_GE(y, 0);
    ASSERT_LT(y, v.shape[1]);
    ASSERT_GE(z, 0);
    ASSERT_LT(z, v.shape[0]);
    EXPECT_EQ(v.labels[(z * v.shape[1] + y) * v.shape[2] + x], s.label)
        << "vertex " << p[0] << "," << p[1] << "," << p[2];
  }
}

TEST(Teasar, StraightTubeIsOnePathAlongItsAxis) {
  Volume v({24, 24, 80});
  DrawTube(v, 7, {12, 12, 5}, {12, 12, 74}, 5.0);
  const Skeleton s = Only(v, 7, TeasarParams{});
  ASSERT_GE(s.vertices.size(), 50u);
  EXPECT_EQ(s.edges.size(), s.vertices.size() - 1);
  const std::vector<int> degree = Degrees(s);
  EXPECT_EQ(std::count(degree.begin(), degree.end(), 1), 2);
  EXPECT_EQ(*std::max_element(degree.begin(), degree.end()), 2);
  ExpectInside(v, s);
  std::vector<float> middle_radii;
  for (std::size_t i = 0; i < s.vertices.size(); ++i) {
    const auto& p = s.vertices[i];
    // On the axis (y = z = 12.5 at voxel centres): within a voxel away from
    // the ends, within the cap's curve at them (the root is on its rim).
    const double slack = p[0] > 12 && p[0] < 68 ? 1.0 : 3.0;
    EXPECT_NEAR(p[1], 12.5, slack);
    EXPECT_NEAR(p[2], 12.5, slack);
    if (p[0] > 20 && p[0] < 60) middle_radii.push_back(s.radii[i]);
  }
  ASSERT_FALSE(middle_radii.empty());
  for (float r : middle_radii) EXPECT_NEAR(r, 5.5, 1.0);  // the next voxel out is 6 away
  // The path runs nearly end to end.
  EXPECT_GT(CableLength(s), 60.0);
  EXPECT_LT(CableLength(s), 85.0);
}

TEST(Teasar, AnisotropicTubeRadiusIsPhysical) {
  Volume v({60, 20, 20});
  v.voxel_size = {8, 8, 40};  // x, y, z
  // A tube along z of physical radius 48 (6 voxels in x and y).
  for (std::int64_t z = 5; z < 55; ++z)
    for (std::int64_t y = 0; y < 20; ++y)
      for (std::int64_t x = 0; x < 20; ++x)
        if (std::hypot(y - 10.0, x - 10.0) <= 6.0) v.at(z, y, x) = 3;
  TeasarParams params;
  params.constant = 100;
  const Skeleton s = Only(v, 3, params);
  ExpectInside(v, s);
  const std::vector<int> degree = Degrees(s);
  EXPECT_EQ(std::count(degree.begin(), degree.end(), 1), 2);
  for (std::size_t i = 0; i < s.vertices.size(); ++i) {
    if (s.vertices[i][2] > 15 * 40 && s.vertices[i][2] < 45 * 40) {
      EXPECT_NEAR(s.radii[i], 52, 8);
    }
  }
  EXPECT_NEAR(CableLength(s), 49 * 40, 3 * 40);
}

TEST(Teasar, YShapeHasThreeBranches) {
  Volume v({12, 120, 120});
  v.voxel_size = {10, 10, 10};
  const std::array<double, 3> centre{6, 60, 60};
  DrawTube(v, 9, centre, {6, 60, 3}, 4.0);
  DrawTube(v, 9, centre, {6, 10, 110}, 4.0);
  DrawTube(v, 9, centre, {6, 110, 110}, 4.0);
  const Skeleton s = Only(v, 9, TeasarParams{});
  ExpectInside(v, s);
  const std::vector<int> degree = Degrees(s);
  EXPECT_EQ(std::count(degree.begin(), degree.end(), 1), 3);
  EXPECT_EQ(std::count_if(degree.begin(), degree.end(), [](int d) { return d >= 3; }), 1);
  EXPECT_EQ(s.edges.size(), s.vertices.size() - 1);  // a tree
}

TEST(Teasar, EachComponentAndLabelGetsItsOwnTree) {
  Volume v({10, 40, 40});
  DrawTube(v, 1, {5, 5, 5}, {5, 5, 35}, 2.5);
  DrawTube(v, 1, {5, 30, 5}, {5, 30, 35}, 2.5);  // a second component of label 1
  DrawTube(v, 2, {5, 18, 5}, {5, 18, 35}, 2.5);
  v.at(0, 0, 0) = 5;  // a single voxel
  const auto labels = FindLabels(v.view());
  ASSERT_EQ(labels.size(), 3u);
  EXPECT_EQ(labels.at(5).voxels, 1u);
  TeasarParams params;
  params.constant = 2;
  for (const auto& [label, extent] : labels) {
    const Skeleton s = SkeletonizeLabel(v.view(), label, extent.box, params);
    ExpectInside(v, s);
    const std::size_t trees = label == 1 ? 2 : 1;
    EXPECT_EQ(s.edges.size() + trees, s.vertices.size()) << "label " << label;
  }
}

// Each voxel's distance to the nearest voxel of another label (or outside the
// volume), the slow way.
float BruteForceDistance(const Volume& v, std::int64_t z, std::int64_t y, std::int64_t x) {
  const std::uint64_t label = v.labels[(z * v.shape[1] + y) * v.shape[2] + x];
  if (label == 0) return 0;
  double best = std::numeric_limits<double>::infinity();
  for (std::int64_t qz = -1; qz <= v.shape[0]; ++qz) {
    for (std::int64_t qy = -1; qy <= v.shape[1]; ++qy) {
      for (std::int64_t qx = -1; qx <= v.shape[2]; ++qx) {
        const bool outside =
            qz < 0 || qy < 0 || qx < 0 || qz == v.shape[0] || qy == v.shape[1] || qx == v.shape[2];
        if (!outside && v.labels[(qz * v.shape[1] + qy) * v.shape[2] + qx] == label) continue;
        const double ex = double(qx - x) * v.voxel_size[0], ey = double(qy - y) * v.voxel_size[1],
                     ez = double(qz - z) * v.voxel_size[2];
        best = std::min(best, ex * ex + ey * ey + ez * ez);
      }
    }
  }
  return static_cast<float>(std::sqrt(best));
}

// The field of every label at once equals each label's own field, with
// touching labels, label 0, the volume's faces and anisotropic voxels.
TEST(Teasar, BoundaryDistanceOfAllLabelsIsEachLabelsOwn) {
  Volume v({9, 13, 17});
  v.voxel_size = {4, 4, 40};
  DrawTube(v, 3, {4, 6, 0}, {4, 6, 16}, 4.5);
  DrawTube(v, 7, {0, 0, 8}, {8, 12, 8}, 3.5);                // crosses label 3, touching it
  for (std::int64_t x = 0; x < 17; ++x) v.at(8, 12, x) = 9;  // a row on two faces
  v.at(4, 6, 3) = 0;                                         // a hole inside label 3
  core::ThreadPool pool(2);
  const std::vector<float> field = DistanceToBoundary(v.view(), &pool);
  ASSERT_EQ(field.size(), v.labels.size());
  std::size_t checked = 0;
  for (std::int64_t z = 0; z < v.shape[0]; ++z) {
    for (std::int64_t y = 0; y < v.shape[1]; ++y) {
      for (std::int64_t x = 0; x < v.shape[2]; ++x, ++checked) {
        ASSERT_FLOAT_EQ(field[checked], BruteForceDistance(v, z, y, x))
            << "voxel z " << z << " y " << y << " x " << x;
      }
    }
  }
  EXPECT_EQ(DistanceToBoundary(v.view(), nullptr), field);
}

// A workspace carried from label to label (as each thread of
// SkeletonizeVolume carries one) gives the skeletons a fresh one gives.
TEST(Teasar, AReusedWorkspaceGivesWhatAFreshOneGives) {
  Volume v({10, 40, 40});
  DrawTube(v, 1, {5, 5, 5}, {5, 35, 35}, 3.5);  // the largest box first
  DrawTube(v, 2, {5, 20, 5}, {5, 20, 15}, 2.5);
  DrawTube(v, 3, {2, 30, 2}, {8, 30, 30}, 2.5);
  const auto labels = FindLabels(v.view());
  const std::vector<float> field = DistanceToBoundary(v.view());
  TeasarParams params;
  params.constant = 2;
  TeasarWorkspacePtr carried = NewTeasarWorkspace();
  for (int round = 0; round < 2; ++round) {
    for (const auto& [label, extent] : labels) {
      const Skeleton fresh = SkeletonizeLabel(v.view(), label, extent.box, params);
      const Skeleton reused =
          SkeletonizeLabel(v.view(), field, label, extent.box, params, *carried);
      ASSERT_FALSE(fresh.vertices.empty()) << "label " << label;
      EXPECT_EQ(reused.vertices, fresh.vertices) << "label " << label << " round " << round;
      EXPECT_EQ(reused.edges, fresh.edges) << "label " << label << " round " << round;
      EXPECT_EQ(reused.radii, fresh.radii) << "label " << label << " round " << round;
    }
  }
}

// The field of a mask, which looks only under its 1s' rows and columns, is
// the field of the same mask as a volume of labels 0 and 1, float for float,
// 0 off the mask: sparse masks with empty planes, rows and columns, pieces
// apart, holes, voxels on every face, anisotropic voxels, with and without
// a pool.
TEST(Teasar, MaskBoundaryDistanceIsTheFieldOfTheMaskAsLabels) {
  std::uint32_t state = 12345;
  const auto next = [&] {
    state = state * 1664525u + 1013904223u;
    return state >> 8;
  };
  core::ThreadPool pool(2);
  for (int round = 0; round < 12; ++round) {
    Volume v({3 + round % 5, 7 + round, 11 + 2 * (round % 4)});
    v.voxel_size = {4, 4.5, 40.0 / (1 + round % 3)};
    // A few tubes, then some voxels cleared and some scattered alone.
    for (int t = 0; t < 1 + round % 3; ++t) {
      const std::array<double, 3> a{double(next() % v.shape[0]), double(next() % v.shape[1]),
                                    double(next() % v.shape[2])};
      const std::array<double, 3> b{double(next() % v.shape[0]), double(next() % v.shape[1]),
                                    double(next() % v.shape[2])};
      DrawTube(v, 1, a, b, 0.5 + (next() % 30) / 10.0);
    }
    for (std::uint64_t& label : v.labels) {
      if (next() % 10 == 0) label = 0;
      if (next() % 50 == 0) label = 1;
    }
    const std::vector<std::uint8_t> mask(v.labels.begin(), v.labels.end());
    const std::vector<float> expected = DistanceToBoundary(v.view());
    for (core::ThreadPool* with : {static_cast<core::ThreadPool*>(nullptr), &pool}) {
      const std::vector<float> got = MaskDistanceToBoundary(mask, v.shape, v.voxel_size, with);
      ASSERT_EQ(got.size(), expected.size());
      for (std::size_t i = 0; i < got.size(); ++i) {
        ASSERT_EQ(std::bit_cast<std::uint32_t>(got[i]), std::bit_cast<std::uint32_t>(expected[i]))
            << "round " << round << " voxel " << i << " mask " << int(mask[i]);
      }
    }
  }
}

}  // namespace
}  // namespace chunkwise::pipelines::skeletons
