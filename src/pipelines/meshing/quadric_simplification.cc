#include "pipelines/meshing/quadric_simplification.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <utility>
#include <vector>

namespace chunkwise::pipelines {
namespace {

using Vec3 = std::array<double, 3>;

Vec3 Sub(const Vec3& a, const Vec3& b) { return {a[0] - b[0], a[1] - b[1], a[2] - b[2]}; }
double Dot(const Vec3& a, const Vec3& b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }
Vec3 Cross(const Vec3& a, const Vec3& b) {
  return {a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]};
}

// A plane n.x + d = 0 with |n| = 1.
struct Plane {
  Vec3 n{};
  double d = 0;
};

// The sum of squared distances to some planes, as the symmetric 4x4 matrix
// of (x, y, z, 1), and how many planes were added (duplicates included).
struct Quadric {
  // The upper triangle of the symmetric matrix, row by row: 10 values.
  std::array<double, 10> upper{};
  double planes = 0;

  static int Index(int i, int j) {
    if (i > j) std::swap(i, j);
    return i * 4 - i * (i - 1) / 2 + (j - i);
  }
  double m(int i, int j) const { return upper[Index(i, j)]; }

  void Add(const Plane& p) {
    const std::array<double, 4> v{p.n[0], p.n[1], p.n[2], p.d};
    int k = 0;
    for (int i = 0; i < 4; ++i) {
      for (int j = i; j < 4; ++j) upper[k++] += v[i] * v[j];
    }
    planes += 1;
  }
  void Add(const Quadric& q) {
    for (int k = 0; k < 10; ++k) upper[k] += q.upper[k];
    planes += q.planes;
  }
  double At(const Vec3& p) const {
    const std::array<double, 4> v{p[0], p[1], p[2], 1};
    double sum = 0;
    int k = 0;
    for (int i = 0; i < 4; ++i) {
      for (int j = i; j < 4; ++j) sum += (i == j ? 1 : 2) * v[i] * upper[k++] * v[j];
    }
    return std::max(sum, 0.0);
  }
};

constexpr std::int64_t kOffPlane = std::numeric_limits<std::int64_t>::min();
constexpr std::uint32_t kNone = std::numeric_limits<std::uint32_t>::max();
// How far (root mean square, a fraction of the edge's length) a vertex may
// fold onto a neighbour before the queue is made (see FoldVertices). A
// slope, not a fraction of the error: the sweep then folds the same vertices
// of a mesh at any scale, and the error only bounds the collapses, as it
// bounds the queue's, so meshes of the same labels in nanometres and in
// voxels are simplified alike wherever the error does not bind (a sweep
// limited by a fifth of the error folded more of the mesh in voxels, with
// the error 8 times as large there, than in nanometres). At about tan 20
// degrees the sweep takes the staircases of voxel faces; at 0.2 the queue
// kept more of them (mesh_bench at 64x192x192: about a tenth slower), and
// from 0.35 to 1 the times were the same within the noise.
constexpr double kFoldSlope = 0.35;

// 16 bytes, so that more of the queue stays in cache. The versions are the
// low bits of the ends' versions: an entry that wrongly looks current after
// 65536 changes is harmless, since a popped collapse is placed and checked
// afresh.
struct Candidate {
  float cost = 0;
  std::uint32_t a = 0, b = 0;
  std::uint16_t version_a = 0, version_b = 0;
  bool operator>(const Candidate& o) const { return cost > o.cost; }
};

// Where an edge's collapse would put the merged vertex, and which end keeps
// its identity (the one whose planes the other's are a part of).
struct Placement {
  bool allowed = false;
  std::uint32_t keep = 0, drop = 0;
  Vec3 at{};
  double cost = 0;
};

class Simplifier {
 public:
  Simplifier(const LabelMesh& mesh, const SimplificationOptions& options)
      : mesh_(mesh), options_(options) {}

  LabelMesh Run();

 private:
  void Load();
  void PinBorders();
  void PlaceOnGrid();
  Placement Place(std::uint32_t a, std::uint32_t b) const;
  Vec3 Optimum(const Quadric& q, const std::array<bool, 3>& fixed, const Vec3& start, const Vec3& a,
               const Vec3& b) const;
  void Push(std::uint32_t a, std::uint32_t b);
  bool Stale(const Candidate& c) const;
  void DropStale();
  void FoldVertices(std::size_t floor);
  bool Folds(std::uint32_t v, std::uint32_t w, Placement& out) const;
  bool LinkHolds(std::uint32_t a, std::uint32_t b) const;
  bool NothingTurns(const Placement& p) const;
  bool WithinError(const Placement& p) const;
  void Collapse(const Placement& p, bool queue);
  void Neighbours(std::uint32_t v, std::vector<std::uint32_t>& out) const;
  LabelMesh Output() const;

  const LabelMesh& mesh_;
  const SimplificationOptions& options_;
  std::vector<Vec3> position_;
  std::vector<Vec3> original_position_;
  std::vector<bool> moved_;
  std::vector<bool> pinned_;
  std::vector<bool> gone_;
  std::vector<std::uint32_t> version_;
  std::vector<Quadric> quadric_;
  // The original triangles a vertex stands for, sorted.
  std::vector<std::vector<std::uint32_t>> support_;
  std::vector<std::vector<std::uint32_t>> faces_of_;
  // Per vertex and axis: the grid plane it lies on, or kOffPlane and the cell.
  std::vector<std::array<std::int64_t, 3>> plane_;
  std::vector<std::array<std::int64_t, 3>> cell_;
  std::vector<std::array<std::uint32_t, 3>> triangle_;
  std::vector<bool> alive_;
  std::vector<Plane> original_;
  std::size_t live_triangles_ = 0;
  // A min-heap of candidates; entries whose ends changed since are skipped.
  // It is made in one go from the first edges (`heaped_` false until then).
  std::vector<Candidate> queue_;
  bool heaped_ = false;
  // Scratch lists, kept to spare allocations.
  mutable std::vector<std::uint32_t> around_, shared_;
  std::vector<std::uint32_t> merged_, neighbours_;
};

void Simplifier::Load() {
  const std::size_t nv = mesh_.num_vertices();
  position_.resize(nv);
  for (std::size_t v = 0; v < nv; ++v) {
    for (int d = 0; d < 3; ++d) position_[v][d] = mesh_.vertices[3 * v + d] * options_.scale[d];
  }
  original_position_ = position_;
  moved_.assign(nv, false);
  pinned_.assign(nv, false);
  gone_.assign(nv, false);
  version_.assign(nv, 0);
  quadric_.assign(nv, Quadric{});
  support_.assign(nv, {});
  faces_of_.assign(nv, {});
  plane_.assign(nv, {kOffPlane, kOffPlane, kOffPlane});
  cell_.assign(nv, {0, 0, 0});
  const std::size_t nt = mesh_.num_triangles();
  triangle_.resize(nt);
  alive_.assign(nt, true);
  original_.resize(nt);
  // Each vertex's lists are made at their size at once, sparing the
  // allocations of growing them.
  std::vector<std::uint32_t> degree(nv, 0);
  for (const std::uint32_t v : mesh_.triangles) ++degree[v];
  for (std::size_t v = 0; v < nv; ++v) {
    support_[v].reserve(degree[v]);
    faces_of_[v].reserve(degree[v]);
  }
  for (std::size_t t = 0; t < nt; ++t) {
    for (int k = 0; k < 3; ++k) triangle_[t][k] = mesh_.triangles[3 * t + k];
    const auto& [a, b, c] = triangle_[t];
    Vec3 n = Cross(Sub(position_[b], position_[a]), Sub(position_[c], position_[a]));
    const double length = std::sqrt(Dot(n, n));
    // A triangle with no area has no plane; it still counts as support.
    if (length > 0) n = {n[0] / length, n[1] / length, n[2] / length};
    original_[t] = {n, -Dot(n, position_[a])};
    for (const std::uint32_t v : triangle_[t]) {
      if (length > 0) quadric_[v].Add(original_[t]);
      support_[v].push_back(static_cast<std::uint32_t>(t));
      faces_of_[v].push_back(static_cast<std::uint32_t>(t));
    }
  }
  live_triangles_ = nt;
}

// Vertices of edges that are not shared by exactly two triangles (the open
// border, or where the mesh is not a manifold) stay put.
void Simplifier::PinBorders() {
  // Each edge is counted at its lower end, among that vertex's few triangles.
  std::vector<std::pair<std::uint32_t, int>> count;
  for (std::uint32_t v = 0; v < faces_of_.size(); ++v) {
    count.clear();
    std::uint32_t previous = kNone;
    for (const std::uint32_t f : faces_of_[v]) {
      if (f == previous) continue;  // A triangle with v twice is listed twice.
      previous = f;
      const auto& t = triangle_[f];
      for (int k = 0; k < 3; ++k) {
        const auto [x, y] = std::minmax(t[k], t[(k + 1) % 3]);
        if (x != v) continue;
        auto it = std::find_if(count.begin(), count.end(),
                               [y = y](const auto& c) { return c.first == y; });
        if (it == count.end()) {
          count.emplace_back(y, 1);
        } else {
          ++it->second;
        }
      }
    }
    for (const auto& [w, n] : count) {
      if (n != 2) pinned_[v] = pinned_[w] = true;
    }
  }
}

void Simplifier::PlaceOnGrid() {
  const SimplificationGrid& grid = *options_.grid;
  for (std::size_t v = 0; v < position_.size(); ++v) {
    for (int d = 0; d < 3; ++d) {
      const double r = (mesh_.vertices[3 * v + d] - grid.origin[d]) / grid.cell[d];
      const double nearest = std::round(r);
      if (std::abs(r - nearest) * grid.cell[d] < 1e-4) {
        plane_[v][d] = static_cast<std::int64_t>(nearest);
        if (!grid.slide) pinned_[v] = true;
      } else {
        cell_[v][d] = static_cast<std::int64_t>(std::floor(r));
      }
    }
  }
}

// The point minimising `q` over the axes not `fixed` (those keep `start`'s
// coordinates), or, where that is not well defined or far off, the best of
// the two ends and their midpoint.
Vec3 Simplifier::Optimum(const Quadric& q, const std::array<bool, 3>& fixed, const Vec3& start,
                         const Vec3& a, const Vec3& b) const {
  int free[3];
  int n = 0;
  for (int d = 0; d < 3; ++d) {
    if (!fixed[d]) free[n++] = d;
  }
  Vec3 best = start;
  if (n > 0) {
    // Solve A_ff x_f = -(b_f + A_fc x_c) by Gaussian elimination.
    double m[3][4] = {};
    for (int i = 0; i < n; ++i) {
      double rhs = -q.m(free[i], 3);
      for (int d = 0; d < 3; ++d) {
        if (fixed[d]) rhs -= q.m(free[i], d) * start[d];
      }
      for (int j = 0; j < n; ++j) m[i][j] = q.m(free[i], free[j]);
      m[i][n] = rhs;
    }
    double scale = 0;
    for (int i = 0; i < n; ++i) scale = std::max(scale, std::abs(m[i][i]));
    bool solved = scale > 0;
    for (int c = 0; c < n && solved; ++c) {
      int pivot = c;
      for (int r = c + 1; r < n; ++r) {
        if (std::abs(m[r][c]) > std::abs(m[pivot][c])) pivot = r;
      }
      if (std::abs(m[pivot][c]) < 1e-6 * scale) {
        solved = false;
        break;
      }
      for (int k = 0; k <= n; ++k) std::swap(m[c][k], m[pivot][k]);
      for (int r = 0; r < n; ++r) {
        if (r == c) continue;
        const double f = m[r][c] / m[c][c];
        for (int k = c; k <= n; ++k) m[r][k] -= f * m[c][k];
      }
    }
    if (solved) {
      for (int i = 0; i < n; ++i) best[free[i]] = m[i][n] / m[i][i];
      // Nearly flat quadrics put the optimum far from the edge: not wanted.
      const Vec3 mid{(a[0] + b[0]) / 2, (a[1] + b[1]) / 2, (a[2] + b[2]) / 2};
      const Vec3 edge = Sub(a, b), off = Sub(best, mid);
      if (Dot(off, off) <= Dot(edge, edge)) return best;
    }
  }
  double least = std::numeric_limits<double>::infinity();
  for (const double t : {0.0, 0.5, 1.0}) {
    Vec3 p = start;
    for (int d = 0; d < 3; ++d) {
      if (!fixed[d]) p[d] = a[d] + t * (b[d] - a[d]);
    }
    const double cost = q.At(p);
    if (cost < least) {
      least = cost;
      best = p;
    }
  }
  return best;
}

Placement Simplifier::Place(std::uint32_t a, std::uint32_t b) const {
  Placement out;
  if (pinned_[a] && pinned_[b]) return out;
  Quadric q = quadric_[a];
  q.Add(quadric_[b]);
  // A pinned end stays; the other comes to it.
  if (pinned_[a] || pinned_[b]) {
    out.keep = pinned_[a] ? a : b;
    out.drop = pinned_[a] ? b : a;
    out.allowed = true;
    out.at = position_[out.keep];
    out.cost = q.At(out.at);
    return out;
  }
  // On the grid, the kept end lies on every plane either end does.
  bool a_in_b = true, b_in_a = true;
  for (int d = 0; d < 3 && options_.grid; ++d) {
    if (plane_[a][d] != kOffPlane && plane_[a][d] != plane_[b][d]) a_in_b = false;
    if (plane_[b][d] != kOffPlane && plane_[b][d] != plane_[a][d]) b_in_a = false;
  }
  if (!a_in_b && !b_in_a) return out;
  out.allowed = true;
  if (a_in_b != b_in_a) {
    out.keep = a_in_b ? b : a;
    out.drop = a_in_b ? a : b;
    out.at = position_[out.keep];
    out.cost = q.At(out.at);
    return out;
  }
  out.keep = a;
  out.drop = b;
  std::array<bool, 3> fixed{};
  Vec3 start = position_[a];
  for (int d = 0; d < 3 && options_.grid; ++d) {
    if (plane_[a][d] == kOffPlane) continue;
    fixed[d] = true;
    const SimplificationGrid& grid = *options_.grid;
    start[d] =
        (grid.origin[d] + static_cast<double>(plane_[a][d]) * grid.cell[d]) * options_.scale[d];
  }
  out.at = Optimum(q, fixed, start, position_[a], position_[b]);
  if (options_.grid) {
    // Within the cell both ends are in.
    const SimplificationGrid& grid = *options_.grid;
    for (int d = 0; d < 3; ++d) {
      if (fixed[d]) continue;
      const double lo =
          (grid.origin[d] + static_cast<double>(cell_[a][d]) * grid.cell[d]) * options_.scale[d];
      out.at[d] = std::clamp(out.at[d], lo, lo + grid.cell[d] * options_.scale[d]);
    }
  }
  out.cost = q.At(out.at);
  return out;
}

void Simplifier::Push(std::uint32_t a, std::uint32_t b) {
  const Placement p = Place(a, b);
  if (!p.allowed) return;
  // The largest distance to a plane is at least the root mean square: a
  // collapse whose mean is already past the error need not wait in the queue.
  const double e = options_.max_error;
  if (p.cost > e * e * (quadric_[a].planes + quadric_[b].planes)) return;
  queue_.push_back({static_cast<float>(p.cost), a, b, static_cast<std::uint16_t>(version_[a]),
                    static_cast<std::uint16_t>(version_[b])});
  if (heaped_) std::push_heap(queue_.begin(), queue_.end(), std::greater<>());
}

// An entry whose ends changed since it was queued (a newer one stands for
// the edge, if it is still one).
bool Simplifier::Stale(const Candidate& c) const {
  return gone_[c.a] || gone_[c.b] || static_cast<std::uint16_t>(version_[c.a]) != c.version_a ||
         static_cast<std::uint16_t>(version_[c.b]) != c.version_b;
}

void Simplifier::DropStale() {
  std::erase_if(queue_, [this](const Candidate& c) { return Stale(c); });
  std::make_heap(queue_.begin(), queue_.end(), std::greater<>());
}

// The two ends share exactly the two vertices across the edge, and no
// triangle of one has the same other two vertices as a triangle of the
// other: the collapse keeps a manifold of the same topology. The lists are a
// vertex's few neighbours, so linear scans beat sorting them.
bool Simplifier::LinkHolds(std::uint32_t a, std::uint32_t b) const {
  std::uint32_t across[2] = {kNone, kNone};
  int n_across = 0;
  std::vector<std::uint32_t>& around_a = around_;
  around_a.clear();
  for (const std::uint32_t f : faces_of_[a]) {
    const auto& t = triangle_[f];
    const bool has_b = t[0] == b || t[1] == b || t[2] == b;
    for (const std::uint32_t w : t) {
      if (w == a || w == b) continue;
      if (has_b) {
        if (n_across == 2) return false;
        across[n_across++] = w;
      }
      around_a.push_back(w);
    }
  }
  if (n_across != 2 || across[0] == across[1]) return false;
  std::vector<std::uint32_t>& shared = shared_;
  shared.clear();
  for (const std::uint32_t f : faces_of_[b]) {
    for (const std::uint32_t w : triangle_[f]) {
      if (w == a || w == b) continue;
      if (std::find(shared.begin(), shared.end(), w) != shared.end()) continue;
      if (std::find(around_a.begin(), around_a.end(), w) == around_a.end()) continue;
      if (shared.size() == 2) return false;
      shared.push_back(w);
    }
  }
  if (shared.size() != 2) return false;
  // Triangles (a, x, y) and (b, x, y) would become one twice over. The only
  // corners the two ends share are now the two across the edge, s and t,
  // and a has a triangle with each (the ones across), so only a triangle of
  // b with s and t (or one of them twice) and, for s and t, a triangle of a
  // with both make such a pair: one pass over each list, not every pair.
  const std::uint32_t s = shared[0], t = shared[1];
  bool both = false;
  for (const std::uint32_t fb : faces_of_[b]) {
    const auto& tb = triangle_[fb];
    int with_s = 0, with_t = 0;
    for (const std::uint32_t w : tb) {
      with_s += w == s;
      with_t += w == t;
    }
    if (with_s == 2 || with_t == 2) return false;
    both = both || (with_s == 1 && with_t == 1);
  }
  if (!both) return true;
  for (const std::uint32_t fa : faces_of_[a]) {
    const auto& ta = triangle_[fa];
    const bool has_s = ta[0] == s || ta[1] == s || ta[2] == s;
    const bool has_t = ta[0] == t || ta[1] == t || ta[2] == t;
    if (has_s && has_t) return false;
  }
  return true;
}

// No triangle that stays turns over or loses its area.
bool Simplifier::NothingTurns(const Placement& p) const {
  for (const std::uint32_t v : {p.keep, p.drop}) {
    const std::uint32_t other = v == p.keep ? p.drop : p.keep;
    for (const std::uint32_t f : faces_of_[v]) {
      const auto& t = triangle_[f];
      if (t[0] == other || t[1] == other || t[2] == other) continue;  // It goes.
      std::array<Vec3, 3> before{}, after{};
      for (int k = 0; k < 3; ++k) {
        before[k] = position_[t[k]];
        after[k] = t[k] == v ? p.at : before[k];
      }
      const Vec3 n0 = Cross(Sub(before[1], before[0]), Sub(before[2], before[0]));
      const Vec3 n1 = Cross(Sub(after[1], after[0]), Sub(after[2], after[0]));
      const double l0 = std::sqrt(Dot(n0, n0)), l1 = std::sqrt(Dot(n1, n1));
      if (l1 <= 1e-12 * std::max(l0, 1e-300)) return false;
      if (Dot(n0, n1) < 0.1 * l0 * l1) return false;
    }
  }
  return true;
}

// The squared distance from p to the triangle abc (the closest point is a
// corner, a point of an edge, or a point inside, by where p projects).
double SquaredDistanceToTriangle(const Vec3& p, const Vec3& a, const Vec3& b, const Vec3& c) {
  const Vec3 ab = Sub(b, a), ac = Sub(c, a), ap = Sub(p, a);
  const double d1 = Dot(ab, ap), d2 = Dot(ac, ap);
  auto squared = [&](const Vec3& q) { return Dot(Sub(p, q), Sub(p, q)); };
  auto along = [](const Vec3& from, const Vec3& to, double t) {
    return Vec3{from[0] + t * (to[0] - from[0]), from[1] + t * (to[1] - from[1]),
                from[2] + t * (to[2] - from[2])};
  };
  if (d1 <= 0 && d2 <= 0) return squared(a);
  const Vec3 bp = Sub(p, b);
  const double d3 = Dot(ab, bp), d4 = Dot(ac, bp);
  if (d3 >= 0 && d4 <= d3) return squared(b);
  const double vc = d1 * d4 - d3 * d2;
  if (vc <= 0 && d1 >= 0 && d3 <= 0) return squared(along(a, b, d1 / (d1 - d3)));
  const Vec3 cp = Sub(p, c);
  const double d5 = Dot(ab, cp), d6 = Dot(ac, cp);
  if (d6 >= 0 && d5 <= d6) return squared(c);
  const double vb = d5 * d2 - d1 * d6;
  if (vb <= 0 && d2 >= 0 && d6 <= 0) return squared(along(a, c, d2 / (d2 - d6)));
  const double va = d3 * d6 - d5 * d4;
  if (va <= 0 && d4 - d3 >= 0 && d5 - d6 >= 0) {
    return squared(along(b, c, (d4 - d3) / ((d4 - d3) + (d5 - d6))));
  }
  const double sum = va + vb + vc;
  if (!(sum > 0)) return squared(a);  // No area: its corners were checked.
  const double v = vb / sum, w = vc / sum;
  return squared(
      {a[0] + ab[0] * v + ac[0] * w, a[1] + ab[1] * v + ac[1] * w, a[2] + ab[2] * v + ac[2] * w});
}

// The merged vertex is within the error of an original triangle it stands
// for (so of the original surface), and the root mean square of its
// distances to their planes is within it too (so the surface around it keeps
// its shape rather than only touching the old one).
bool Simplifier::WithinError(const Placement& p) const {
  const double e = options_.max_error;
  if (p.cost > e * e * (quadric_[p.keep].planes + quadric_[p.drop].planes)) return false;
  // A vertex stands for the triangles it started on: where it started is on them.
  if (p.at == original_position_[p.keep] || p.at == original_position_[p.drop]) return true;
  for (const std::uint32_t v : {p.keep, p.drop}) {
    for (const std::uint32_t t : support_[v]) {
      const auto& [a, b, c] = std::array<std::uint32_t, 3>{
          mesh_.triangles[3 * t], mesh_.triangles[3 * t + 1], mesh_.triangles[3 * t + 2]};
      if (SquaredDistanceToTriangle(p.at, original_position_[a], original_position_[b],
                                    original_position_[c]) <= e * e) {
        return true;
      }
    }
  }
  return false;
}

// The vertices that share a triangle with v, each once.
void Simplifier::Neighbours(std::uint32_t v, std::vector<std::uint32_t>& out) const {
  out.clear();
  for (const std::uint32_t f : faces_of_[v]) {
    for (const std::uint32_t w : triangle_[f]) {
      if (w != v && std::find(out.begin(), out.end(), w) == out.end()) out.push_back(w);
    }
  }
}

// Makes the collapse; with `queue`, the kept vertex's edges are queued anew.
void Simplifier::Collapse(const Placement& p, bool queue) {
  const std::uint32_t keep = p.keep, drop = p.drop;
  if (p.at != position_[keep]) moved_[keep] = true;
  position_[keep] = p.at;
  quadric_[keep].Add(quadric_[drop]);
  merged_.clear();
  std::set_union(support_[keep].begin(), support_[keep].end(), support_[drop].begin(),
                 support_[drop].end(), std::back_inserter(merged_));
  support_[keep].assign(merged_.begin(), merged_.end());
  support_[drop] = {};
  for (const std::uint32_t f : faces_of_[drop]) {
    auto& t = triangle_[f];
    if (t[0] == keep || t[1] == keep || t[2] == keep) {
      alive_[f] = false;
      --live_triangles_;
      for (const std::uint32_t w : t) {
        if (w == drop) continue;
        auto& list = faces_of_[w];
        list.erase(std::find(list.begin(), list.end(), f));
      }
      continue;
    }
    for (std::uint32_t& w : t) {
      if (w == drop) w = keep;
    }
    faces_of_[keep].push_back(f);
  }
  faces_of_[drop] = {};
  gone_[drop] = true;
  ++version_[keep];
  if (!queue) return;
  Neighbours(keep, neighbours_);
  for (const std::uint32_t w : neighbours_) Push(keep, w);
}

// Whether v folds onto its neighbour w within kFoldSlope: w stays where it
// is, and the root mean square of the distances from w to every plane v and
// w stand for is within kFoldSlope of the edge's length. The grid and
// pinning rules are Place's: v is free and w lies on every grid plane v does.
bool Simplifier::Folds(std::uint32_t v, std::uint32_t w, Placement& out) const {
  for (int d = 0; d < 3; ++d) {
    if (plane_[v][d] != kOffPlane && plane_[v][d] != plane_[w][d]) return false;
  }
  const Vec3 edge = Sub(position_[w], position_[v]);
  const double planes = quadric_[v].planes + quadric_[w].planes;
  const double cost = quadric_[v].At(position_[w]) + quadric_[w].At(position_[w]);
  if (cost > kFoldSlope * kFoldSlope * Dot(edge, edge) * planes) return false;
  out.allowed = true;
  out.keep = w;
  out.drop = v;
  out.at = position_[w];
  out.cost = cost;
  return true;
}

// Before the queue is made, one sweep over the vertices folds each onto its
// cheapest neighbour within kFoldSlope, without placing, queueing and
// popping each of its edges: voxel surfaces are mostly flat patches and
// staircases, whose collapses the queue would take first anyway. Folded
// onto an end (not the optimum), a vertex needs no solving and stays on the
// original surface. The sweep stops at `floor` triangles, leaving the last
// collapses to the queue's order.
void Simplifier::FoldVertices(std::size_t floor) {
  std::vector<std::pair<double, std::uint32_t>> cheap;
  for (std::uint32_t v = 0; v < position_.size() && live_triangles_ > floor; ++v) {
    if (gone_[v] || pinned_[v] || faces_of_[v].empty()) continue;
    Neighbours(v, neighbours_);
    cheap.clear();
    Placement p;
    for (const std::uint32_t w : neighbours_) {
      if (Folds(v, w, p)) cheap.emplace_back(p.cost, w);
    }
    std::sort(cheap.begin(), cheap.end());
    for (const auto& [cost, w] : cheap) {
      Folds(v, w, p);
      if (LinkHolds(w, v) && NothingTurns(p) && WithinError(p)) {
        Collapse(p, /*queue=*/false);
        break;
      }
    }
  }
}

LabelMesh Simplifier::Output() const {
  LabelMesh out;
  std::vector<std::uint32_t> index(position_.size(), kNone);
  for (std::size_t f = 0; f < triangle_.size(); ++f) {
    if (!alive_[f]) continue;
    for (const std::uint32_t v : triangle_[f]) {
      if (index[v] == kNone) {
        index[v] = static_cast<std::uint32_t>(out.num_vertices());
        for (int d = 0; d < 3; ++d) {
          float x = mesh_.vertices[3 * v + d];
          if (moved_[v]) {
            x = static_cast<float>(position_[v][d] / options_.scale[d]);
            if (plane_[v][d] != kOffPlane) {  // Exactly on its plane.
              const SimplificationGrid& grid = *options_.grid;
              x = static_cast<float>(grid.origin[d] +
                                     static_cast<double>(plane_[v][d]) * grid.cell[d]);
            }
          }
          out.vertices.push_back(x);
        }
      }
      out.triangles.push_back(index[v]);
    }
  }
  return out;
}

LabelMesh Simplifier::Run() {
  Load();
  PinBorders();
  if (options_.grid) PlaceOnGrid();
  const double factor = options_.reduction_factor;
  const std::size_t target =
      factor > 1 ? static_cast<std::size_t>(std::ceil(live_triangles_ / factor)) : 0;
  FoldVertices(2 * target);
  for (std::size_t f = 0; f < triangle_.size(); ++f) {
    if (!alive_[f]) continue;
    const auto& t = triangle_[f];
    for (int k = 0; k < 3; ++k) {
      // Each edge of a consistently oriented mesh once.
      if (t[k] < t[(k + 1) % 3]) Push(t[k], t[(k + 1) % 3]);
    }
  }
  std::make_heap(queue_.begin(), queue_.end(), std::greater<>());
  heaped_ = true;
  while (!queue_.empty() && live_triangles_ > target) {
    std::pop_heap(queue_.begin(), queue_.end(), std::greater<>());
    const Candidate c = queue_.back();
    queue_.pop_back();
    if (Stale(c)) continue;
    const Placement p = Place(c.a, c.b);
    if (!p.allowed || !LinkHolds(c.a, c.b) || !NothingTurns(p) || !WithinError(p)) continue;
    Collapse(p, /*queue=*/true);
    // A live edge has at most one current entry, and a closed mesh 3/2 edges
    // per triangle: past three entries a triangle, most are stale, and
    // dropping them in one pass costs less than popping each of them.
    if (queue_.size() > 3 * live_triangles_ + 4096) DropStale();
  }
  return Output();
}

}  // namespace

LabelMesh SimplifyMesh(const LabelMesh& mesh, const SimplificationOptions& options) {
  if (!(options.max_error > 0) || mesh.triangles.empty()) return mesh;
  Simplifier simplifier(mesh, options);
  return simplifier.Run();
}

}  // namespace chunkwise::pipelines
