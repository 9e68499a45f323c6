#include "pipelines/meshing/mesh_lods.h"

#include <gtest/gtest.h>

#include <cmath>

namespace chunkwise::pipelines {
namespace {

// The surface of a ball of radius 9 voxels centred at (12, 12, 12) in a 24^3 volume, in voxels.
LabelMesh Ball() {
  constexpr std::int64_t n = 24;
  LabelSource source{{n, n, n}, [](const core::Region& r) -> Result<std::vector<std::uint64_t>> {
                       std::vector<std::uint64_t> out;
                       for (auto z = r.start()[0]; z < r.stop()[0]; ++z)
                         for (auto y = r.start()[1]; y < r.stop()[1]; ++y)
                           for (auto x = r.start()[2]; x < r.stop()[2]; ++x) {
                             const double dz = z + 0.5 - 12, dy = y + 0.5 - 12, dx = x + 0.5 - 12;
                             out.push_back(dz * dz + dy * dy + dx * dx <= 81 ? 1 : 0);
                           }
                       return out;
                     }};
  MeshingOptions options;
  options.chunk = {8, 8, 8};
  auto meshed = MeshLabels(source, options);
  EXPECT_TRUE(meshed.ok()) << meshed.status().ToString();
  return meshed.ok() ? meshed->meshes.at(1) : LabelMesh{};
}

// True when the triangle's corners all lie in one closed cell of size `cell` from `origin`.
bool InOneCell(const LabelMesh& mesh, std::size_t t, double origin, double cell) {
  for (int d = 0; d < 3; ++d) {
    double lo = 1e9, hi = -1e9;
    for (int k = 0; k < 3; ++k) {
      const double x = (mesh.vertices[3 * mesh.triangles[3 * t + k] + d] - origin) / cell;
      lo = std::min(lo, x);
      hi = std::max(hi, x);
    }
    // Some integer c has c <= lo and hi <= c + 1.
    if (std::ceil(hi - 1 - 1e-6) > std::floor(lo + 1e-6)) return false;
  }
  return true;
}

TEST(MeshLods, ClusteringKeepsFewerVerticesInsideTheLabelsBox) {
  const LabelMesh full = Ball();
  ASSERT_GT(full.num_triangles(), 1000u);
  const LodGrid grid{{-0.5, -0.5, -0.5}, {8, 8, 8}};
  std::size_t before = full.num_vertices();
  for (int lod = 1; lod <= 3; ++lod) {
    const LabelMesh coarse = SimplifyForLod(full, grid, lod);
    ASSERT_GT(coarse.num_triangles(), 0u) << "lod " << lod;
    EXPECT_LT(coarse.num_vertices(), before) << "lod " << lod;
    before = coarse.num_vertices();
    for (const float v : coarse.vertices) {
      EXPECT_GE(v, 2.5f);
      EXPECT_LE(v, 21.5f);
    }
    for (std::size_t t = 0; t < coarse.num_triangles(); ++t) {
      const std::uint32_t* c = &coarse.triangles[3 * t];
      ASSERT_TRUE(c[0] != c[1] && c[1] != c[2] && c[0] != c[2]) << "degenerate triangle " << t;
      // No triangle crosses a fragment of the level below (cells of 8 * 2^(lod-1)).
      ASSERT_TRUE(InOneCell(coarse, t, -0.5, 8.0 * std::ldexp(1.0, lod - 1)))
          << "lod " << lod << " triangle " << t;
    }
  }
}

TEST(MeshLods, VerticesOnAPlaneOfTheGridStayOnIt) {
  const LabelMesh full = Ball();
  const LodGrid grid{{-0.5, -0.5, -0.5}, {8, 8, 8}};
  const LabelMesh coarse = SimplifyForLod(full, grid, 2);  // Planes every 16 from -0.5.
  std::size_t on_plane = 0;
  for (std::size_t v = 0; v < full.num_vertices(); ++v) {
    on_plane += full.vertices[3 * v] == 15.5f;
  }
  std::size_t kept = 0;
  for (std::size_t v = 0; v < coarse.num_vertices(); ++v) kept += coarse.vertices[3 * v] == 15.5f;
  EXPECT_GT(on_plane, 0u);
  EXPECT_GT(kept, 0u);
  EXPECT_LT(kept, on_plane);
}

}  // namespace
}  // namespace chunkwise::pipelines
