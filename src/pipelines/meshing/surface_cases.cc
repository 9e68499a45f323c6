#include "pipelines/meshing/surface_cases.h"

#include <algorithm>

namespace chunkwise::pipelines::meshing {
namespace {

int CornerCoord(int corner, int axis) { return (corner >> axis) & 1; }

int CornerAt(const std::array<int, 3>& xyz) { return xyz[0] | xyz[1] << 1 | xyz[2] << 2; }

// The edge joining two corners that differ along exactly one axis.
int EdgeBetween(int c1, int c2) {
  const int diff = c1 ^ c2;
  const int axis = diff == 1 ? 0 : diff == 2 ? 1 : 2;
  const int u = (axis + 1) % 3;
  const int v = (axis + 2) % 3;
  return axis * 4 + CornerCoord(c1, u) + 2 * CornerCoord(c1, v);
}

// The two faces (axis * 2 + side) that edge `e` lies on.
std::array<int, 2> FacesOfEdge(int e) {
  const int axis = e / 4;
  const int u = (axis + 1) % 3;
  const int v = (axis + 2) % 3;
  return {u * 2 + (e % 4 & 1), v * 2 + (e % 4 >> 1)};
}

bool ShareAFace(int e1, int e2) {
  const std::array<int, 2> a = FacesOfEdge(e1);
  const std::array<int, 2> b = FacesOfEdge(e2);
  return a[0] == b[0] || a[0] == b[1] || a[1] == b[0] || a[1] == b[1];
}

// The corners of face (axis, side), counter-clockwise seen from outside the cube.
std::array<int, 4> FaceCorners(int axis, int side) {
  const int u = (axis + 1) % 3;
  const int v = (axis + 2) % 3;
  // Counter-clockwise seen from +axis, since u × v = axis.
  constexpr int kSquare[4][2] = {{0, 0}, {1, 0}, {1, 1}, {0, 1}};
  std::array<int, 4> corners{};
  for (int k = 0; k < 4; ++k) {
    std::array<int, 3> xyz{};
    xyz[axis] = side;
    xyz[u] = kSquare[k][0];
    xyz[v] = kSquare[k][1];
    corners[k] = CornerAt(xyz);
  }
  if (side == 0) std::reverse(corners.begin(), corners.end());
  return corners;
}

// Each face's segments, as next[edge] = edge: from where the walk around the
// face enters a run of inside corners to where it leaves it, so that inside
// is on the right seen from outside the cube.
std::array<int, 12> Segments(int mask) {
  std::array<int, 12> next;
  next.fill(-1);
  for (int face = 0; face < 6; ++face) {
    const std::array<int, 4> c = FaceCorners(face / 2, face % 2);
    auto inside = [&](int k) { return (mask >> c[(k + 4) % 4] & 1) != 0; };
    for (int k = 0; k < 4; ++k) {
      if (!inside(k) || inside(k + 1)) continue;
      int j = k;
      while (inside(j - 1)) j = (j + 3) % 4;
      next[EdgeBetween(c[(j + 3) % 4], c[j])] = EdgeBetween(c[k], c[(k + 1) % 4]);
    }
  }
  return next;
}

void Triangulate(SurfaceLoop& loop) {
  const int n = static_cast<int>(loop.edges.size());
  auto at = [&](int i) { return loop.edges[i % n]; };
  for (int s = 0; s < n; ++s) {
    bool safe = true;
    for (int i = 2; i <= n - 2 && safe; ++i) safe = !ShareAFace(at(s), at(s + i));
    if (!safe) continue;
    for (int i = 1; i + 1 < n; ++i) loop.triangles.push_back({at(s), at(s + i), at(s + i + 1)});
    return;
  }
  for (int i = 0; i < n; ++i) {
    loop.triangles.push_back({static_cast<std::uint8_t>(kCentroid), at(i), at(i + 1)});
  }
}

SurfaceCase BuildCase(int mask) {
  const std::array<int, 12> next = Segments(mask);
  std::array<bool, 12> used{};
  SurfaceCase result;
  for (int start = 0; start < 12; ++start) {
    if (next[start] < 0 || used[start]) continue;
    SurfaceLoop loop;
    for (int e = start; !used[e]; e = next[e]) {
      used[e] = true;
      loop.edges.push_back(static_cast<std::uint8_t>(e));
    }
    Triangulate(loop);
    result.loops.push_back(std::move(loop));
  }
  return result;
}

}  // namespace

const std::array<SurfaceCase, 256>& SurfaceCases() {
  static const std::array<SurfaceCase, 256> cases = [] {
    std::array<SurfaceCase, 256> built;
    for (int mask = 0; mask < 256; ++mask) built[mask] = BuildCase(mask);
    return built;
  }();
  return cases;
}

std::array<int, 3> DoubledEdgeMidpoint(int e) {
  const int axis = e / 4;
  std::array<int, 3> p{};
  p[axis] = 1;
  p[(axis + 1) % 3] = 2 * (e % 4 & 1);
  p[(axis + 2) % 3] = 2 * (e % 4 >> 1);
  return p;
}

}  // namespace chunkwise::pipelines::meshing
