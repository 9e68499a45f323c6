#include "pipelines/skeletons/blocked_skeleton.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <set>
#include <tuple>
#include <type_traits>
#include <utility>

namespace chunkwise::pipelines::skeletons {
namespace {

// The blocks' [start, stop) along one axis of [first, last): `core` voxels
// each, every block starting on the last plane of the one before.
std::vector<std::pair<std::int64_t, std::int64_t>> Spans(std::int64_t first, std::int64_t last,
                                                         std::int64_t core) {
  std::vector<std::pair<std::int64_t, std::int64_t>> spans;
  for (std::int64_t start = first;; start += core - 1) {
    const std::int64_t stop = std::min(start + core, last);
    spans.emplace_back(start, stop);
    if (stop == last) break;
  }
  return spans;
}

// A box's voxels as flat indexes.
struct Grid {
  std::array<std::int64_t, 3> start{}, dims{};
  std::int64_t Index(std::int64_t z, std::int64_t y, std::int64_t x) const {
    return ((z - start[0]) * dims[1] + (y - start[1])) * dims[2] + (x - start[2]);
  }
  std::int64_t Index(const std::array<std::int64_t, 3>& at) const {
    return Index(at[0], at[1], at[2]);
  }
  std::uint64_t voxels() const {
    return static_cast<std::uint64_t>(dims[0]) * static_cast<std::uint64_t>(dims[1]) *
           static_cast<std::uint64_t>(dims[2]);
  }
};

// The anchor voxel of each cross-section of the label on plane `at` of axis
// `axis`, over the block `core`'s extent on the other two axes. Reads only
// the plane's voxels (from `mask` over `grid`), so the block on the other
// side of the plane finds the same anchors.
void AddFaceAnchors(const std::vector<std::uint8_t>& mask, const Grid& grid, const VoxelBox& core,
                    int axis, std::int64_t at, std::vector<std::array<std::int64_t, 3>>& anchors) {
  const int u_axis = axis == 0 ? 1 : 0, v_axis = axis == 2 ? 1 : 2;
  const std::int64_t nu = core.stop[u_axis] - core.start[u_axis];
  const std::int64_t nv = core.stop[v_axis] - core.start[v_axis];
  auto voxel = [&](std::int64_t u, std::int64_t v) {
    std::array<std::int64_t, 3> p{};
    p[axis] = at;
    p[u_axis] = core.start[u_axis] + u;
    p[v_axis] = core.start[v_axis] + v;
    return p;
  };
  std::vector<std::uint8_t> in(static_cast<std::size_t>(nu * nv));
  for (std::int64_t u = 0; u < nu; ++u) {
    for (std::int64_t v = 0; v < nv; ++v) in[u * nv + v] = mask[grid.Index(voxel(u, v))];
  }
  auto inside = [&](std::int64_t u, std::int64_t v) {
    return u >= 0 && u < nu && v >= 0 && v < nv && in[u * nv + v];
  };
  // Depth: steps (4-connected) from the section's edge, edge voxels 1.
  std::vector<std::int32_t> depth(in.size(), 0);
  std::vector<std::int64_t> queue;
  constexpr std::array<std::array<int, 2>, 4> kFour{{{-1, 0}, {1, 0}, {0, -1}, {0, 1}}};
  for (std::int64_t u = 0; u < nu; ++u) {
    for (std::int64_t v = 0; v < nv; ++v) {
      if (!in[u * nv + v]) continue;
      for (const auto& d : kFour) {
        if (!inside(u + d[0], v + d[1])) {
          depth[u * nv + v] = 1;
          queue.push_back(u * nv + v);
          break;
        }
      }
    }
  }
  for (std::size_t next = 0; next < queue.size(); ++next) {
    const std::int64_t u = queue[next] / nv, v = queue[next] % nv;
    for (const auto& d : kFour) {
      const std::int64_t a = u + d[0], b = v + d[1];
      if (!inside(a, b) || depth[a * nv + b] != 0) continue;
      depth[a * nv + b] = depth[u * nv + v] + 1;
      queue.push_back(a * nv + b);
    }
  }
  // Sections (8-connected), each with its deepest voxel, the first in C order on ties.
  std::vector<std::uint8_t> taken(in.size(), 0);
  std::vector<std::int64_t> section;
  for (std::int64_t first = 0; first < nu * nv; ++first) {
    if (!in[first] || taken[first]) continue;
    section.assign(1, first);
    taken[first] = 1;
    std::int64_t best = first;
    for (std::size_t next = 0; next < section.size(); ++next) {
      const std::int64_t u = section[next] / nv, v = section[next] % nv;
      const std::int64_t i = section[next];
      if (depth[i] > depth[best] || (depth[i] == depth[best] && i < best)) best = i;
      for (int du = -1; du <= 1; ++du) {
        for (int dv = -1; dv <= 1; ++dv) {
          const std::int64_t a = u + du, b = v + dv;
          if (!inside(a, b) || taken[a * nv + b]) continue;
          taken[a * nv + b] = 1;
          section.push_back(a * nv + b);
        }
      }
    }
    anchors.push_back(voxel(best / nv, best % nv));
  }
}

std::uint64_t BytesOf(const auto& buffer) {
  return buffer.capacity() * sizeof(typename std::decay_t<decltype(buffer)>::value_type);
}

}  // namespace

Result<BlockPlan> PlanBlocks(std::uint64_t budget, const std::string& what) {
  auto edge = static_cast<std::int64_t>(std::cbrt(double(budget / kBlockBytesPerVoxel)));
  while (edge > 0 &&
         static_cast<std::uint64_t>(edge * edge * edge) * kBlockBytesPerVoxel > budget) {
    --edge;
  }
  BlockPlan plan;
  plan.halo = std::max<std::int64_t>(2, edge / 8);
  plan.core = edge - 2 * plan.halo - 2;
  if (plan.core < 8) {
    const std::int64_t smallest = 8 + 2 * 2 + 2;
    return Status::ResourceExhausted(
               what + ", over the limit of " + std::to_string(budget) +
               " bytes, and even the smallest block (" + std::to_string(smallest) +
               " voxels a side with its context, at " + std::to_string(kBlockBytesPerVoxel) +
               " bytes a voxel) needs " +
               std::to_string(smallest * smallest * smallest *
                              static_cast<std::int64_t>(kBlockBytesPerVoxel)) +
               " bytes")
        .WithField("max_memory");
  }
  return plan;
}

Skeleton MergeFragments(std::uint64_t label, const std::vector<Skeleton>& fragments) {
  Skeleton out;
  out.label = label;
  std::map<std::array<float, 3>, std::uint32_t> vertex_at;
  std::set<std::pair<std::uint32_t, std::uint32_t>> edges;
  std::vector<std::uint32_t> parent;  // union-find over the merged vertices
  auto root = [&](std::uint32_t v) {
    while (parent[v] != v) v = parent[v] = parent[parent[v]];
    return v;
  };
  for (const Skeleton& fragment : fragments) {
    std::vector<std::uint32_t> merged(fragment.vertices.size());
    for (std::size_t i = 0; i < fragment.vertices.size(); ++i) {
      const auto [it, fresh] = vertex_at.try_emplace(
          fragment.vertices[i], static_cast<std::uint32_t>(out.vertices.size()));
      if (fresh) {
        out.vertices.push_back(fragment.vertices[i]);
        out.radii.push_back(i < fragment.radii.size() ? fragment.radii[i] : 0.0f);
        parent.push_back(it->second);
      }
      merged[i] = it->second;
    }
    for (const auto& [a, b] : fragment.edges) {
      const std::uint32_t p = merged[a], q = merged[b];
      if (p == q || !edges.insert({std::min(p, q), std::max(p, q)}).second) continue;
      const std::uint32_t rp = root(p), rq = root(q);
      if (rp == rq) continue;  // would close a cycle
      parent[rp] = rq;
      out.edges.push_back({p, q});
    }
  }
  return out;
}

void PruneCoveredBranches(Skeleton& s, const TeasarParams& params) {
  const std::size_t n = s.vertices.size();
  if (n < 3) return;
  std::vector<std::vector<std::uint32_t>> next(n);
  for (const auto& [a, b] : s.edges) {
    next[a].push_back(b);
    next[b].push_back(a);
  }
  std::vector<std::uint8_t> gone(n, 0);
  auto ball = [&](std::size_t v) { return params.scale * s.radii[v] + params.constant; };
  double widest = 0;
  for (std::size_t v = 0; v < n; ++v) widest = std::max(widest, ball(v));
  // Vertices by cell of a grid as wide as the widest ball, for the search.
  const double cell = std::max(widest, 1e-6);
  using Cell = std::array<std::int64_t, 3>;
  auto cell_of = [&](const std::array<float, 3>& p) {
    return Cell{static_cast<std::int64_t>(std::floor(p[0] / cell)),
                static_cast<std::int64_t>(std::floor(p[1] / cell)),
                static_cast<std::int64_t>(std::floor(p[2] / cell))};
  };
  std::map<Cell, std::vector<std::uint32_t>> grid;
  for (std::size_t v = 0; v < n; ++v) grid[cell_of(s.vertices[v])].push_back(std::uint32_t(v));
  auto live_degree = [&](std::uint32_t v) {
    std::size_t d = 0;
    for (std::uint32_t w : next[v]) d += !gone[w];
    return d;
  };
  // The end branch from leaf `v`: its vertices, or empty where the walk
  // meets another end (the piece is one path: nothing to prune).
  auto branch_from = [&](std::uint32_t v) {
    std::vector<std::uint32_t> branch{v};
    std::uint32_t previous = v, at = v;
    while (true) {
      std::uint32_t step = at;
      for (std::uint32_t w : next[at]) {
        if (!gone[w] && w != previous) step = w;
      }
      if (step == at) return std::vector<std::uint32_t>();
      const std::size_t d = live_degree(step);
      if (d >= 3) return branch;
      if (d == 1) return std::vector<std::uint32_t>();
      branch.push_back(step);
      previous = at;
      at = step;
    }
  };
  auto covered = [&](const std::vector<std::uint32_t>& branch) {
    const std::set<std::uint32_t> own(branch.begin(), branch.end());
    for (std::uint32_t v : branch) {
      const auto& p = s.vertices[v];
      const Cell c = cell_of(p);
      bool inside = false;
      for (std::int64_t dz = -1; dz <= 1 && !inside; ++dz) {
        for (std::int64_t dy = -1; dy <= 1 && !inside; ++dy) {
          for (std::int64_t dx = -1; dx <= 1 && !inside; ++dx) {
            const auto it = grid.find({c[0] + dx, c[1] + dy, c[2] + dz});
            if (it == grid.end()) continue;
            for (std::uint32_t u : it->second) {
              if (gone[u] || own.contains(u)) continue;
              double d2 = 0;
              for (int k = 0; k < 3; ++k) {
                const double e = double(p[k]) - s.vertices[u][k];
                d2 += e * e;
              }
              if (d2 <= ball(u) * ball(u)) {
                inside = true;
                break;
              }
            }
          }
        }
      }
      if (!inside) return false;
    }
    return true;
  };
  for (bool pruned = true; pruned;) {
    pruned = false;
    std::vector<std::vector<std::uint32_t>> branches;
    for (std::uint32_t v = 0; v < n; ++v) {
      if (gone[v] || live_degree(v) != 1) continue;
      std::vector<std::uint32_t> branch = branch_from(v);
      if (!branch.empty()) branches.push_back(std::move(branch));
    }
    std::stable_sort(branches.begin(), branches.end(),
                     [](const auto& a, const auto& b) { return a.size() < b.size(); });
    for (const std::vector<std::uint32_t>& branch : branches) {
      // An earlier removal may have changed this one: walk it again.
      if (gone[branch.front()] || live_degree(branch.front()) != 1) continue;
      if (branch_from(branch.front()) != branch || !covered(branch)) continue;
      for (std::uint32_t v : branch) gone[v] = 1;
      pruned = true;
    }
  }
  std::vector<std::uint32_t> renumbered(n, 0);
  Skeleton kept;
  kept.label = s.label;
  for (std::size_t v = 0; v < n; ++v) {
    if (gone[v]) continue;
    renumbered[v] = static_cast<std::uint32_t>(kept.vertices.size());
    kept.vertices.push_back(s.vertices[v]);
    kept.radii.push_back(s.radii[v]);
  }
  for (const auto& [a, b] : s.edges) {
    if (!gone[a] && !gone[b]) kept.edges.push_back({renumbered[a], renumbered[b]});
  }
  s = std::move(kept);
}

Result<Skeleton> SkeletonizeInBlocks(const SkeletonSource& source, SourceChunks& chunks,
                                     std::uint64_t label, const LabelExtent& extent,
                                     const BlockPlan& plan, const TeasarParams& params,
                                     TeasarWorkspace& workspace, const std::string& where,
                                     BlockedSkeletonStats* stats) {
  const VoxelBox& box = extent.box;
  std::array<std::vector<std::pair<std::int64_t, std::int64_t>>, 3> spans;
  for (int a = 0; a < 3; ++a) spans[a] = Spans(box.start[a], box.stop[a], plan.core);
  const LabelVolume placement{{}, source.shape, source.voxel_size, source.origin};
  std::vector<Skeleton> fragments;
  std::uint64_t found = 0;
  bool outside = false;
  for (std::size_t bz = 0; bz < spans[0].size(); ++bz) {
    for (std::size_t by = 0; by < spans[1].size(); ++by) {
      for (std::size_t bx = 0; bx < spans[2].size(); ++bx) {
        const std::array<std::size_t, 3> b{bz, by, bx};
        VoxelBox core;
        Grid read;
        for (int a = 0; a < 3; ++a) {
          std::tie(core.start[a], core.stop[a]) = spans[a][b[a]];
          // Context, but nothing past the label's padded box or the volume.
          read.start[a] = std::max({core.start[a] - plan.halo, box.start[a] - 1, std::int64_t{0}});
          const std::int64_t stop =
              std::min({core.stop[a] + plan.halo, box.stop[a] + 1, source.shape[a]});
          read.dims[a] = stop - read.start[a];
        }
        VoxelBox read_box;
        for (int a = 0; a < 3; ++a) {
          read_box.start[a] = read.start[a];
          read_box.stop[a] = read.start[a] + read.dims[a];
        }
        std::uint64_t block_bytes = 0;
        std::vector<std::uint8_t> mask(read.voxels(), 0);
        std::uint64_t in_core = 0;
        {
          CHUNKWISE_ASSIGN_OR_RETURN(const std::vector<std::uint64_t> labels,
                                     chunks.Read(read_box));
          block_bytes += BytesOf(labels);
          std::size_t i = 0;
          for (std::int64_t z = read_box.start[0]; z < read_box.stop[0]; ++z) {
            for (std::int64_t y = read_box.start[1]; y < read_box.stop[1]; ++y) {
              for (std::int64_t x = read_box.start[2]; x < read_box.stop[2]; ++x, ++i) {
                if (labels[i] != label) continue;
                mask[i] = 1;
                const std::array<std::int64_t, 3> at{z, y, x};
                bool in_box = true, counted = true, here = true;
                for (int a = 0; a < 3; ++a) {
                  in_box = in_box && at[a] >= box.start[a] && at[a] < box.stop[a];
                  here = here && at[a] >= core.start[a] && at[a] < core.stop[a];
                  // A shared plane's voxels are counted by the block before it.
                  counted = counted && !(b[a] > 0 && at[a] == core.start[a]);
                }
                outside = outside || !in_box;
                if (!here) continue;
                ++in_core;
                if (counted) ++found;
              }
            }
          }
        }
        if (in_core == 0) continue;
        const std::vector<float> field = MaskDistanceToBoundary(mask, read.dims, source.voxel_size);
        LabelCrop crop;
        crop.label = label;
        crop.box = core;
        const Grid padded{{core.start[0] - 1, core.start[1] - 1, core.start[2] - 1}, crop.dims()};
        crop.mask.assign(padded.voxels(), 0);
        std::vector<float> crop_field(padded.voxels(), 0.0f);
        for (std::int64_t z = core.start[0]; z < core.stop[0]; ++z) {
          for (std::int64_t y = core.start[1]; y < core.stop[1]; ++y) {
            for (std::int64_t x = core.start[2]; x < core.stop[2]; ++x) {
              const std::int64_t from = read.Index(z, y, x);
              if (!mask[from]) continue;
              crop.mask[padded.Index(z, y, x)] = 1;
              crop_field[padded.Index(z, y, x)] = field[from];
            }
          }
        }
        std::vector<std::array<std::int64_t, 3>> anchors;
        for (int a = 0; a < 3; ++a) {
          if (b[a] > 0) AddFaceAnchors(mask, read, core, a, core.start[a], anchors);
          if (b[a] + 1 < spans[a].size()) {
            AddFaceAnchors(mask, read, core, a, core.stop[a] - 1, anchors);
          }
        }
        fragments.push_back(
            SkeletonizeBlock(crop, crop_field, anchors, placement, params, workspace));
        block_bytes += BytesOf(mask) + BytesOf(field) + BytesOf(crop.mask) + BytesOf(crop_field) +
                       TeasarWorkspaceBytes(workspace);
        if (stats != nullptr) {
          ++stats->blocks;
          stats->peak_bytes = std::max(stats->peak_bytes, block_bytes);
        }
      }
    }
  }
  if (outside || found != extent.voxels) {
    return Status::Corruption(where + ": label " + std::to_string(label) +
                              " is not where the scan found it (" + std::to_string(extent.voxels) +
                              " voxels in its box, " + std::to_string(found) +
                              " read block by block; the volume changed, or the scan's table is "
                              "not this volume's)");
  }
  Skeleton merged = MergeFragments(label, fragments);
  PruneCoveredBranches(merged, params);
  return merged;
}

}  // namespace chunkwise::pipelines::skeletons
