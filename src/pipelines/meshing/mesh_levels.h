// Resolution levels of label meshes for a zarr-vectors mesh store
// (docs/formats/vectors-meshes.md): what `chunkwise mesh --format vectors`
// writes as the store's levels 0, 1, ..., each a whole mesh per label.
//
// Level 0 is the legacy mesh (the label's mesh simplified as
// WriteLegacyMeshes simplifies it), so both outputs hold the same triangles.
// Level k > 0 is level k - 1 simplified again at 2^k times the error, as
// the multi-resolution format's levels of detail are; meshes written
// unsimplified (max_error <= 0) get level k by clustering level 0's vertices
// in cubes of 2^k voxels (pipelines/meshing/mesh_lods.h). A label whose
// next level would keep no triangle keeps its last mesh on every coarser
// level, so each level holds every label.
//
// Positions are physical, as the meshes given. The same meshes give the same
// levels bit for bit wherever they are computed: a split job's parts
// (pipelines/meshing/mesh_parts.h) and one process write the same store.
#ifndef CHUNKWISE_PIPELINES_MESHING_MESH_LEVELS_H_
#define CHUNKWISE_PIPELINES_MESHING_MESH_LEVELS_H_

#include <array>
#include <cstdint>
#include <map>
#include <vector>

#include "chunkwise/core/result.h"
#include "pipelines/meshing/label_meshes.h"
#include "pipelines/meshing/mesh_output.h"

namespace chunkwise::pipelines {

struct MeshLevelsOptions {
  int levels = 3;  // 1 to 16.
  // How the meshes were placed (MeshingOptions): the voxel grid the
  // unsimplified levels cluster on, and the chunks (voxels, z, y, x) whose
  // cells keep clusters apart.
  std::array<double, 3> resolution{1, 1, 1};
  std::array<std::int64_t, 3> voxel_offset{0, 0, 0};
  std::array<std::int64_t, 3> chunk{128, 128, 128};
};

// Each label's meshes, level 0 first.
using LeveledMeshes = std::map<std::uint64_t, std::vector<LabelMesh>>;

// InvalidArgument (field "lods") for levels outside 1 to 16.
Status CheckMeshLevels(const MeshLevelsOptions& levels);

// The levels of one label's mesh as meshed.
std::vector<LabelMesh> MeshLevels(const LabelMesh& mesh, const MeshOutputOptions& simplification,
                                  const MeshLevelsOptions& levels);

// MeshLevels of every mesh, labels in parallel on simplification.pool;
// Cancelled between labels.
Result<LeveledMeshes> BuildMeshLevels(const std::map<std::uint64_t, LabelMesh>& meshes,
                                      const MeshOutputOptions& simplification,
                                      const MeshLevelsOptions& levels);

}  // namespace chunkwise::pipelines

#endif  // CHUNKWISE_PIPELINES_MESHING_MESH_LEVELS_H_
