#include "pipelines/skeletons/teasar.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <queue>
#include <utility>

namespace chunkwise::pipelines::skeletons {
namespace {

constexpr float kInfinity = std::numeric_limits<float>::infinity();

// One label's bounding box with a background voxel on every side, as flat
// arrays. The padding means that every voxel of the label has all 26
// neighbours inside the crop, so the walks below need no bounds checks.
struct Crop {
  std::array<std::int64_t, 3> origin{};  // volume voxel of crop (0, 0, 0), z, y, x
  std::array<std::int64_t, 3> dims{};    // z, y, x
  std::int64_t size() const { return dims[0] * dims[1] * dims[2]; }
  std::int64_t Index(std::int64_t z, std::int64_t y, std::int64_t x) const {
    return (z * dims[1] + y) * dims[2] + x;
  }
  std::array<std::int64_t, 3> Coord(std::int64_t i) const {
    return {i / (dims[1] * dims[2]), (i / dims[2]) % dims[1], i % dims[2]};
  }
};

struct Neighbour {
  std::int64_t offset;
  float length;  // physical length of the step
  int dz, dy, dx;
};

// A voxel reached by an invalidation ball, with its offset from the centre.
struct BallVoxel {
  std::int64_t index;
  int z, y, x;
};

std::vector<Neighbour> Neighbours(const Crop& crop, const std::array<double, 3>& voxel_size) {
  std::vector<Neighbour> out;
  for (int dz = -1; dz <= 1; ++dz) {
    for (int dy = -1; dy <= 1; ++dy) {
      for (int dx = -1; dx <= 1; ++dx) {
        if (dz == 0 && dy == 0 && dx == 0) continue;
        const double ex = dx * voxel_size[0], ey = dy * voxel_size[1], ez = dz * voxel_size[2];
        out.push_back({crop.Index(dz, dy, dx),
                       static_cast<float>(std::sqrt(ex * ex + ey * ey + ez * ez)), dz, dy, dx});
      }
    }
  }
  return out;
}

// Squared distance along one line of n samples `spacing` apart: d[p] =
// min_q (spacing * (p - q))^2 + f[q] (the lower envelope of parabolas,
// Felzenszwalb and Huttenlocher). f may hold infinity; all-infinite stays so.
void DistanceAlongLine(const std::vector<double>& f, double spacing, std::vector<double>& d,
                       std::vector<std::int64_t>& v, std::vector<double>& z) {
  const std::int64_t n = static_cast<std::int64_t>(f.size());
  const double w2 = spacing * spacing;
  std::int64_t k = -1;
  for (std::int64_t q = 0; q < n; ++q) {
    if (!std::isfinite(f[q])) continue;
    while (k >= 0) {
      const std::int64_t r = v[k];
      const double s =
          ((f[q] + w2 * double(q) * q) - (f[r] + w2 * double(r) * r)) / (2 * w2 * (q - r));
      if (s <= z[k]) {
        --k;
        continue;
      }
      ++k;
      v[k] = q;
      z[k] = s;
      break;
    }
    if (k < 0) {
      k = 0;
      v[0] = q;
      z[0] = -std::numeric_limits<double>::infinity();
    }
  }
  if (k < 0) {
    std::fill(d.begin(), d.end(), std::numeric_limits<double>::infinity());
    return;
  }
  const std::int64_t last = k;
  k = 0;
  for (std::int64_t p = 0; p < n; ++p) {
    while (k < last && z[k + 1] < p) ++k;
    const double dp = double(p - v[k]);
    d[p] = w2 * dp * dp + f[v[k]];
  }
}

// The Euclidean distance from each voxel of the mask to the nearest voxel
// outside it, in physical units; 0 outside.
std::vector<float> DistanceToBoundary(const Crop& crop, const std::vector<std::uint8_t>& mask,
                                      const std::array<double, 3>& voxel_size) {
  std::vector<double> squared(mask.size());
  for (std::size_t i = 0; i < mask.size(); ++i) {
    squared[i] = mask[i] ? std::numeric_limits<double>::infinity() : 0.0;
  }
  const std::int64_t longest = std::max({crop.dims[0], crop.dims[1], crop.dims[2]});
  std::vector<double> f, d;
  std::vector<std::int64_t> v(longest);
  std::vector<double> z(longest + 1);
  // Axis 2 is x (voxel_size[0]), axis 1 y, axis 0 z.
  for (int axis = 2; axis >= 0; --axis) {
    const std::int64_t n = crop.dims[axis];
    const std::int64_t stride = axis == 2   ? 1
                                : axis == 1 ? crop.dims[2]
                                            : crop.dims[1] * crop.dims[2];
    const double spacing = voxel_size[2 - axis];
    f.resize(n);
    d.resize(n);
    // A line starts at each index whose coordinate on `axis` is 0.
    const std::int64_t span = n * stride;
    for (std::int64_t outer = 0; outer < crop.size(); outer += span) {
      for (std::int64_t start = outer; start < outer + stride; ++start) {
        bool inside = false;
        for (std::int64_t p = 0; p < n; ++p) {
          f[p] = squared[start + p * stride];
          inside |= f[p] != 0;
        }
        // All background (most lines of a sparse label's box): stays 0.
        if (!inside) continue;
        DistanceAlongLine(f, spacing, d, v, z);
        for (std::int64_t p = 0; p < n; ++p) squared[start + p * stride] = d[p];
      }
    }
  }
  std::vector<float> out(mask.size());
  for (std::size_t i = 0; i < mask.size(); ++i) out[i] = static_cast<float>(std::sqrt(squared[i]));
  return out;
}

// Shortest paths inside the mask from `source`; the cost of a step into v is
// cost[v] (or the step's length where cost is empty). Fills
// dist (infinity where unreached) and, when given, parent.
void ShortestPaths(const std::vector<std::uint8_t>& mask, const std::vector<Neighbour>& steps,
                   std::int64_t source, const std::vector<float>& cost, std::vector<float>& dist,
                   std::vector<std::int64_t>* parent) {
  std::fill(dist.begin(), dist.end(), kInfinity);
  using Item = std::pair<float, std::int64_t>;
  std::priority_queue<Item, std::vector<Item>, std::greater<Item>> queue;
  dist[source] = 0;
  if (parent != nullptr) (*parent)[source] = -1;
  queue.push({0.0f, source});
  while (!queue.empty()) {
    const auto [d, u] = queue.top();
    queue.pop();
    if (d > dist[u]) continue;
    for (const Neighbour& step : steps) {
      const std::int64_t w = u + step.offset;
      if (!mask[w]) continue;
      const float candidate = cost.empty() ? d + step.length : d + cost[w];
      if (candidate < dist[w]) {
        dist[w] = candidate;
        if (parent != nullptr) (*parent)[w] = u;
        queue.push({candidate, w});
      }
    }
  }
}

// The 26-connected components of the mask, each a list of crop indexes.
std::vector<std::vector<std::int64_t>> Components(const Crop& crop,
                                                  const std::vector<std::uint8_t>& mask,
                                                  const std::vector<Neighbour>& steps) {
  std::vector<std::vector<std::int64_t>> components;
  std::vector<std::uint8_t> seen(mask.size(), 0);
  for (std::int64_t i = 0; i < crop.size(); ++i) {
    if (!mask[i] || seen[i]) continue;
    std::vector<std::int64_t> component{i};
    seen[i] = 1;
    for (std::size_t next = 0; next < component.size(); ++next) {
      for (const Neighbour& step : steps) {
        const std::int64_t w = component[next] + step.offset;
        if (mask[w] && !seen[w]) {
          seen[w] = 1;
          component.push_back(w);
        }
      }
    }
    components.push_back(std::move(component));
  }
  return components;
}

// Draws the skeleton of one component into `out`.
class ComponentTracer {
 public:
  ComponentTracer(const Crop& crop, const LabelVolume& volume, const TeasarParams& params,
                  const std::vector<std::uint8_t>& mask, const std::vector<float>& dbf,
                  const std::vector<Neighbour>& steps, Skeleton& out)
      : crop_(crop),
        volume_(volume),
        params_(params),
        mask_(mask),
        dbf_(dbf),
        steps_(steps),
        out_(out) {}

  void Trace(const std::vector<std::int64_t>& component) {
    std::vector<float> dist(mask_.size());
    // The root: the voxel farthest from any one voxel (the first in scan
    // order) is an end of the shape, whichever voxel one starts from.
    ShortestPaths(mask_, steps_, component.front(), {}, dist, nullptr);
    const std::int64_t root = Farthest(component, dist);
    // Targets in order of distance from the root, farthest first.
    ShortestPaths(mask_, steps_, root, {}, dist, nullptr);
    std::vector<std::int64_t> targets = component;
    std::stable_sort(targets.begin(), targets.end(),
                     [&](auto a, auto b) { return dist[a] > dist[b]; });
    // The tree of paths that keep to the middle: entering a voxel costs the
    // steep penalty near the boundary plus a trickle of its distance from the
    // root (so that wide open spaces still have a gradient).
    std::vector<float> cost(mask_.size(), 0.0f);
    float dbf_max = 0;
    for (std::int64_t i : component) dbf_max = std::max(dbf_max, dbf_[i]);
    const double m = std::pow(double(dbf_max), 1.01);
    float daf_max = 0;
    for (std::int64_t i : component) daf_max = std::max(daf_max, dist[i]);
    for (std::int64_t i : component) {
      cost[i] = static_cast<float>(params_.pdrf_scale *
                                       std::pow(1.0 - dbf_[i] / m, params_.pdrf_exponent) +
                                   (daf_max > 0 ? dist[i] / daf_max : 0));
    }
    parent_.assign(mask_.size(), -1);
    ShortestPaths(mask_, steps_, root, cost, dist, &parent_);

    uncovered_.assign(mask_.size(), 0);
    if (seen_.size() != mask_.size()) seen_.assign(mask_.size(), 0u);
    for (std::int64_t i : component) uncovered_[i] = 1;
    vertex_of_.assign(mask_.size(), -1);
    VertexOf(root);
    for (std::int64_t target : targets) {
      if (!uncovered_[target]) continue;
      DrawPath(target);
    }
  }

 private:
  static std::int64_t Farthest(const std::vector<std::int64_t>& component,
                               const std::vector<float>& dist) {
    return *std::max_element(component.begin(), component.end(),
                             [&](auto a, auto b) { return dist[a] < dist[b]; });
  }

  // Follows the tree from `target` to the skeleton so far, adding the path's
  // vertices and edges and covering the balls around them.
  void DrawPath(std::int64_t target) {
    std::int64_t previous = -1;
    std::int64_t at = target;
    while (true) {
      const bool joined = vertex_of_[at] >= 0;
      const std::uint32_t vertex = VertexOf(at);
      if (previous >= 0) out_.edges.push_back({static_cast<std::uint32_t>(previous), vertex});
      Cover(at);
      if (joined || parent_[at] < 0) break;
      previous = vertex;
      at = parent_[at];
    }
  }

  std::uint32_t VertexOf(std::int64_t i) {
    if (vertex_of_[i] >= 0) return static_cast<std::uint32_t>(vertex_of_[i]);
    const auto c = crop_.Coord(i);
    std::array<float, 3> position{};
    for (int a = 0; a < 3; ++a) {  // a: x, y, z
      const std::int64_t voxel = crop_.origin[2 - a] + c[2 - a];
      position[a] = static_cast<float>(volume_.origin[a] + (voxel + 0.5) * volume_.voxel_size[a]);
    }
    vertex_of_[i] = static_cast<std::int64_t>(out_.vertices.size());
    out_.vertices.push_back(position);
    out_.radii.push_back(dbf_[i]);
    return static_cast<std::uint32_t>(vertex_of_[i]);
  }

  // Marks as covered every voxel within scale * DBF + const of voxel i that
  // is reached from i without leaving the ball: a neighbouring branch that
  // passes close by but joins far away keeps its own path (as kimimaro's
  // ball does).
  void Cover(std::int64_t i) {
    uncovered_[i] = 0;
    const double r = params_.scale * dbf_[i] + params_.constant;
    const double r2 = r * r;
    const auto& vs = volume_.voxel_size;
    if (++stamp_ == 0) {  // wrapped: forget every earlier ball
      std::fill(seen_.begin(), seen_.end(), 0u);
      stamp_ = 1;
    }
    stack_.assign(1, BallVoxel{i, 0, 0, 0});
    seen_[i] = stamp_;
    while (!stack_.empty()) {
      const BallVoxel at = stack_.back();
      stack_.pop_back();
      uncovered_[at.index] = 0;
      for (const Neighbour& step : steps_) {
        const std::int64_t w = at.index + step.offset;
        if (!mask_[w] || seen_[w] == stamp_) continue;
        const int z = at.z + step.dz, y = at.y + step.dy, x = at.x + step.dx;
        const double ex = x * vs[0], ey = y * vs[1], ez = z * vs[2];
        if (ex * ex + ey * ey + ez * ez > r2) continue;
        seen_[w] = stamp_;
        stack_.push_back({w, z, y, x});
      }
    }
  }

  const Crop& crop_;
  const LabelVolume& volume_;
  const TeasarParams& params_;
  const std::vector<std::uint8_t>& mask_;
  const std::vector<float>& dbf_;
  const std::vector<Neighbour>& steps_;
  Skeleton& out_;
  std::vector<std::int64_t> parent_;
  std::vector<std::uint8_t> uncovered_;
  std::vector<std::int64_t> vertex_of_;
  std::vector<std::uint32_t> seen_;  // == stamp_ where the current ball reached
  std::uint32_t stamp_ = 0;
  std::vector<BallVoxel> stack_;
};

}  // namespace

double CableLength(const Skeleton& skeleton) {
  double total = 0;
  for (const auto& [a, b] : skeleton.edges) {
    double s = 0;
    for (int k = 0; k < 3; ++k) {
      const double e = double(skeleton.vertices[a][k]) - skeleton.vertices[b][k];
      s += e * e;
    }
    total += std::sqrt(s);
  }
  return total;
}

std::map<std::uint64_t, LabelExtent> FindLabels(const LabelVolume& volume) {
  std::map<std::uint64_t, LabelExtent> labels;
  const auto& s = volume.shape;
  std::uint64_t last_label = 0;
  LabelExtent* last = nullptr;
  std::size_t i = 0;
  for (std::int64_t z = 0; z < s[0]; ++z) {
    for (std::int64_t y = 0; y < s[1]; ++y) {
      for (std::int64_t x = 0; x < s[2]; ++x, ++i) {
        const std::uint64_t label = volume.labels[i];
        if (label == 0) continue;
        // Runs of one label are the common case; skip the map lookup for them.
        if (last == nullptr || label != last_label) {
          auto [it, fresh] = labels.try_emplace(label);
          if (fresh) it->second.box = {{z, y, x}, {z + 1, y + 1, x + 1}};
          last = &it->second;
          last_label = label;
        }
        const std::array<std::int64_t, 3> at{z, y, x};
        for (int a = 0; a < 3; ++a) {
          last->box.start[a] = std::min(last->box.start[a], at[a]);
          last->box.stop[a] = std::max(last->box.stop[a], at[a] + 1);
        }
        ++last->voxels;
      }
    }
  }
  return labels;
}

Skeleton SkeletonizeLabel(const LabelVolume& volume, std::uint64_t label, const VoxelBox& box,
                          const TeasarParams& params) {
  Skeleton out;
  out.label = label;
  Crop crop;
  for (int a = 0; a < 3; ++a) {
    crop.origin[a] = box.start[a] - 1;
    crop.dims[a] = box.stop[a] - box.start[a] + 2;
  }
  std::vector<std::uint8_t> mask(crop.size(), 0);
  for (std::int64_t z = box.start[0]; z < box.stop[0]; ++z) {
    for (std::int64_t y = box.start[1]; y < box.stop[1]; ++y) {
      const std::uint64_t* row = volume.labels.data() + (z * volume.shape[1] + y) * volume.shape[2];
      std::uint8_t* target = mask.data() + crop.Index(z - crop.origin[0], y - crop.origin[1], 0);
      for (std::int64_t x = box.start[2]; x < box.stop[2]; ++x) {
        target[x - crop.origin[2]] = row[x] == label;
      }
    }
  }
  const std::vector<float> dbf = DistanceToBoundary(crop, mask, volume.voxel_size);
  const std::vector<Neighbour> steps = Neighbours(crop, volume.voxel_size);
  ComponentTracer tracer(crop, volume, params, mask, dbf, steps, out);
  for (const std::vector<std::int64_t>& component : Components(crop, mask, steps)) {
    tracer.Trace(component);
  }
  return out;
}

}  // namespace chunkwise::pipelines::skeletons
