#include "pipelines/meshing/mesh_levels.h"

#include <cmath>
#include <string>
#include <utility>

#include "pipelines/meshing/mesh_lods.h"
#include "pipelines/meshing/quadric_simplification.h"

namespace chunkwise::pipelines {
namespace {

constexpr int kMaxLevels = 16;

// Level k > 0: the error of level 0 (SimplifyAsLegacy) times 2^k.
SimplificationOptions Simplification(const MeshOutputOptions& options, int level) {
  SimplificationOptions out;
  out.max_error = std::ldexp(options.max_error, level);
  out.reduction_factor = options.reduction_factor;
  return out;
}

}  // namespace

Status CheckMeshLevels(const MeshLevelsOptions& levels) {
  if (levels.levels < 1 || levels.levels > kMaxLevels) {
    return Status::InvalidArgument("resolution levels: 1 to " + std::to_string(kMaxLevels) +
                                   ", not " + std::to_string(levels.levels))
        .WithField("lods");
  }
  return Status::Ok();
}

std::vector<LabelMesh> MeshLevels(const LabelMesh& mesh, const MeshOutputOptions& simplification,
                                  const MeshLevelsOptions& levels) {
  std::vector<LabelMesh> out;
  out.push_back(SimplifyAsLegacy(mesh, simplification));
  // Unsimplified: clusters on the voxel grid, cells of the meshing chunks
  // (x, y, z), starting half a voxel below the first voxel as the surface does.
  LodGrid grid;
  for (int d = 0; d < 3; ++d) {
    grid.voxel[d] = levels.resolution[d];
    grid.origin[d] = (static_cast<double>(levels.voxel_offset[d]) - 0.5) * levels.resolution[d];
    grid.cell[d] = static_cast<double>(levels.chunk[2 - d]) * levels.resolution[d];
  }
  for (int level = 1; level < levels.levels; ++level) {
    LabelMesh coarser = simplification.max_error > 0
                            ? SimplifyMesh(out.back(), Simplification(simplification, level))
                            : SimplifyForLod(out.front(), grid, level);
    // A label too small for this level keeps its last mesh.
    out.push_back(coarser.triangles.empty() ? out.back() : std::move(coarser));
  }
  return out;
}

Result<LeveledMeshes> BuildMeshLevels(const std::map<std::uint64_t, LabelMesh>& meshes,
                                      const MeshOutputOptions& simplification,
                                      const MeshLevelsOptions& levels) {
  CHUNKWISE_RETURN_IF_ERROR(CheckMeshLevels(levels));
  LeveledMeshes out;
  std::vector<std::pair<const LabelMesh*, std::vector<LabelMesh>*>> work;
  for (const auto& [label, mesh] : meshes) work.emplace_back(&mesh, &out[label]);
  auto build = [&](std::size_t i) -> Status {
    if (simplification.cancellation != nullptr) {
      CHUNKWISE_RETURN_IF_ERROR(simplification.cancellation->Check("simplifying meshes"));
    }
    *work[i].second = MeshLevels(*work[i].first, simplification, levels);
    return Status::Ok();
  };
  if (simplification.pool != nullptr) {
    CHUNKWISE_RETURN_IF_ERROR(simplification.pool->ParallelFor(work.size(), build));
  } else {
    for (std::size_t i = 0; i < work.size(); ++i) CHUNKWISE_RETURN_IF_ERROR(build(i));
  }
  return out;
}

}  // namespace chunkwise::pipelines
