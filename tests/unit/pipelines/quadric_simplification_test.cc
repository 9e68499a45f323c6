#include "pipelines/meshing/quadric_simplification.h"

#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <random>
#include <set>
#include <utility>

namespace chunkwise::pipelines {
namespace {

// The surface of a ball of radius `r` voxels centred in an n^3 volume, in voxels.
LabelMesh Ball(std::int64_t n, double r) {
  LabelSource source{{n, n, n},
                     [n, r](const core::Region& box) -> Result<std::vector<std::uint64_t>> {
                       std::vector<std::uint64_t> out;
                       const double c = n / 2.0;
                       for (auto z = box.start()[0]; z < box.stop()[0]; ++z)
                         for (auto y = box.start()[1]; y < box.stop()[1]; ++y)
                           for (auto x = box.start()[2]; x < box.stop()[2]; ++x) {
                             const double dz = z + 0.5 - c, dy = y + 0.5 - c, dx = x + 0.5 - c;
                             out.push_back(dz * dz + dy * dy + dx * dx <= r * r ? 1 : 0);
                           }
                       return out;
                     }};
  MeshingOptions options;
  options.chunk = {8, 8, 8};
  auto meshed = MeshLabels(source, options);
  EXPECT_TRUE(meshed.ok()) << meshed.status().ToString();
  return meshed.ok() ? meshed->meshes.at(1) : LabelMesh{};
}

// A unit cube, 8 corners and 12 triangles, counter-clockwise from outside.
LabelMesh Cube() {
  LabelMesh m;
  for (int i = 0; i < 8; ++i) {
    m.vertices.insert(m.vertices.end(), {float(i & 1), float(i >> 1 & 1), float(i >> 2 & 1)});
  }
  m.triangles = {0, 2, 1, 1, 2, 3, 4, 5, 6, 5, 7, 6, 0, 1, 4, 1, 5, 4,
                 2, 6, 3, 3, 6, 7, 0, 4, 2, 2, 4, 6, 1, 3, 5, 3, 7, 5};
  return m;
}

// An n x n grid of unit squares in the plane z = 0, two triangles each.
LabelMesh Plane(int n) {
  LabelMesh m;
  for (int y = 0; y <= n; ++y) {
    for (int x = 0; x <= n; ++x) m.vertices.insert(m.vertices.end(), {float(x), float(y), 0.f});
  }
  auto at = [n](int x, int y) { return static_cast<std::uint32_t>(y * (n + 1) + x); };
  for (int y = 0; y < n; ++y) {
    for (int x = 0; x < n; ++x) {
      m.triangles.insert(m.triangles.end(), {at(x, y), at(x + 1, y), at(x + 1, y + 1)});
      m.triangles.insert(m.triangles.end(), {at(x, y), at(x + 1, y + 1), at(x, y + 1)});
    }
  }
  return m;
}

using Point = std::array<float, 3>;

Point VertexOf(const LabelMesh& m, std::size_t v) {
  return {m.vertices[3 * v], m.vertices[3 * v + 1], m.vertices[3 * v + 2]};
}

// Each directed edge once and its reverse once: closed and consistently oriented.
bool Watertight(const LabelMesh& m) {
  std::map<std::pair<std::uint32_t, std::uint32_t>, int> directed;
  for (std::size_t t = 0; t < m.num_triangles(); ++t) {
    for (int k = 0; k < 3; ++k) {
      ++directed[{m.triangles[3 * t + k], m.triangles[3 * t + (k + 1) % 3]}];
    }
  }
  for (const auto& [edge, count] : directed) {
    if (count != 1) return false;
    auto reverse = directed.find({edge.second, edge.first});
    if (reverse == directed.end() || reverse->second != 1) return false;
  }
  return !directed.empty();
}

long Euler(const LabelMesh& m) {
  std::set<std::pair<std::uint32_t, std::uint32_t>> edges;
  for (std::size_t t = 0; t < m.num_triangles(); ++t) {
    for (int k = 0; k < 3; ++k) {
      edges.insert(std::minmax(m.triangles[3 * t + k], m.triangles[3 * t + (k + 1) % 3]));
    }
  }
  return static_cast<long>(m.num_vertices()) - static_cast<long>(edges.size()) +
         static_cast<long>(m.num_triangles());
}

TEST(QuadricSimplification, ACubeKeepsItsTwelveTriangles) {
  const LabelMesh cube = Cube();
  SimplificationOptions options;
  options.max_error = 0.01;
  options.reduction_factor = 0;
  const LabelMesh out = SimplifyMesh(cube, options);
  EXPECT_EQ(out.num_triangles(), 12u);
  std::set<Point> before, after;
  for (std::size_t v = 0; v < 8; ++v) before.insert(VertexOf(cube, v));
  for (std::size_t v = 0; v < out.num_vertices(); ++v) after.insert(VertexOf(out, v));
  EXPECT_EQ(after, before);
  EXPECT_TRUE(Watertight(out));
}

TEST(QuadricSimplification, AnErrorOfZeroChangesNothing) {
  const LabelMesh ball = Ball(24, 9);
  SimplificationOptions options;
  options.max_error = 0;
  const LabelMesh out = SimplifyMesh(ball, options);
  EXPECT_EQ(out.vertices, ball.vertices);
  EXPECT_EQ(out.triangles, ball.triangles);
}

TEST(QuadricSimplification, AFlatPlaneKeepsOnlyItsBorder) {
  const LabelMesh plane = Plane(20);  // 800 triangles, 80 vertices on the border.
  SimplificationOptions options;
  options.max_error = 0.001;
  options.reduction_factor = 0;
  const LabelMesh out = SimplifyMesh(plane, options);
  // A polygon of 80 corners needs 78 triangles; the interior goes, the border stays.
  EXPECT_LE(out.num_triangles(), 90u);
  EXPECT_GE(out.num_triangles(), 78u);
  std::set<Point> border, kept;
  for (std::size_t v = 0; v < plane.num_vertices(); ++v) {
    const Point p = VertexOf(plane, v);
    if (p[0] == 0 || p[0] == 20 || p[1] == 0 || p[1] == 20) border.insert(p);
  }
  for (std::size_t v = 0; v < out.num_vertices(); ++v) {
    const Point p = VertexOf(out, v);
    kept.insert(p);
    EXPECT_EQ(p[2], 0.f);
  }
  EXPECT_EQ(border.size(), 80u);
  for (const Point& p : border) EXPECT_TRUE(kept.count(p)) << p[0] << "," << p[1];
  double area = 0;  // The plane is still covered once, facing up.
  for (std::size_t t = 0; t < out.num_triangles(); ++t) {
    const Point a = VertexOf(out, out.triangles[3 * t]),
                b = VertexOf(out, out.triangles[3 * t + 1]),
                c = VertexOf(out, out.triangles[3 * t + 2]);
    area += 0.5 * ((b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0]));
  }
  EXPECT_NEAR(area, 400.0, 1e-3);
}

TEST(QuadricSimplification, ABallStaysClosedAndWithinTheError) {
  const LabelMesh ball = Ball(32, 12);
  ASSERT_TRUE(Watertight(ball));
  SimplificationOptions options;
  options.max_error = 1.0;
  options.reduction_factor = 0;
  const LabelMesh out = SimplifyMesh(ball, options);
  EXPECT_LT(out.num_triangles() * 4, ball.num_triangles());
  EXPECT_TRUE(Watertight(out));
  EXPECT_EQ(Euler(out), 2);
  // Every vertex is within the error (and the half voxel marching cubes cuts
  // corners by) of the ball's surface.
  for (std::size_t v = 0; v < out.num_vertices(); ++v) {
    const Point p = VertexOf(out, v);
    const double r = std::sqrt((p[0] - 16) * (p[0] - 16) + (p[1] - 16) * (p[1] - 16) +
                               (p[2] - 16) * (p[2] - 16));
    EXPECT_LE(std::abs(r - 12), 1.0 + 0.9) << v;
  }
}

TEST(QuadricSimplification, TheReductionFactorStopsEarlier) {
  const LabelMesh ball = Ball(32, 12);
  SimplificationOptions options;
  options.max_error = 100;
  options.reduction_factor = 10;
  const LabelMesh out = SimplifyMesh(ball, options);
  const std::size_t target = (ball.num_triangles() + 9) / 10;
  EXPECT_LE(out.num_triangles(), target);
  EXPECT_GE(out.num_triangles() + 2, target);
  EXPECT_TRUE(Watertight(out));
}

TEST(QuadricSimplification, ThePhysicalScaleSetsTheError) {
  const LabelMesh ball = Ball(32, 12);
  SimplificationOptions voxels;
  voxels.max_error = 1.0;
  voxels.reduction_factor = 0;
  SimplificationOptions nanometres = voxels;
  nanometres.scale = {8, 8, 8};
  nanometres.max_error = 8.0;  // The same bound, in units 8 times smaller.
  EXPECT_EQ(SimplifyMesh(ball, voxels).num_triangles(),
            SimplifyMesh(ball, nanometres).num_triangles());
}

// The error only bounds the collapses: the same ball in units 8 times
// smaller (nanometres at 8 nm a voxel), with the same error, which binds in
// neither, comes out as the same triangles at 8 times the coordinates (a
// scale of 2^k is exact in floating point). The legacy meshes (nm) and a
// zarr source's vectors store (voxels) rely on it.
TEST(QuadricSimplification, TheErrorOnlyBoundsTheCollapses) {
  const LabelMesh ball = Ball(32, 12);
  LabelMesh scaled = ball;
  for (float& x : scaled.vertices) x *= 8;
  SimplificationOptions options;
  options.max_error = 40;
  options.reduction_factor = 20;
  const LabelMesh voxels = SimplifyMesh(ball, options);
  const LabelMesh nanometres = SimplifyMesh(scaled, options);
  ASSERT_LT(voxels.num_triangles() * 10, ball.num_triangles());
  EXPECT_EQ(nanometres.triangles, voxels.triangles);
  ASSERT_EQ(nanometres.vertices.size(), voxels.vertices.size());
  for (std::size_t i = 0; i < voxels.vertices.size(); ++i) {
    EXPECT_EQ(nanometres.vertices[i], 8 * voxels.vertices[i]) << i;
  }
}

// Random labels give meshes with many pinched vertices and tiny parts:
// simplified (whole, and on a sliding grid), each stays closed and oriented
// with its Euler characteristic, and no triangle has a repeated corner.
TEST(QuadricSimplification, RandomLabelsStayClosedWithTheirTopology) {
  constexpr std::int64_t n = 14;
  std::mt19937 random(7);
  std::vector<std::uint64_t> labels(n * n * n);
  for (auto& label : labels) label = random() % 3;
  LabelSource source{{n, n, n}, [&](const core::Region& box) -> Result<std::vector<std::uint64_t>> {
                       std::vector<std::uint64_t> out;
                       for (auto z = box.start()[0]; z < box.stop()[0]; ++z)
                         for (auto y = box.start()[1]; y < box.stop()[1]; ++y)
                           for (auto x = box.start()[2]; x < box.stop()[2]; ++x)
                             out.push_back(labels[(z * n + y) * n + x]);
                       return out;
                     }};
  MeshingOptions meshing;
  meshing.chunk = {5, 6, 7};
  auto meshed = MeshLabels(source, meshing);
  ASSERT_TRUE(meshed.ok()) << meshed.status().ToString();
  ASSERT_EQ(meshed->meshes.size(), 2u);
  for (const auto& [label, mesh] : meshed->meshes) {
    ASSERT_TRUE(Watertight(mesh));
    for (const bool on_grid : {false, true}) {
      SCOPED_TRACE(label * 10 + on_grid);
      SimplificationOptions options;
      options.max_error = 1.5;
      options.reduction_factor = 0;
      if (on_grid) options.grid = SimplificationGrid{{-0.5, -0.5, -0.5}, {4, 4, 4}, true};
      const LabelMesh out = SimplifyMesh(mesh, options);
      EXPECT_LT(out.num_triangles(), mesh.num_triangles());
      EXPECT_TRUE(Watertight(out));
      EXPECT_EQ(Euler(out), Euler(mesh));
      for (std::size_t t = 0; t < out.num_triangles(); ++t) {
        const std::uint32_t* c = &out.triangles[3 * t];
        EXPECT_TRUE(c[0] != c[1] && c[1] != c[2] && c[0] != c[2]) << t;
      }
    }
  }
}

// Vertices on the grid's planes, by plane coordinate: fixed, they all stay;
// sliding, they stay on their planes and every triangle within one cell.
TEST(QuadricSimplification, GridVerticesStayOnTheirPlanes) {
  const LabelMesh ball = Ball(32, 12);
  const SimplificationGrid grid{{-0.5, -0.5, -0.5}, {8, 8, 8}, false};
  auto on_plane = [&](float x) {
    const double r = (x - grid.origin[0]) / grid.cell[0];
    return std::abs(r - std::round(r)) < 1e-4;
  };
  std::set<Point> before;
  for (std::size_t v = 0; v < ball.num_vertices(); ++v) {
    const Point p = VertexOf(ball, v);
    if (on_plane(p[0]) || on_plane(p[1]) || on_plane(p[2])) before.insert(p);
  }
  ASSERT_GT(before.size(), 100u);
  SimplificationOptions options;
  options.max_error = 1.0;
  options.reduction_factor = 0;
  options.grid = grid;
  const LabelMesh fixed = SimplifyMesh(ball, options);
  std::set<Point> after;
  for (std::size_t v = 0; v < fixed.num_vertices(); ++v) after.insert(VertexOf(fixed, v));
  for (const Point& p : before) EXPECT_TRUE(after.count(p));
  EXPECT_TRUE(Watertight(fixed));
  EXPECT_LT(fixed.num_triangles(), ball.num_triangles());

  options.grid->slide = true;
  const LabelMesh slid = SimplifyMesh(ball, options);
  EXPECT_TRUE(Watertight(slid));
  EXPECT_LT(slid.num_triangles(), fixed.num_triangles());
  for (std::size_t t = 0; t < slid.num_triangles(); ++t) {
    for (int d = 0; d < 3; ++d) {
      double lo = 1e9, hi = -1e9;
      for (int k = 0; k < 3; ++k) {
        const double x = (slid.vertices[3 * slid.triangles[3 * t + k] + d] + 0.5) / 8;
        lo = std::min(lo, x);
        hi = std::max(hi, x);
      }
      EXPECT_LE(std::ceil(hi - 1 - 1e-6), std::floor(lo + 1e-6)) << "triangle " << t;
    }
  }
}

}  // namespace
}  // namespace chunkwise::pipelines
