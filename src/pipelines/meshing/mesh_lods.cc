#include "pipelines/meshing/mesh_lods.h"

#include <cmath>
#include <map>
#include <vector>

namespace chunkwise::pipelines {
namespace {

// Per axis: (plane index, -1) for a vertex on a plane of the parent grid,
// else (parent cell, cluster within it).
using ClusterKey = std::array<std::int64_t, 6>;

ClusterKey KeyOf(const float* vertex, const LodGrid& grid, int lod) {
  ClusterKey key{};
  for (int d = 0; d < 3; ++d) {
    const double cluster = std::ldexp(grid.voxel[d], lod);
    const double parent = grid.cell[d] * std::ldexp(1.0, lod - 1);
    const double from_origin = vertex[d] - grid.origin[d];
    const double r = from_origin / parent;
    const double nearest = std::round(r);
    if (std::abs(r - nearest) * parent < 1e-4) {
      key[2 * d] = static_cast<std::int64_t>(nearest);
      key[2 * d + 1] = -1;
    } else {
      const double cell = std::floor(r);
      key[2 * d] = static_cast<std::int64_t>(cell);
      key[2 * d + 1] =
          static_cast<std::int64_t>(std::floor((from_origin - cell * parent) / cluster));
    }
  }
  return key;
}

}  // namespace

LabelMesh SimplifyForLod(const LabelMesh& full, const LodGrid& grid, int lod) {
  std::map<ClusterKey, std::uint32_t> clusters;
  std::vector<std::uint32_t> cluster_of(full.num_vertices());
  std::vector<std::array<double, 3>> sums;
  std::vector<std::uint32_t> counts;
  for (std::size_t v = 0; v < full.num_vertices(); ++v) {
    const float* p = &full.vertices[3 * v];
    auto [it, added] =
        clusters.try_emplace(KeyOf(p, grid, lod), static_cast<std::uint32_t>(sums.size()));
    if (added) {
      sums.push_back({0, 0, 0});
      counts.push_back(0);
    }
    cluster_of[v] = it->second;
    for (int d = 0; d < 3; ++d) sums[it->second][d] += p[d];
    ++counts[it->second];
  }
  // Only clusters some triangle keeps become vertices, numbered as first used.
  LabelMesh out;
  std::vector<std::int64_t> index(sums.size(), -1);
  for (std::size_t t = 0; t + 2 < full.triangles.size(); t += 3) {
    const std::uint32_t a = cluster_of[full.triangles[t]];
    const std::uint32_t b = cluster_of[full.triangles[t + 1]];
    const std::uint32_t c = cluster_of[full.triangles[t + 2]];
    if (a == b || b == c || a == c) continue;
    for (const std::uint32_t k : {a, b, c}) {
      if (index[k] < 0) {
        index[k] = static_cast<std::int64_t>(out.num_vertices());
        for (int d = 0; d < 3; ++d) {
          out.vertices.push_back(static_cast<float>(sums[k][d] / counts[k]));
        }
      }
      out.triangles.push_back(static_cast<std::uint32_t>(index[k]));
    }
  }
  return out;
}

}  // namespace chunkwise::pipelines
