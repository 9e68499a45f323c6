#include "chunkwise/facade/skeleton_jobs.h"

#include <algorithm>
#include <memory>
#include <utility>

#include "facade/new_vectors_store.h"
#include "facade/skeleton_setup.h"

namespace chunkwise {
namespace {

namespace sk = pipelines::skeletons;

// What every step opens and checks alike.
struct PreparedStep {
  skeleton_setup::OpenedSource opened;
  std::shared_ptr<store::Store> dest;
  std::shared_ptr<core::ThreadPool> pool;
  sk::SkeletonJob job;
};

Result<PreparedStep> PrepareStep(const Context& context, std::string_view source_url,
                                 std::string_view dest_url, const SkeletonizeOptions& options,
                                 int parts, const CallOptions& call) {
  CHUNKWISE_RETURN_IF_ERROR(skeleton_setup::CheckOptions(options));
  if (parts < 1) {
    return Status::InvalidArgument("a skeleton job has at least 1 part, not " +
                                   std::to_string(parts))
        .WithField("parts");
  }
  CHUNKWISE_RETURN_IF_ERROR(
      context.CheckCancelled(call, "skeletonizing " + std::string(source_url)));
  PreparedStep step;
  CHUNKWISE_ASSIGN_OR_RETURN(step.opened,
                             skeleton_setup::OpenSource(context, source_url, options, call));
  CHUNKWISE_ASSIGN_OR_RETURN(step.dest, OpenStore(context, dest_url, context.store_options(true)));
  CHUNKWISE_ASSIGN_OR_RETURN(step.pool, context.pool(call));
  step.job = skeleton_setup::PlanJob(options, source_url, parts);
  step.job.skeletonize.pool = step.pool.get();
  step.job.skeletonize.cancellation = &context.cancellation(call);
  return step;
}

}  // namespace

Status ScanSkeletonJobPart(const Context& context, std::string_view source_url,
                           std::string_view dest_url, const SkeletonizeOptions& options, int part,
                           int parts, const CallOptions& call) {
  CHUNKWISE_ASSIGN_OR_RETURN(PreparedStep step,
                             PrepareStep(context, source_url, dest_url, options, parts, call));
  if (step.job.vectors) {
    CHUNKWISE_RETURN_IF_ERROR(
        CheckNewVectorsStore(*step.dest, dest_url, sk::kSkeletonScratchFolder, options.overwrite));
  }
  std::unique_ptr<core::ProgressReporter> progress = context.StartProgress(
      call, "scan labels", sk::ScanPartVoxels(step.opened.source, part, parts), "voxels");
  step.job.scan_progress = progress.get();
  const Status status = sk::ScanJobPart(step.opened.source, *step.dest, step.job, part);
  if (!status.ok()) return status.WithContext(dest_url);
  progress->Finish();
  return Status::Ok();
}

Status SkeletonizeJobPart(const Context& context, std::string_view source_url,
                          std::string_view dest_url, const SkeletonizeOptions& options, int part,
                          int parts, const CallOptions& call) {
  CHUNKWISE_ASSIGN_OR_RETURN(PreparedStep step,
                             PrepareStep(context, source_url, dest_url, options, parts, call));
  // The total is the owned labels' voxels, known once the tables are read:
  // the reporter counts them as they are done.
  std::unique_ptr<core::ProgressReporter> progress =
      context.StartProgress(call, "skeletonize", 0, "voxels");
  step.job.skeletonize.progress = progress.get();
  const Status status = sk::SkeletonizeJobPart(step.opened.source, *step.dest, step.job, part);
  if (!status.ok()) return status.WithContext(dest_url);
  progress->Finish();
  return Status::Ok();
}

Result<SkeletonizeSummary> FinishSkeletonJob(const Context& context, std::string_view source_url,
                                             std::string_view dest_url,
                                             const SkeletonizeOptions& options, int parts,
                                             const CallOptions& call) {
  CHUNKWISE_ASSIGN_OR_RETURN(PreparedStep step,
                             PrepareStep(context, source_url, dest_url, options, parts, call));
  sk::SkeletonJobSummary finished;
  if (step.job.vectors) {
    Result<sk::VectorSkeletonJob> gathered = sk::FinishVectorSkeletonJob(*step.dest, step.job);
    if (!gathered.ok()) return gathered.status().WithContext(dest_url);
    // The store's own progress counts vertices: kept from the call's observer.
    core::ProgressObserver silent;
    CallOptions write_call = call;
    write_call.observer = &silent;
    write_call.progress_mode = core::ProgressMode::kQuiet;
    CHUNKWISE_ASSIGN_OR_RETURN(
        const SkeletonizeSummary written,
        skeleton_setup::WriteVectorSkeletons(context, dest_url, gathered->skeletons,
                                             step.opened.source.voxel_size, options, write_call));
    finished = gathered->summary;
    finished.files = written.files;
  } else {
    Result<sk::SkeletonJobSummary> written = sk::FinishSkeletonJob(*step.dest, step.job);
    if (!written.ok()) return written.status().WithContext(dest_url);
    finished = *written;
  }
  SkeletonizeSummary summary;
  summary.labels = finished.labels;
  summary.voxels = finished.voxels;
  summary.vertices = finished.vertices;
  summary.edges = finished.edges;
  summary.cable_length = finished.cable_length;
  summary.files = finished.files;
  summary.bytes = finished.bytes;
  summary.prefix = finished.prefix;
  return summary;
}

void AbandonSkeletonJob(const Context& context, std::string_view source_url,
                        std::string_view dest_url, const SkeletonizeOptions& options, int parts,
                        bool skeletonized) {
  Result<std::shared_ptr<store::Store>> dest =
      OpenStore(context, dest_url, context.store_options(true));
  if (!dest.ok()) return;
  const sk::SkeletonJob job = skeleton_setup::PlanJob(options, source_url, std::max(parts, 1));
  sk::AbandonSkeletonJob(**dest, job, skeletonized);
}

}  // namespace chunkwise
