// What GenerateMeshes (facade/meshes.h) and the steps of a split meshing
// job (facade/mesh_jobs.h) share: the options checked, the label volume
// opened, the destination checked, the names read: for src/facade alone.
#ifndef CHUNKWISE_FACADE_MESH_SETUP_H_
#define CHUNKWISE_FACADE_MESH_SETUP_H_

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>

#include "chunkwise/facade/meshes.h"
#include "formats/precomputed/info.h"
#include "formats/precomputed/segment_properties.h"
#include "pipelines/meshing/label_meshes.h"
#include "pipelines/meshing/mesh_levels.h"
#include "pipelines/meshing/mesh_parts.h"

namespace chunkwise::mesh_setup {

// A source of labels (z, y, x) that keeps what it reads from open.
struct OpenedSource {
  pipelines::LabelSource source;
  std::shared_ptr<void> keep;
  // A precomputed source's finest scale, (x, y, z); a zarr array's voxels are 1 and at 0.
  std::array<double, 3> resolution{1, 1, 1};
  std::array<std::int64_t, 3> voxel_offset{0, 0, 0};
};

// The options' own errors, as GenerateMeshes names them.
Status CheckMeshOptions(const MeshOptions& options);

Result<OpenedSource> OpenLabels(const Context& context, std::string_view url,
                                const CallOptions& call);

// The destination's finest scale, checked before any meshing.
Result<formats::precomputed::ScaleInfo> CheckDestination(const Context& context,
                                                         std::string_view url,
                                                         const std::array<std::int64_t, 3>& shape,
                                                         const MeshOptions& options);

// The names of options.names_csv; none when it is empty.
Result<std::map<std::uint64_t, formats::precomputed::SegmentName>> ReadNames(
    const std::string& path);

// The job GenerateMeshes runs, or a split job's steps each run: chunks and
// labels; placement in the segmentation of finest scale `scale` (physical
// for legacy meshes, voxels for multires, whose info's transform scales
// them); output and levels of detail. No pool, progress or cancellation.
pipelines::MeshJob PlanMeshJob(const MeshOptions& options,
                               const formats::precomputed::ScaleInfo& scale,
                               const std::array<std::int64_t, 3>& shape,
                               std::map<std::uint64_t, formats::precomputed::SegmentName> names,
                               int parts);

// How a zarr-vectors job makes its levels: options.lods levels, clustered
// (when unsimplified) on the voxels of `opened` and options.chunk.
pipelines::MeshLevelsOptions VectorLevels(const MeshOptions& options, const OpenedSource& opened);

// `levels` written as a new zarr-vectors mesh store (layout 0.9) at
// `dest_url`, whose chunks are options.chunk times the source's resolution:
// level k holds every label's k-th mesh, labels in order, the label as
// object id. The summary's segments, vertices and triangles (level 0); no
// voxels. InvalidArgument for a label of 2^63 or more; WriteVectorLevels' errors.
Result<MeshSummary> WriteVectorMeshes(const Context& context, std::string_view dest_url,
                                      const pipelines::LeveledMeshes& levels,
                                      const OpenedSource& opened, const MeshOptions& options,
                                      const CallOptions& call);

}  // namespace chunkwise::mesh_setup

#endif  // CHUNKWISE_FACADE_MESH_SETUP_H_
