#include "pipelines/skeletons/teasar.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <memory>
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
};

// A run of voxels along x reached by an invalidation ball: row (z, y) of the
// crop, x from `first` to `last` inclusive.
struct BallRun {
  std::int64_t z, y, first, last;
};

std::vector<Neighbour> Neighbours(const Crop& crop, const std::array<double, 3>& voxel_size) {
  std::vector<Neighbour> out;
  for (int dz = -1; dz <= 1; ++dz) {
    for (int dy = -1; dy <= 1; ++dy) {
      for (int dx = -1; dx <= 1; ++dx) {
        if (dz == 0 && dy == 0 && dx == 0) continue;
        const double ex = dx * voxel_size[0], ey = dy * voxel_size[1], ez = dz * voxel_size[2];
        out.push_back(
            {crop.Index(dz, dy, dx), static_cast<float>(std::sqrt(ex * ex + ey * ey + ez * ez))});
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

// Scratch for one thread's lines: the parabolas' envelope and a run of values
// with a zero at either end.
struct LineScratch {
  explicit LineScratch(std::int64_t longest)
      : f(longest + 2), d(longest + 2), v(longest + 2), z(longest + 3) {}
  std::vector<double> f, d;
  std::vector<std::int64_t> v;
  std::vector<double> z;
};

// One line of the field along an axis after the first: each run of one
// nonzero label is relaxed on its own, with a zero just outside either end
// (the voxel there is another label, or outside the volume). No voxel
// beyond a run's end can be nearer than that end voxel itself, so runs are
// exact, as in a binary field per label.
template <typename Label>
void RelaxLine(const Label* labels, float* squared, std::int64_t start, std::int64_t stride,
               std::int64_t n, double spacing, LineScratch& s) {
  std::int64_t a = 0;
  while (a < n) {
    const Label label = labels[start + a * stride];
    std::int64_t b = a + 1;
    while (b < n && labels[start + b * stride] == label) ++b;
    if (label != 0) {
      const std::int64_t m = b - a;
      s.f.resize(m + 2);
      s.d.resize(m + 2);
      s.f[0] = 0;
      s.f[m + 1] = 0;
      for (std::int64_t k = 0; k < m; ++k) s.f[k + 1] = squared[start + (a + k) * stride];
      DistanceAlongLine(s.f, spacing, s.d, s.v, s.z);
      for (std::int64_t k = 0; k < m; ++k) {
        squared[start + (a + k) * stride] = static_cast<float>(s.d[k + 1]);
      }
    }
    a = b;
  }
}

// The first pass, along x: within a run of one label, the squared distance to
// the nearer voxel just outside the run.
template <typename Label>
void RowDistances(const Label* labels, float* squared, std::int64_t n, double spacing) {
  std::int64_t a = 0;
  while (a < n) {
    std::int64_t b = a + 1;
    while (b < n && labels[b] == labels[a]) ++b;
    for (std::int64_t x = a; x < b; ++x) {
      const double steps = labels[a] == 0 ? 0.0 : double(std::min(x - a + 1, b - x));
      squared[x] = static_cast<float>(steps * steps * spacing * spacing);
    }
    a = b;
  }
}

Status ForEach(core::ThreadPool* pool, std::int64_t n,
               const std::function<void(std::int64_t)>& body) {
  if (pool == nullptr || n < 2) {
    for (std::int64_t i = 0; i < n; ++i) body(i);
    return Status();
  }
  return pool->ParallelFor(static_cast<std::size_t>(n), [&](std::size_t i) {
    body(static_cast<std::int64_t>(i));
    return Status();
  });
}

// Shortest paths inside the mask from `source`, a voxel of `component`; the
// cost of a step into v is cost[v] (or the step's length where cost is null).
// Fills dist (infinity where unreached) and, when given, parent, for the
// component's voxels only: no other voxel is reachable.
void ShortestPaths(const std::vector<std::uint8_t>& mask, const std::vector<Neighbour>& steps,
                   const std::vector<std::int64_t>& component, std::int64_t source,
                   const float* cost, float* dist, std::int64_t* parent) {
  for (std::int64_t i : component) dist[i] = kInfinity;
  using Item = std::pair<float, std::int64_t>;
  std::priority_queue<Item, std::vector<Item>, std::greater<Item>> queue;
  dist[source] = 0;
  if (parent != nullptr) parent[source] = -1;
  queue.push({0.0f, source});
  while (!queue.empty()) {
    const auto [d, u] = queue.top();
    queue.pop();
    if (d > dist[u]) continue;
    for (const Neighbour& step : steps) {
      const std::int64_t w = u + step.offset;
      if (!mask[w]) continue;
      const float candidate = cost == nullptr ? d + step.length : d + cost[w];
      if (candidate < dist[w]) {
        dist[w] = candidate;
        if (parent != nullptr) parent[w] = u;
        queue.push({candidate, w});
      }
    }
  }
}

// The 26-connected components of the mask, each a list of crop indexes. A
// voxel taken into a component is marked 2 in the mask (still inside).
std::vector<std::vector<std::int64_t>> Components(const Crop& crop, std::vector<std::uint8_t>& mask,
                                                  const std::vector<Neighbour>& steps) {
  std::vector<std::vector<std::int64_t>> components;
  const std::int64_t size = crop.size();
  for (std::int64_t i = 0; i < size; ++i) {
    // Most of a box is other labels': skip to the next voxel not yet taken.
    const void* untaken = std::memchr(mask.data() + i, 1, static_cast<std::size_t>(size - i));
    if (untaken == nullptr) break;
    i = static_cast<const std::uint8_t*>(untaken) - mask.data();
    std::vector<std::int64_t> component{i};
    mask[i] = 2;
    for (std::size_t next = 0; next < component.size(); ++next) {
      for (const Neighbour& step : steps) {
        const std::int64_t w = component[next] + step.offset;
        if (mask[w] == 1) {
          mask[w] = 2;
          component.push_back(w);
        }
      }
    }
    components.push_back(std::move(component));
  }
  return components;
}

}  // namespace

// A buffer over a crop that grows without clearing or keeping what it held:
// each pass writes the elements it reads first, so a label faults in only
// the pages of its own voxels, not every page of its box (a neuron's box is
// mostly other labels' voxels).
template <typename T>
class ScratchArray {
 public:
  void Grow(std::size_t n) {
    if (n <= capacity_) return;
    data_.reset(new T[n]);  // default-initialized: not cleared
    capacity_ = n;
  }
  T& operator[](std::size_t i) { return data_[i]; }
  const T& operator[](std::size_t i) const { return data_[i]; }
  T* data() { return data_.get(); }
  std::size_t capacity() const { return capacity_; }

 private:
  std::unique_ptr<T[]> data_;
  std::size_t capacity_ = 0;
};

// Buffers over one label's crop. Only `mask` is cleared for each label; the
// others are written for a component's voxels before they are read there
// (dbf: by the field, for the mask's voxels), so what earlier labels left in
// them, or what fresh memory holds, does no harm.
struct TeasarWorkspace {
  std::vector<std::uint8_t> mask;
  ScratchArray<float> dbf, dist, cost;
  ScratchArray<std::int64_t> parent, vertex_of;
  ScratchArray<std::uint8_t> uncovered;
  // == stamp where the current ball reached; set to 0 for a component's
  // voxels before its first ball (a ball floods only its own component).
  ScratchArray<std::uint32_t> seen;
  std::uint32_t stamp = 0;
  std::vector<BallRun> runs;

  void Prepare(std::int64_t size) {
    mask.assign(static_cast<std::size_t>(size), 0);
    Grow(mask.size());
  }
  // The same for a crop whose mask (0/1) is given whole: copied, rather than
  // cleared and then set voxel by voxel.
  void PrepareWithMask(std::span<const std::uint8_t> crop_mask) {
    mask.assign(crop_mask.begin(), crop_mask.end());
    Grow(mask.size());
  }

 private:
  // Buffers only grow, so that their pages are touched once per thread.
  void Grow(std::size_t n) {
    for (auto* buffer : {&dbf, &dist, &cost}) buffer->Grow(n);
    for (auto* buffer : {&parent, &vertex_of}) buffer->Grow(n);
    uncovered.Grow(n);
    seen.Grow(n);
  }
};

void TeasarWorkspaceDeleter::operator()(TeasarWorkspace* workspace) const { delete workspace; }

TeasarWorkspacePtr NewTeasarWorkspace() { return TeasarWorkspacePtr(new TeasarWorkspace()); }

std::uint64_t TeasarWorkspaceBytes(const TeasarWorkspace& w) {
  return w.mask.capacity() + w.uncovered.capacity() +
         (w.dbf.capacity() + w.dist.capacity() + w.cost.capacity()) * sizeof(float) +
         (w.parent.capacity() + w.vertex_of.capacity()) * sizeof(std::int64_t) +
         w.seen.capacity() * sizeof(std::uint32_t) + w.runs.capacity() * sizeof(BallRun);
}

namespace {

// Draws the skeleton of one component into `out`.
class ComponentTracer {
 public:
  // `anchors`: crop indexes, sorted, drawn before the other targets.
  ComponentTracer(const Crop& crop, const LabelVolume& volume, const TeasarParams& params,
                  TeasarWorkspace& work, const std::vector<Neighbour>& steps,
                  const std::vector<std::int64_t>& anchors, Skeleton& out)
      : crop_(crop),
        volume_(volume),
        params_(params),
        work_(work),
        steps_(steps),
        anchors_(anchors),
        out_(out) {}

  void Trace(const std::vector<std::int64_t>& component) {
    const std::vector<std::uint8_t>& mask = work_.mask;
    const ScratchArray<float>& dbf = work_.dbf;
    ScratchArray<float>& dist = work_.dist;
    // The anchors in this component (a block's, blocked_skeleton.h).
    std::vector<std::int64_t> here;
    if (!anchors_.empty()) {
      for (std::int64_t i : component) {
        if (std::binary_search(anchors_.begin(), anchors_.end(), i)) here.push_back(i);
      }
      std::sort(here.begin(), here.end());
    }
    // The root: the voxel farthest from any one voxel (the first in scan
    // order) is an end of the shape, whichever voxel one starts from. In a
    // block with anchors, the first anchor instead: the piece goes on past
    // the block's face there, so it is no end, and a root on the section's
    // rim would add a spur at every face.
    std::int64_t root = 0;
    if (here.empty()) {
      ShortestPaths(mask, steps_, component, component.front(), nullptr, dist.data(), nullptr);
      root = Farthest(component, dist);
    } else {
      root = here.front();
    }
    // Targets in order of distance from the root, farthest first.
    ShortestPaths(mask, steps_, component, root, nullptr, dist.data(), nullptr);
    std::vector<std::int64_t> targets = component;
    std::stable_sort(targets.begin(), targets.end(),
                     [&](auto a, auto b) { return dist[a] > dist[b]; });
    // The tree of paths that keep to the middle: entering a voxel costs the
    // steep penalty near the boundary plus a trickle of its distance from the
    // root (so that wide open spaces still have a gradient).
    float dbf_max = 0;
    for (std::int64_t i : component) dbf_max = std::max(dbf_max, dbf[i]);
    const double m = std::pow(double(dbf_max), 1.01);
    float daf_max = 0;
    for (std::int64_t i : component) daf_max = std::max(daf_max, dist[i]);
    for (std::int64_t i : component) {
      work_.cost[i] = static_cast<float>(params_.pdrf_scale *
                                             std::pow(1.0 - dbf[i] / m, params_.pdrf_exponent) +
                                         (daf_max > 0 ? dist[i] / daf_max : 0));
    }
    ShortestPaths(mask, steps_, component, root, work_.cost.data(), dist.data(),
                  work_.parent.data());

    for (std::int64_t i : component) {
      work_.uncovered[i] = 1;
      work_.vertex_of[i] = -1;
      work_.seen[i] = 0;
    }
    VertexOf(root);
    for (std::int64_t anchor : here) DrawPath(anchor);
    for (std::int64_t target : targets) {
      if (!work_.uncovered[target]) continue;
      DrawPath(target);
    }
  }

 private:
  static std::int64_t Farthest(const std::vector<std::int64_t>& component,
                               const ScratchArray<float>& dist) {
    return *std::max_element(component.begin(), component.end(),
                             [&](auto a, auto b) { return dist[a] < dist[b]; });
  }

  // Follows the tree from `target` to the skeleton so far, adding the path's
  // vertices and edges and covering the balls around them.
  void DrawPath(std::int64_t target) {
    std::int64_t previous = -1;
    std::int64_t at = target;
    while (true) {
      const bool joined = work_.vertex_of[at] >= 0;
      const std::uint32_t vertex = VertexOf(at);
      if (previous >= 0) out_.edges.push_back({static_cast<std::uint32_t>(previous), vertex});
      Cover(at);
      if (joined || work_.parent[at] < 0) break;
      previous = vertex;
      at = work_.parent[at];
    }
  }

  std::uint32_t VertexOf(std::int64_t i) {
    if (work_.vertex_of[i] >= 0) return static_cast<std::uint32_t>(work_.vertex_of[i]);
    const auto c = crop_.Coord(i);
    std::array<float, 3> position{};
    for (int a = 0; a < 3; ++a) {  // a: x, y, z
      const std::int64_t voxel = crop_.origin[2 - a] + c[2 - a];
      position[a] = static_cast<float>(volume_.origin[a] + (voxel + 0.5) * volume_.voxel_size[a]);
    }
    work_.vertex_of[i] = static_cast<std::int64_t>(out_.vertices.size());
    out_.vertices.push_back(position);
    out_.radii.push_back(work_.dbf[i]);
    return static_cast<std::uint32_t>(work_.vertex_of[i]);
  }

  // Marks as covered every voxel within scale * DBF + const of voxel i that
  // is reached from i without leaving the ball: a neighbouring branch that
  // passes close by but joins far away keeps its own path (as kimimaro's
  // ball does). The flood moves by runs along x: a run of the label inside
  // the ball's row is reached whole once one voxel of it is, so each run
  // looks only at the rows beside it, not each voxel at its 26 neighbours.
  void Cover(std::int64_t i) {
    const std::vector<std::uint8_t>& mask = work_.mask;
    ScratchArray<std::uint32_t>& seen = work_.seen;
    std::vector<BallRun>& runs = work_.runs;
    const double r = params_.scale * work_.dbf[i] + params_.constant;
    if (++work_.stamp == 0) {  // wrapped: forget every earlier ball
      std::fill(seen.data(), seen.data() + seen.capacity(), 0u);
      work_.stamp = 1;
    }
    const std::uint32_t stamp = work_.stamp;
    const auto centre = crop_.Coord(i);
    const auto [first, last] = RunAround(centre[0], centre[1], centre[2], centre, r * r);
    runs.assign(1, BallRun{centre[0], centre[1], first, last});
    MarkRun(runs.back(), stamp);
    while (!runs.empty()) {
      const BallRun at = runs.back();
      runs.pop_back();
      for (std::int64_t dz = -1; dz <= 1; ++dz) {
        for (std::int64_t dy = -1; dy <= 1; ++dy) {
          if (dz == 0 && dy == 0) continue;  // the run is already whole in its own row
          const std::int64_t z = at.z + dz, y = at.y + dy;
          const std::int64_t row = crop_.Index(z, y, 0);
          for (std::int64_t x = at.first - 1; x <= at.last + 1; ++x) {
            if (!mask[row + x] || seen[row + x] == stamp) continue;
            if (!InBall(z, y, x, centre, r * r)) continue;
            const auto [run_first, run_last] = RunAround(z, y, x, centre, r * r);
            runs.push_back({z, y, run_first, run_last});
            MarkRun(runs.back(), stamp);
            x = run_last + 1;
          }
        }
      }
    }
  }

  // Whether voxel (z, y, x) of the crop lies within the ball of squared
  // radius r2 around `centre`, in physical units.
  bool InBall(std::int64_t z, std::int64_t y, std::int64_t x,
              const std::array<std::int64_t, 3>& centre, double r2) const {
    const auto& vs = volume_.voxel_size;
    const double ex = double(x - centre[2]) * vs[0], ey = double(y - centre[1]) * vs[1],
                 ez = double(z - centre[0]) * vs[2];
    return ex * ex + ey * ey + ez * ez <= r2;
  }

  // The longest run of the label through voxel (z, y, x) along x inside the
  // ball; the crop's background border ends every run inside the crop.
  std::pair<std::int64_t, std::int64_t> RunAround(std::int64_t z, std::int64_t y, std::int64_t x,
                                                  const std::array<std::int64_t, 3>& centre,
                                                  double r2) const {
    const std::int64_t row = crop_.Index(z, y, 0);
    std::int64_t first = x, last = x;
    while (work_.mask[row + first - 1] && InBall(z, y, first - 1, centre, r2)) --first;
    while (work_.mask[row + last + 1] && InBall(z, y, last + 1, centre, r2)) ++last;
    return {first, last};
  }

  void MarkRun(const BallRun& run, std::uint32_t stamp) {
    const std::int64_t row = crop_.Index(run.z, run.y, 0);
    for (std::int64_t x = run.first; x <= run.last; ++x) {
      work_.seen[row + x] = stamp;
      work_.uncovered[row + x] = 0;
    }
  }

  const Crop& crop_;
  const LabelVolume& volume_;
  const TeasarParams& params_;
  TeasarWorkspace& work_;
  const std::vector<Neighbour>& steps_;
  const std::vector<std::int64_t>& anchors_;
  Skeleton& out_;
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

namespace {

// The field of DistanceToBoundary over `labels` (a whole volume's, or a
// crop's label mask): every line is relaxed run by run, each run of one
// label on its own from the values of its voxels alone, so a run computes
// the same floats wherever it lies.
// `squared` holds the field's voxels on return; every one is written (the
// first pass sets each), so it may come with any values in it.
template <typename Label>
void FieldInto(const Label* labels, const std::array<std::int64_t, 3>& shape,
               const std::array<double, 3>& voxel_size, core::ThreadPool* pool, float* squared) {
  const std::int64_t depth = shape[0], height = shape[1], width = shape[2];
  const std::int64_t plane = height * width;
  const std::int64_t longest = std::max({depth, height, width});
  // x, then y, in each z plane; then z, and the root, by rows of y.
  Status status = ForEach(pool, depth, [&](std::int64_t z) {
    LineScratch scratch(longest);
    for (std::int64_t y = 0; y < height; ++y) {
      const std::int64_t row = z * plane + y * width;
      RowDistances(labels + row, squared + row, width, voxel_size[0]);
    }
    for (std::int64_t x = 0; x < width; ++x) {
      RelaxLine(labels, squared, z * plane + x, width, height, voxel_size[1], scratch);
    }
  });
  if (status.ok()) {
    status = ForEach(pool, height, [&](std::int64_t y) {
      LineScratch scratch(longest);
      for (std::int64_t x = 0; x < width; ++x) {
        const std::int64_t start = y * width + x;
        RelaxLine(labels, squared, start, plane, depth, voxel_size[2], scratch);
        for (std::int64_t z = 0; z < depth; ++z) {
          squared[start + z * plane] = std::sqrt(squared[start + z * plane]);
        }
      }
    });
  }
  // The loops above return no error of their own: a pool that cannot start
  // threads does the work on this one instead.
  if (!status.ok()) FieldInto(labels, shape, voxel_size, nullptr, squared);
}

template <typename Label>
std::vector<float> Field(const Label* labels, const std::array<std::int64_t, 3>& shape,
                         const std::array<double, 3>& voxel_size, core::ThreadPool* pool) {
  std::vector<float> field(static_cast<std::size_t>(shape[0] * shape[1] * shape[2]));
  FieldInto(labels, shape, voxel_size, pool, field.data());
  return field;
}

// The span [first, last) of a line's nonzero voxels (first == last when it
// has none).
struct LineSpan {
  std::int64_t first = 0, last = 0;
  bool empty() const { return first >= last; }
  void Widen(const LineSpan& other) {
    if (other.empty()) return;
    if (empty()) {
      *this = other;
      return;
    }
    first = std::min(first, other.first);
    last = std::max(last, other.last);
  }
};

LineSpan NonzeroSpan(const std::uint8_t* row, std::int64_t n) {
  std::int64_t first = 0;
  while (first < n && row[first] == 0) ++first;
  if (first == n) return {};
  std::int64_t last = n;
  while (row[last - 1] == 0) --last;
  return {first, last};
}

// FieldInto of a 0/1 mask, looking only where its 1s are: each row's span
// of nonzero voxels, each plane's columns under the spans of its rows, each
// line along z under the spans of its rows. Lines outside these are all 0,
// so the runs it relaxes, and the floats it writes on the mask's voxels, are
// FieldInto's; a neuron's mask fills a small part of its box, which
// FieldInto scans whole three times. Writes the mask's voxels and, within
// the rows' spans, 0 on the voxels between them; nothing else.
void MaskFieldInto(const std::uint8_t* mask, const std::array<std::int64_t, 3>& shape,
                   const std::array<double, 3>& voxel_size, core::ThreadPool* pool,
                   float* squared) {
  const std::int64_t depth = shape[0], height = shape[1], width = shape[2];
  const std::int64_t plane = height * width;
  const std::int64_t longest = std::max({depth, height, width});
  std::vector<LineSpan> rows(static_cast<std::size_t>(depth * height));
  // x, then y under the plane's rows' spans; then z, and the root, by rows of y.
  Status status = ForEach(pool, depth, [&](std::int64_t z) {
    LineSpan columns;  // x
    LineSpan lines;    // y
    for (std::int64_t y = 0; y < height; ++y) {
      const std::int64_t row = z * plane + y * width;
      const LineSpan span = NonzeroSpan(mask + row, width);
      rows[static_cast<std::size_t>(z * height + y)] = span;
      if (span.empty()) continue;
      RowDistances(mask + row + span.first, squared + row + span.first, span.last - span.first,
                   voxel_size[0]);
      columns.Widen(span);
      lines.Widen({y, y + 1});
    }
    if (columns.empty()) return;
    LineScratch scratch(longest);
    for (std::int64_t x = columns.first; x < columns.last; ++x) {
      RelaxLine(mask, squared, z * plane + lines.first * width + x, width, lines.last - lines.first,
                voxel_size[1], scratch);
    }
  });
  if (status.ok()) {
    status = ForEach(pool, height, [&](std::int64_t y) {
      LineSpan columns;  // x
      LineSpan planes;   // z
      for (std::int64_t z = 0; z < depth; ++z) {
        const LineSpan& span = rows[static_cast<std::size_t>(z * height + y)];
        if (span.empty()) continue;
        columns.Widen(span);
        planes.Widen({z, z + 1});
      }
      if (columns.empty()) return;
      LineScratch scratch(longest);
      for (std::int64_t x = columns.first; x < columns.last; ++x) {
        const std::int64_t start = planes.first * plane + y * width + x;
        RelaxLine(mask, squared, start, plane, planes.last - planes.first, voxel_size[2], scratch);
        for (std::int64_t z = 0; z < planes.last - planes.first; ++z) {
          const std::int64_t i = start + z * plane;
          if (mask[i] != 0) squared[i] = std::sqrt(squared[i]);
        }
      }
    });
  }
  if (!status.ok()) MaskFieldInto(mask, shape, voxel_size, nullptr, squared);
}

std::vector<float> MaskField(const std::uint8_t* mask, const std::array<std::int64_t, 3>& shape,
                             const std::array<double, 3>& voxel_size, core::ThreadPool* pool) {
  // Zero-filled: the voxels MaskFieldInto leaves are 0, as FieldInto writes them.
  std::vector<float> field(static_cast<std::size_t>(shape[0] * shape[1] * shape[2]));
  MaskFieldInto(mask, shape, voxel_size, pool, field.data());
  return field;
}

}  // namespace

std::vector<float> DistanceToBoundary(const LabelVolume& volume, core::ThreadPool* pool) {
  return Field(volume.labels.data(), volume.shape, volume.voxel_size, pool);
}

std::array<std::int64_t, 3> LabelCrop::dims() const {
  return {box.stop[0] - box.start[0] + 2, box.stop[1] - box.start[1] + 2,
          box.stop[2] - box.start[2] + 2};
}

std::uint64_t LabelCrop::voxels() const {
  const std::array<std::int64_t, 3> d = dims();
  return static_cast<std::uint64_t>(d[0]) * static_cast<std::uint64_t>(d[1]) *
         static_cast<std::uint64_t>(d[2]);
}

std::vector<float> MaskDistanceToBoundary(std::span<const std::uint8_t> mask,
                                          const std::array<std::int64_t, 3>& dims,
                                          const std::array<double, 3>& voxel_size,
                                          core::ThreadPool* pool) {
  return MaskField(mask.data(), dims, voxel_size, pool);
}

std::vector<float> CropDistanceToBoundary(const LabelCrop& crop,
                                          const std::array<double, 3>& voxel_size,
                                          core::ThreadPool* pool) {
  return MaskField(crop.mask.data(), crop.dims(), voxel_size, pool);
}

namespace {

// Traces every component of the mask the workspace holds over `crop` (its
// dbf filled for the mask's voxels).
Skeleton TraceCrop(const Crop& crop, const LabelVolume& volume, std::uint64_t label,
                   const TeasarParams& params, TeasarWorkspace& work,
                   const std::vector<std::int64_t>& anchors = {}) {
  Skeleton out;
  out.label = label;
  const std::vector<Neighbour> steps = Neighbours(crop, volume.voxel_size);
  ComponentTracer tracer(crop, volume, params, work, steps, anchors, out);
  for (const std::vector<std::int64_t>& component : Components(crop, work.mask, steps)) {
    tracer.Trace(component);
  }
  return out;
}

Crop PaddedCrop(const VoxelBox& box) {
  Crop crop;
  for (int a = 0; a < 3; ++a) {
    crop.origin[a] = box.start[a] - 1;
    crop.dims[a] = box.stop[a] - box.start[a] + 2;
  }
  return crop;
}

}  // namespace

Skeleton SkeletonizeLabel(const LabelVolume& volume, std::span<const float> boundary_distance,
                          std::uint64_t label, const VoxelBox& box, const TeasarParams& params,
                          TeasarWorkspace& work) {
  const Crop crop = PaddedCrop(box);
  work.Prepare(crop.size());
  for (std::int64_t z = box.start[0]; z < box.stop[0]; ++z) {
    for (std::int64_t y = box.start[1]; y < box.stop[1]; ++y) {
      const std::int64_t row = (z * volume.shape[1] + y) * volume.shape[2];
      const std::int64_t target = crop.Index(z - crop.origin[0], y - crop.origin[1], 0);
      for (std::int64_t x = box.start[2]; x < box.stop[2]; ++x) {
        if (volume.labels[row + x] != label) continue;
        work.mask[target + x - crop.origin[2]] = 1;
        work.dbf[target + x - crop.origin[2]] = boundary_distance[row + x];
      }
    }
  }
  return TraceCrop(crop, volume, label, params, work);
}

Skeleton SkeletonizeLabel(const LabelVolume& volume, std::uint64_t label, const VoxelBox& box,
                          const TeasarParams& params) {
  const std::vector<float> field = DistanceToBoundary(volume);
  TeasarWorkspacePtr work = NewTeasarWorkspace();
  return SkeletonizeLabel(volume, field, label, box, params, *work);
}

Skeleton SkeletonizeCrop(const LabelCrop& crop, const LabelVolume& placement,
                         const TeasarParams& params, TeasarWorkspace& work,
                         core::ThreadPool* pool) {
  const Crop padded = PaddedCrop(crop.box);
  // The field goes straight into the workspace's buffer, written on the
  // mask's voxels only (its values off the mask are never read), so that a
  // label touches the pages of its own voxels, not its whole box's.
  work.PrepareWithMask(crop.mask);
  MaskFieldInto(crop.mask.data(), padded.dims, placement.voxel_size, pool, work.dbf.data());
  return TraceCrop(padded, placement, crop.label, params, work);
}

Skeleton SkeletonizeBlock(const LabelCrop& crop, std::span<const float> field,
                          std::span<const std::array<std::int64_t, 3>> anchors,
                          const LabelVolume& placement, const TeasarParams& params,
                          TeasarWorkspace& work) {
  const Crop padded = PaddedCrop(crop.box);
  work.Prepare(padded.size());
  for (std::int64_t i = 0; i < padded.size(); ++i) {
    if (!crop.mask[i]) continue;
    work.mask[i] = 1;
    work.dbf[i] = field[i];
  }
  std::vector<std::int64_t> at;
  for (const std::array<std::int64_t, 3>& v : anchors) {
    bool inside = true;
    for (int a = 0; a < 3; ++a)
      inside = inside && v[a] >= crop.box.start[a] && v[a] < crop.box.stop[a];
    if (!inside) continue;
    const std::int64_t i =
        padded.Index(v[0] - padded.origin[0], v[1] - padded.origin[1], v[2] - padded.origin[2]);
    if (crop.mask[i]) at.push_back(i);
  }
  std::sort(at.begin(), at.end());
  return TraceCrop(padded, placement, crop.label, params, work, at);
}

}  // namespace chunkwise::pipelines::skeletons
