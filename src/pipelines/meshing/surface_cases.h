// The triangles marching cubes puts in one cube of a binary mask, for each of
// the 256 ways its eight corners can be inside or outside.
//
// The table is built by code at first use rather than written out: for each
// face of the cube, the edges where inside meets outside are joined into
// segments (an ambiguous face, two inside corners on a diagonal, keeps them
// apart: inside is 6-connected), the segments are chained into closed loops
// and each loop is triangulated. Two cubes see the same corners on the face
// they share and so draw the same segments there, which is what makes the
// surface of a whole volume closed. Loops are oriented so that triangles are
// counter-clockwise seen from outside the label (normals point outward).
//
// Corner c (0..7) is at (c & 1, c >> 1 & 1, c >> 2 & 1) in (x, y, z); edge e
// (0..11) runs along axis e / 4 from the corner whose other two coordinates
// are (e % 4 & 1, e % 4 >> 1) in the order of the two other axes, cyclic
// after the edge's own (x: y,z; y: z,x; z: x,y). A loop that a fan from one
// of its vertices would triangulate with a diagonal lying on a cube face
// (which the neighbouring cube could draw too, making an edge of four faces)
// is fanned from a vertex of its own at the loop's centroid instead.
#ifndef CHUNKWISE_PIPELINES_MESHING_SURFACE_CASES_H_
#define CHUNKWISE_PIPELINES_MESHING_SURFACE_CASES_H_

#include <array>
#include <cstdint>
#include <vector>

namespace chunkwise::pipelines::meshing {

// A loop's own vertex, at the centroid of its edge crossings.
inline constexpr int kCentroid = 12;

struct SurfaceLoop {
  // The cube edges the loop crosses, in order.
  std::vector<std::uint8_t> edges;
  // Triangles as triples of edge numbers, or kCentroid for the loop's own vertex.
  std::vector<std::array<std::uint8_t, 3>> triangles;
};

struct SurfaceCase {
  std::vector<SurfaceLoop> loops;
};

// The 256 cases, indexed by the mask of inside corners (bit c: corner c).
const std::array<SurfaceCase, 256>& SurfaceCases();

// Twice the position of edge `e`'s midpoint in the unit cube (x, y, z):
// each coordinate 0, 1 or 2.
std::array<int, 3> DoubledEdgeMidpoint(int e);

}  // namespace chunkwise::pipelines::meshing

#endif  // CHUNKWISE_PIPELINES_MESHING_SURFACE_CASES_H_
