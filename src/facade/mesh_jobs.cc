#include "chunkwise/facade/mesh_jobs.h"

#include <algorithm>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "facade/mesh_setup.h"
#include "facade/new_vectors_store.h"
#include "pipelines/meshing/mesh_parts.h"

namespace chunkwise {
namespace {

namespace pc = formats::precomputed;

// What every step opens and checks alike.
struct PreparedStep {
  mesh_setup::OpenedSource opened;
  std::shared_ptr<store::Store> dest;
  std::shared_ptr<core::ThreadPool> pool;
  pipelines::MeshJob job;
};

Result<PreparedStep> PrepareStep(const Context& context, std::string_view source_url,
                                 std::string_view dest_url, const MeshOptions& options, int parts,
                                 const CallOptions& call) {
  CHUNKWISE_RETURN_IF_ERROR(mesh_setup::CheckMeshOptions(options));
  if (parts < 1) {
    return Status::InvalidArgument("a mesh job has at least 1 part, not " + std::to_string(parts))
        .WithField("parts");
  }
  CHUNKWISE_RETURN_IF_ERROR(context.CheckCancelled(call, "meshing " + std::string(source_url)));
  CHUNKWISE_ASSIGN_OR_RETURN(auto names, mesh_setup::ReadNames(options.names_csv));
  PreparedStep step;
  CHUNKWISE_ASSIGN_OR_RETURN(step.opened, mesh_setup::OpenLabels(context, source_url, call));
  if (options.format == "vectors") {
    // A new zarr-vectors store: the scratch objects go where it will be,
    // and FinishMeshJob writes it as GenerateMeshes does.
    CHUNKWISE_ASSIGN_OR_RETURN(step.dest,
                               OpenStore(context, dest_url, context.store_options(true)));
    CHUNKWISE_ASSIGN_OR_RETURN(step.pool, context.pool(call));
    pipelines::MeshJob& job = step.job;
    job.parts = parts;
    job.shape = step.opened.source.shape;
    job.vectors = true;
    job.levels = mesh_setup::VectorLevels(options, step.opened);
    job.meshing.chunk = options.chunk;
    if (!options.labels.empty()) job.meshing.labels = options.labels;
    job.meshing.resolution = step.opened.resolution;
    job.meshing.voxel_offset = step.opened.voxel_offset;
    job.output.overwrite = options.overwrite;
    job.output.max_error = options.max_simplification_error;
    job.output.reduction_factor = options.simplification_factor;
  } else {
    CHUNKWISE_ASSIGN_OR_RETURN(
        const pc::ScaleInfo scale,
        mesh_setup::CheckDestination(context, dest_url, step.opened.source.shape, options));
    CHUNKWISE_ASSIGN_OR_RETURN(step.dest,
                               OpenStore(context, dest_url, context.store_options(true)));
    CHUNKWISE_ASSIGN_OR_RETURN(step.pool, context.pool(call));
    step.job =
        mesh_setup::PlanMeshJob(options, scale, step.opened.source.shape, std::move(names), parts);
  }
  step.job.meshing.pool = step.pool.get();
  step.job.meshing.cancellation = &context.cancellation(call);
  step.job.output.pool = step.pool.get();
  step.job.output.cancellation = &context.cancellation(call);
  return step;
}

// Voxels of chunks [first, last) of the grid `chunk` lays over `shape`.
std::uint64_t ChunkVoxels(const std::array<std::int64_t, 3>& shape,
                          const std::array<std::int64_t, 3>& chunk, std::uint64_t first,
                          std::uint64_t last) {
  std::array<std::int64_t, 3> grid{};
  for (int d = 0; d < 3; ++d) grid[d] = (shape[d] + chunk[d] - 1) / chunk[d];
  std::uint64_t voxels = 0;
  for (std::uint64_t i = first; i < last; ++i) {
    const auto index = static_cast<std::int64_t>(i);
    const std::array<std::int64_t, 3> g{index / (grid[1] * grid[2]), index / grid[2] % grid[1],
                                        index % grid[2]};
    std::uint64_t box = 1;
    for (int d = 0; d < 3; ++d) {
      box *= static_cast<std::uint64_t>(std::min(chunk[d], shape[d] - g[d] * chunk[d]));
    }
    voxels += box;
  }
  return voxels;
}

}  // namespace

Status MeshJobPart(const Context& context, std::string_view source_url, std::string_view dest_url,
                   const MeshOptions& options, int part, int parts, const CallOptions& call) {
  CHUNKWISE_ASSIGN_OR_RETURN(PreparedStep step,
                             PrepareStep(context, source_url, dest_url, options, parts, call));
  if (step.job.vectors) {
    CHUNKWISE_RETURN_IF_ERROR(CheckNewVectorsStore(
        *step.dest, dest_url, pipelines::kMeshScratchFolder, options.overwrite));
  }
  std::uint64_t voxels = 0;
  if (part >= 0 && part < parts &&
      std::all_of(options.chunk.begin(), options.chunk.end(),
                  [](std::int64_t c) { return c > 0; })) {
    const std::uint64_t chunks = pipelines::CountChunks(step.opened.source, step.job.meshing);
    const auto p = static_cast<std::uint64_t>(part);
    const auto n = static_cast<std::uint64_t>(parts);
    voxels =
        ChunkVoxels(step.opened.source.shape, options.chunk, chunks * p / n, chunks * (p + 1) / n);
  }
  std::unique_ptr<core::ProgressReporter> progress =
      context.StartProgress(call, "mesh", voxels, "voxels");
  step.job.meshing.progress = progress.get();
  const Status status = pipelines::MeshJobPart(step.opened.source, *step.dest, step.job, part);
  if (!status.ok()) return status.WithContext("meshing " + std::string(source_url));
  progress->Finish();
  return Status::Ok();
}

Status MergeMeshJobPart(const Context& context, std::string_view source_url,
                        std::string_view dest_url, const MeshOptions& options, int part, int parts,
                        const CallOptions& call) {
  CHUNKWISE_ASSIGN_OR_RETURN(PreparedStep step,
                             PrepareStep(context, source_url, dest_url, options, parts, call));
  return pipelines::MergeMeshJobPart(*step.dest, step.job, part).status();
}

Result<MeshSummary> FinishMeshJob(const Context& context, std::string_view source_url,
                                  std::string_view dest_url, const MeshOptions& options, int parts,
                                  const CallOptions& call) {
  CHUNKWISE_ASSIGN_OR_RETURN(PreparedStep step,
                             PrepareStep(context, source_url, dest_url, options, parts, call));
  const std::array<std::int64_t, 3>& shape = step.opened.source.shape;
  if (step.job.vectors) {
    CHUNKWISE_ASSIGN_OR_RETURN(const pipelines::VectorMeshJob gathered,
                               pipelines::FinishVectorMeshJob(*step.dest, step.job));
    CHUNKWISE_ASSIGN_OR_RETURN(MeshSummary summary,
                               mesh_setup::WriteVectorMeshes(context, dest_url, gathered.levels,
                                                             step.opened, options, call));
    summary.voxels = static_cast<std::uint64_t>(shape[0] * shape[1] * shape[2]);
    return summary;
  }
  CHUNKWISE_ASSIGN_OR_RETURN(const pipelines::MeshOutputSummary written,
                             pipelines::FinishMeshJob(*step.dest, step.job));
  MeshSummary summary;
  summary.voxels = static_cast<std::uint64_t>(shape[0] * shape[1] * shape[2]);
  summary.segments = written.segments;
  summary.vertices = written.vertices;
  summary.triangles = written.triangles;
  summary.bytes = written.bytes;
  summary.mesh_dir = step.job.output.mesh_dir;
  summary.properties_dir = step.job.output.properties_dir;
  return summary;
}

void AbandonMeshJob(const Context& context, std::string_view dest_url, const MeshOptions& options,
                    int parts, bool merged) {
  Result<std::shared_ptr<store::Store>> dest =
      OpenStore(context, dest_url, context.store_options(true));
  if (!dest.ok()) return;
  pipelines::MeshJob job;
  job.parts = std::max(parts, 1);
  job.output.overwrite = options.overwrite;
  job.vectors = options.format == "vectors";
  pipelines::AbandonMeshJob(**dest, job, merged);
}

}  // namespace chunkwise
