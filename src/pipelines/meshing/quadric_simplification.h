// Simplification of a triangle mesh by edge collapses, in the order of the
// quadric error metric (docs/formats/precomputed-meshes.md, "How meshes are
// simplified").
//
// Each original triangle's plane is remembered, and so is which original
// triangles each vertex stands for (the triangles around the vertices merged
// into it). An edge collapse merges its two ends into one vertex placed where
// the sum of squared distances to their planes is least; the cheapest collapse
// goes first. A collapse is made only when
//  - the new vertex lies within `max_error` (physical units) of one of the
//    original triangles it stands for, so every vertex stays within the
//    error of the original surface, and the root mean square of its
//    distances to their planes is within `max_error` too, so the surface
//    around it keeps the shape of what it replaces;
//  - the two ends share exactly the two neighbours across the edge (the link
//    condition), so the mesh stays a manifold of the same topology, and no
//    two triangles come to join the same three vertices;
//  - no triangle around it turns over or collapses to a line;
//  - vertices on the mesh's open border stay where they are, and so do
//    vertices on the planes of `grid` (or, sliding, they move only within the
//    planes they lie on, and only onto vertices of the same planes), so a
//    mesh cut into the grid's cells keeps every triangle within one cell and
//    the pieces keep meeting on the planes.
// Before the queue by cost, one sweep folds each vertex onto its cheapest
// neighbour where the root mean square of the distances to the planes is at
// most 0.35 times the edge's length (a slope, the same at any scale) and the
// same conditions hold, down to twice the triangles aimed at. The error only
// bounds the collapses: the same mesh in units 2^k times smaller, with the
// same error binding in neither, gives the same triangles.
// It stops when the mesh is down to 1/reduction_factor of its triangles or no
// collapse is left within the error, whichever comes first.
#ifndef CHUNKWISE_PIPELINES_MESHING_QUADRIC_SIMPLIFICATION_H_
#define CHUNKWISE_PIPELINES_MESHING_QUADRIC_SIMPLIFICATION_H_

#include <array>
#include <optional>

#include "pipelines/meshing/label_meshes.h"

namespace chunkwise::pipelines {

// Planes x = origin + k * cell (per axis, mesh units) that vertices keep to.
struct SimplificationGrid {
  std::array<double, 3> origin{};
  std::array<double, 3> cell{};
  // false: vertices on a plane never move. true: they move within their
  // planes (the lines where two meet, not at all at a corner).
  bool slide = true;
};

struct SimplificationOptions {
  // How far a vertex may move from the original surface's planes, in
  // physical units. <= 0: the mesh is returned as it is.
  double max_error = 40;
  // Stop at triangles / reduction_factor triangles; <= 1: only the error
  // bounds the collapses.
  double reduction_factor = 100;
  // The physical size of a mesh unit on each axis (x, y, z).
  std::array<double, 3> scale{1, 1, 1};
  std::optional<SimplificationGrid> grid;
};

// `mesh` simplified as above. Vertices that no triangle uses are dropped;
// those that did not move keep their exact coordinates; orientation is kept.
LabelMesh SimplifyMesh(const LabelMesh& mesh, const SimplificationOptions& options);

}  // namespace chunkwise::pipelines

#endif  // CHUNKWISE_PIPELINES_MESHING_QUADRIC_SIMPLIFICATION_H_
