#include "chunkwise/facade/meshes.h"

#include <algorithm>
#include <charconv>
#include <sstream>
#include <utility>

#include "chunkwise/facade/mesh_jobs.h"
#include "facade/mesh_setup.h"
#include "formats/precomputed/segment_properties.h"
#include "pipelines/meshing/label_meshes.h"
#include "pipelines/meshing/mesh_levels.h"
#include "pipelines/meshing/mesh_output.h"

namespace chunkwise {
namespace {

namespace pc = formats::precomputed;
using mesh_setup::CheckDestination;
using mesh_setup::CheckMeshOptions;
using mesh_setup::OpenedSource;
using mesh_setup::OpenLabels;
using mesh_setup::ReadNames;

// A failed step's status as a rank's outcome, to agree on.
Result<std::string> Outcome(const Status& status) {
  return status.ok() ? Result<std::string>(std::string()) : Result<std::string>(status);
}

// GenerateMeshes split across the job's ranks (facade/mesh_jobs.h): each
// rank meshes its chunks, then merges the labels it owns; rank 0 finishes.
// Every rank makes the same collective calls and returns the same status.
Result<MeshSummary> MeshOnRanks(const Context& context, std::string_view source_url,
                                std::string_view dest_url, const MeshOptions& options,
                                const CallOptions& call) {
  core::Communicator& ranks = *options.ranks;
  const int rank = ranks.rank();
  const int size = ranks.size();
  CallOptions own = call;
  if (rank != 0) own.progress_mode = core::ProgressMode::kQuiet;
  Status agreed =
      core::GatherOutcomes(
          ranks, Outcome(MeshJobPart(context, source_url, dest_url, options, rank, size, own)))
          .status();
  if (!agreed.ok()) {
    if (rank == 0) AbandonMeshJob(context, dest_url, options, size, false);
    return agreed;
  }
  agreed =
      core::GatherOutcomes(
          ranks, Outcome(MergeMeshJobPart(context, source_url, dest_url, options, rank, size, own)))
          .status();
  if (!agreed.ok()) {
    if (rank == 0) AbandonMeshJob(context, dest_url, options, size, true);
    return agreed;
  }
  Result<MeshSummary> job =
      rank == 0 ? FinishMeshJob(context, source_url, dest_url, options, size, own) : MeshSummary();
  CHUNKWISE_RETURN_IF_ERROR(core::ShareRootStatus(ranks, job.status()));
  // Rank 0's figures on every rank.
  const std::string text =
      job.ok() ? std::to_string(job->voxels) + " " + std::to_string(job->segments) + " " +
                     std::to_string(job->vertices) + " " + std::to_string(job->triangles) + " " +
                     std::to_string(job->bytes)
               : std::string();
  CHUNKWISE_ASSIGN_OR_RETURN(const std::string shared, ranks.Broadcast(text));
  MeshSummary summary = rank == 0 ? *job : MeshSummary();
  if (rank != 0) {
    std::istringstream in(shared);
    in >> summary.voxels >> summary.segments >> summary.vertices >> summary.triangles >>
        summary.bytes;
    if (options.format != "vectors") {
      summary.mesh_dir = "mesh";
      summary.properties_dir = "segment_properties";
    }
  }
  return summary;
}

// Meshes the labels of `opened` chunk by chunk as `options` and the call
// ask, placed by `meshing`'s resolution and voxel offset.
Result<pipelines::MeshedLabels> MeshSource(const Context& context, std::string_view source_url,
                                           const OpenedSource& opened, const MeshOptions& options,
                                           pipelines::MeshingOptions meshing,
                                           core::ThreadPool* pool, core::ProgressReporter* progress,
                                           const CallOptions& call) {
  meshing.chunk = options.chunk;
  if (!options.labels.empty()) meshing.labels = options.labels;
  meshing.pool = pool;
  meshing.progress = progress;
  meshing.cancellation = &context.cancellation(call);
  Result<pipelines::MeshedLabels> meshed = pipelines::MeshLabels(opened.source, meshing);
  if (!meshed.ok()) return meshed.status().WithContext("meshing " + std::string(source_url));
  return meshed;
}

// `chunkwise mesh --format vectors`: the source's own resolution places the
// vertices, as a precomputed destination's would for legacy meshes.
Result<MeshSummary> MeshToVectors(const Context& context, std::string_view source_url,
                                  std::string_view dest_url, const OpenedSource& opened,
                                  const MeshOptions& options, const CallOptions& call) {
  CHUNKWISE_ASSIGN_OR_RETURN(std::shared_ptr<core::ThreadPool> pool, context.pool(call));
  const std::uint64_t voxels = static_cast<std::uint64_t>(
      opened.source.shape[0] * opened.source.shape[1] * opened.source.shape[2]);
  std::unique_ptr<core::ProgressReporter> progress =
      context.StartProgress(call, "mesh", voxels, "voxels");
  pipelines::MeshingOptions placement;
  placement.resolution = opened.resolution;
  placement.voxel_offset = opened.voxel_offset;
  CHUNKWISE_ASSIGN_OR_RETURN(pipelines::MeshedLabels meshed,
                             MeshSource(context, source_url, opened, options, placement, pool.get(),
                                        progress.get(), call));
  // Level 0 simplified as the legacy meshes are: both outputs hold the same triangles.
  pipelines::MeshOutputOptions simplification;
  simplification.max_error = options.max_simplification_error;
  simplification.reduction_factor = options.simplification_factor;
  simplification.pool = pool.get();
  simplification.cancellation = &context.cancellation(call);
  CHUNKWISE_ASSIGN_OR_RETURN(const pipelines::LeveledMeshes levels,
                             pipelines::BuildMeshLevels(meshed.meshes, simplification,
                                                        mesh_setup::VectorLevels(options, opened)));
  meshed = {};
  CHUNKWISE_RETURN_IF_ERROR(context.CheckCancelled(call, "writing " + std::string(dest_url)));
  // The store's progress counts vertices: kept from the call's voxels.
  core::ProgressObserver silent;
  CallOptions write_call = call;
  write_call.observer = &silent;
  write_call.progress_mode = core::ProgressMode::kQuiet;
  CHUNKWISE_ASSIGN_OR_RETURN(
      MeshSummary summary,
      mesh_setup::WriteVectorMeshes(context, dest_url, levels, opened, options, write_call));
  progress->Finish();
  summary.voxels = voxels;
  return summary;
}

}  // namespace

Result<MeshSummary> GenerateMeshes(const Context& context, std::string_view source_url,
                                   std::string_view dest_url, const MeshOptions& options,
                                   const CallOptions& call) {
  CHUNKWISE_RETURN_IF_ERROR(CheckMeshOptions(options));
  const bool vectors = options.format == "vectors";
  if (options.ranks != nullptr && options.ranks->size() > 1) {
    return MeshOnRanks(context, source_url, dest_url, options, call);
  }
  CHUNKWISE_RETURN_IF_ERROR(context.CheckCancelled(call, "meshing " + std::string(source_url)));
  CHUNKWISE_ASSIGN_OR_RETURN(auto names, ReadNames(options.names_csv));
  CHUNKWISE_ASSIGN_OR_RETURN(OpenedSource opened, OpenLabels(context, source_url, call));
  if (vectors) return MeshToVectors(context, source_url, dest_url, opened, options, call);
  CHUNKWISE_ASSIGN_OR_RETURN(const pc::ScaleInfo scale,
                             CheckDestination(context, dest_url, opened.source.shape, options));
  CHUNKWISE_ASSIGN_OR_RETURN(std::shared_ptr<store::Store> dest,
                             OpenStore(context, dest_url, context.store_options(true)));
  CHUNKWISE_ASSIGN_OR_RETURN(std::shared_ptr<core::ThreadPool> pool, context.pool(call));

  MeshSummary summary;
  summary.voxels = static_cast<std::uint64_t>(opened.source.shape[0] * opened.source.shape[1] *
                                              opened.source.shape[2]);
  std::unique_ptr<core::ProgressReporter> progress =
      context.StartProgress(call, "mesh", summary.voxels, "voxels");
  pipelines::MeshJob job =
      mesh_setup::PlanMeshJob(options, scale, opened.source.shape, std::move(names), 1);
  CHUNKWISE_ASSIGN_OR_RETURN(const pipelines::MeshedLabels meshed,
                             MeshSource(context, source_url, opened, options, job.meshing,
                                        pool.get(), progress.get(), call));
  job.output.pool = pool.get();
  job.output.cancellation = &context.cancellation(call);
  const Result<pipelines::MeshOutputSummary> written =
      job.multires ? pipelines::WriteMultiresMeshes(*dest, "", meshed, job.output, job.lods)
                   : pipelines::WriteLegacyMeshes(*dest, "", meshed, job.output);
  CHUNKWISE_RETURN_IF_ERROR(written.status());
  progress->Finish();
  summary.segments = written->segments;
  summary.vertices = written->vertices;
  summary.triangles = written->triangles;
  summary.bytes = written->bytes;
  summary.mesh_dir = job.output.mesh_dir;
  summary.properties_dir = job.output.properties_dir;
  return summary;
}

Result<std::vector<std::uint64_t>> ParseLabelList(std::string_view text) {
  std::vector<std::uint64_t> labels;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t comma = std::min(text.find(',', start), text.size());
    const std::string_view field = text.substr(start, comma - start);
    std::uint64_t label = 0;
    const auto [end, error] = std::from_chars(field.data(), field.data() + field.size(), label);
    if (error != std::errc() || end != field.data() + field.size() || field.empty() || label == 0) {
      return Status::InvalidArgument(
                 "labels are nonzero unsigned integers separated by commas, "
                 "not \"" +
                 std::string(text) + "\"")
          .WithField("labels");
    }
    labels.push_back(label);
    start = comma + 1;
  }
  return labels;
}

}  // namespace chunkwise
