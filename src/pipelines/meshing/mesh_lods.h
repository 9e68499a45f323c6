// Levels of detail of a label's mesh for neuroglancer's multi-resolution
// format (formats/precomputed/multires_mesh.h,
// docs/formats/precomputed-meshes.md, "Multi-resolution meshes").
//
// Used for meshes written unsimplified: simplified ones get their coarser
// levels by simplifying again (pipelines/meshing/mesh_output.cc,
// quadric_simplification.h). LOD 0 is the mesh as meshed. LOD k > 0 is made
// by vertex clustering: the fragment grid of LOD k - 1 (cells of
// fragment * 2^(k-1) voxels) is cut
// into clusters of 2^k voxels a side, each vertex moves to the mean of the
// vertices of its cluster, and triangles whose corners meet are dropped. A
// vertex on a plane of that grid clusters only with vertices on the same
// plane (and the same lines), so it stays on it: no triangle of LOD k
// crosses a cell of LOD k - 1, which neuroglancer needs to hide the parts of
// a fragment whose finer children it draws, and the two sides of a plane
// keep meeting there.
#ifndef CHUNKWISE_PIPELINES_MESHING_MESH_LODS_H_
#define CHUNKWISE_PIPELINES_MESHING_MESH_LODS_H_

#include <array>

#include "pipelines/meshing/label_meshes.h"

namespace chunkwise::pipelines {

// The fragment grid of LOD 0, in the mesh's units (voxels), x, y, z.
struct LodGrid {
  std::array<double, 3> origin{};
  std::array<double, 3> cell{};
  // A voxel's size in the mesh's units: clusters are 2^k of them a side.
  std::array<double, 3> voxel{1, 1, 1};
};

// The mesh of LOD `lod` (>= 1) of `full`, by clustering as above. May have
// no triangles where the label is small beside the clusters.
LabelMesh SimplifyForLod(const LabelMesh& full, const LodGrid& grid, int lod);

}  // namespace chunkwise::pipelines

#endif  // CHUNKWISE_PIPELINES_MESHING_MESH_LODS_H_
