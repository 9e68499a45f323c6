#include "chunkwise/facade/skeletons.h"

#include <bit>
#include <cstring>
#include <memory>
#include <sstream>
#include <utility>

#include "chunkwise/facade/skeleton_jobs.h"
#include "core/json.h"
#include "facade/skeleton_setup.h"
#include "formats/precomputed/segment_shards.h"
#include "formats/precomputed/skeleton_file.h"
#include "pipelines/skeletons/skeleton_job.h"
#include "pipelines/skeletons/skeletonize.h"

namespace chunkwise {
namespace {

namespace sk = pipelines::skeletons;

// The sharding the skeleton directory's info names (its "sharding"), if any;
// `root_info` is the store's info, the directory's own where prefix is "".
Result<std::optional<formats::precomputed::ShardingSpec>> DirectorySharding(
    const store::Store& store, const std::string& prefix, const Bytes& root_info) {
  std::optional<Bytes> info = root_info;
  if (!prefix.empty()) {
    CHUNKWISE_ASSIGN_OR_RETURN(info, store.Get(prefix + "info"));
  }
  if (!info) return std::optional<formats::precomputed::ShardingSpec>();
  const std::string where = store.Describe(prefix + "info");
  CHUNKWISE_ASSIGN_OR_RETURN(const nlohmann::json json,
                             core::ParseJson(std::string(info->begin(), info->end()), where));
  if (!json.is_object() || !json.contains("sharding")) {
    return std::optional<formats::precomputed::ShardingSpec>();
  }
  CHUNKWISE_ASSIGN_OR_RETURN(formats::precomputed::ShardingSpec spec,
                             formats::precomputed::ParseShardingSpec(json["sharding"], where));
  return std::optional<formats::precomputed::ShardingSpec>(spec);
}

// A failed step's status as a rank's outcome, to agree on.
Result<std::string> Outcome(const Status& status) {
  return status.ok() ? Result<std::string>(std::string()) : Result<std::string>(status);
}

// Skeletonize split across the job's ranks (facade/skeleton_jobs.h): each
// rank scans its chunks, then skeletonizes the labels it owns; rank 0
// finishes. Every rank makes the same collective calls and returns the same
// status.
Result<SkeletonizeSummary> SkeletonizeOnRanks(const Context& context, std::string_view source_url,
                                              std::string_view dest_url,
                                              const SkeletonizeOptions& options,
                                              const CallOptions& call) {
  core::Communicator& ranks = *options.ranks;
  const int rank = ranks.rank();
  const int size = ranks.size();
  CallOptions own = call;
  if (rank != 0) own.progress_mode = core::ProgressMode::kQuiet;
  Status agreed =
      core::GatherOutcomes(ranks, Outcome(ScanSkeletonJobPart(context, source_url, dest_url,
                                                              options, rank, size, own)))
          .status();
  if (!agreed.ok()) {
    if (rank == 0) AbandonSkeletonJob(context, source_url, dest_url, options, size, false);
    return agreed;
  }
  agreed = core::GatherOutcomes(ranks, Outcome(SkeletonizeJobPart(context, source_url, dest_url,
                                                                  options, rank, size, own)))
               .status();
  if (!agreed.ok()) {
    if (rank == 0) AbandonSkeletonJob(context, source_url, dest_url, options, size, true);
    return agreed;
  }
  Result<SkeletonizeSummary> job =
      rank == 0 ? FinishSkeletonJob(context, source_url, dest_url, options, size, own)
                : SkeletonizeSummary();
  CHUNKWISE_RETURN_IF_ERROR(core::ShareRootStatus(ranks, job.status()));
  // Rank 0's figures on every rank; the cable length to the last bit.
  std::ostringstream out;
  if (job.ok()) {
    out << job->labels << ' ' << job->voxels << ' ' << job->vertices << ' ' << job->edges << ' '
        << std::bit_cast<std::uint64_t>(job->cable_length) << ' ' << job->files << ' ' << job->bytes
        << ' ' << (job->prefix.empty() ? "-" : job->prefix);
  }
  CHUNKWISE_ASSIGN_OR_RETURN(const std::string shared, ranks.Broadcast(out.str()));
  if (rank == 0) return *job;
  SkeletonizeSummary summary;
  std::istringstream in(shared);
  std::uint64_t cable = 0;
  in >> summary.labels >> summary.voxels >> summary.vertices >> summary.edges >> cable >>
      summary.files >> summary.bytes >> summary.prefix;
  summary.cable_length = std::bit_cast<double>(cable);
  if (summary.prefix == "-") summary.prefix.clear();
  return summary;
}

}  // namespace

Result<SkeletonFormat> ParseSkeletonFormat(std::string_view text) {
  if (text == "precomputed") return SkeletonFormat::kPrecomputed;
  if (text == "precomputed-sharded") return SkeletonFormat::kPrecomputedSharded;
  if (text == "swc") return SkeletonFormat::kSwc;
  if (text == "vectors") return SkeletonFormat::kVectors;
  return Status::InvalidArgument("skeleton format \"" + std::string(text) +
                                 "\" is not one of precomputed, precomputed-sharded, swc, vectors")
      .WithField("format");
}

Result<SkeletonizeSummary> Skeletonize(const Context& context, std::string_view source_url,
                                       std::string_view dest_url, const SkeletonizeOptions& options,
                                       const CallOptions& call) {
  CHUNKWISE_RETURN_IF_ERROR(skeleton_setup::CheckOptions(options));
  if (options.ranks != nullptr && options.ranks->size() > 1) {
    return SkeletonizeOnRanks(context, source_url, dest_url, options, call);
  }
  CHUNKWISE_RETURN_IF_ERROR(
      context.CheckCancelled(call, "skeletonizing " + std::string(source_url)));
  // The reads count bytes and the skeletons voxels: the call's observer is
  // told of the skeletons alone, so that its counts keep one unit.
  core::ProgressObserver silent;
  CallOptions read_call = call;
  read_call.observer = &silent;
  read_call.progress_mode = core::ProgressMode::kQuiet;
  CHUNKWISE_ASSIGN_OR_RETURN(const skeleton_setup::OpenedSource opened,
                             skeleton_setup::OpenSource(context, source_url, options, read_call));
  const sk::SkeletonSource& source = opened.source;
  CHUNKWISE_ASSIGN_OR_RETURN(std::shared_ptr<core::ThreadPool> pool, context.pool(call));
  const std::string where(source_url);
  // Step 1 of a job (facade/skeleton_jobs.h) over every chunk, kept in memory.
  CHUNKWISE_ASSIGN_OR_RETURN(const sk::LabelTable table,
                             sk::ScanChunks(source, 0, sk::CountSourceChunks(source), pool.get(),
                                            nullptr, &context.cancellation(call)));
  CHUNKWISE_ASSIGN_OR_RETURN(const sk::LabelWork work,
                             sk::SelectLabels(table, options.labels, where));
  std::uint64_t voxels = 0;
  for (const auto& [label, extent] : work) voxels += extent.voxels;
  sk::SkeletonJob job = skeleton_setup::PlanJob(options, source_url, 1);
  job.skeletonize.pool = pool.get();
  job.skeletonize.cancellation = &context.cancellation(call);
  std::unique_ptr<core::ProgressReporter> progress =
      context.StartProgress(call, "skeletonize", voxels, "voxels");
  job.skeletonize.progress = progress.get();
  CHUNKWISE_ASSIGN_OR_RETURN(const std::vector<sk::Skeleton> skeletons,
                             sk::SkeletonizeFromSource(source, work, job.skeletonize, where));
  CHUNKWISE_RETURN_IF_ERROR(
      context.CheckCancelled(call, "writing skeletons to " + std::string(dest_url)));

  SkeletonizeSummary summary;
  if (options.format == SkeletonFormat::kVectors) {
    // The store's own progress counts vertices: kept from the call's observer.
    CHUNKWISE_ASSIGN_OR_RETURN(
        summary, skeleton_setup::WriteVectorSkeletons(context, dest_url, skeletons,
                                                      source.voxel_size, options, read_call));
  } else {
    CHUNKWISE_ASSIGN_OR_RETURN(std::shared_ptr<store::Store> dest,
                               OpenStore(context, dest_url, context.store_options(true)));
    Result<sk::WrittenSkeletons> written = sk::WriteSkeletons(*dest, skeletons, job.output);
    if (!written.ok()) return written.status().WithContext(dest_url);
    summary.files = written->files;
    summary.bytes = written->bytes;
    summary.prefix = written->prefix;
  }
  progress->Finish();

  summary.labels = skeletons.size();
  summary.voxels = voxels;
  for (const sk::Skeleton& s : skeletons) {
    summary.vertices += s.vertices.size();
    summary.edges += s.edges.size();
    summary.cable_length += sk::CableLength(s);
  }
  return summary;
}

Result<SkeletonData> ReadSkeleton(const Context& context, std::string_view url,
                                  std::uint64_t label) {
  CHUNKWISE_ASSIGN_OR_RETURN(std::shared_ptr<store::Store> store,
                             OpenStore(context, url, context.store_options(false)));
  CHUNKWISE_ASSIGN_OR_RETURN(const std::optional<Bytes> info, store->Get("info"));
  if (!info) return Status::NotFound(store->Describe("info") + " is absent: no skeletons there");
  CHUNKWISE_ASSIGN_OR_RETURN(
      const nlohmann::json json,
      core::ParseJson(std::string(info->begin(), info->end()), store->Describe("info")));
  std::string prefix;
  if (json.is_object() && json.contains("skeletons")) {
    if (!json["skeletons"].is_string()) {
      return Status::InvalidArgument(store->Describe("info") +
                                     ": \"skeletons\" is not a folder name");
    }
    prefix = json["skeletons"].get<std::string>() + "/";
  } else if (!json.is_object() || json.value("@type", "") != "neuroglancer_skeletons") {
    return Status::NotFound(store->Describe("info") + " names no skeletons");
  }
  CHUNKWISE_ASSIGN_OR_RETURN(const std::optional<formats::precomputed::ShardingSpec> sharding,
                             DirectorySharding(*store, prefix, *info));
  std::string key = prefix + std::to_string(label);
  std::optional<Bytes> bytes;
  if (sharding) {
    key = prefix + formats::precomputed::ShardFileName(
                       *sharding, formats::precomputed::LocateChunk(*sharding, label).shard);
    CHUNKWISE_ASSIGN_OR_RETURN(
        bytes, formats::precomputed::ReadSegmentChunk(*store, prefix, *sharding, label));
  } else {
    CHUNKWISE_ASSIGN_OR_RETURN(bytes, store->Get(key));
  }
  if (!bytes)
    return Status::NotFound(store->Describe(key) + " holds no skeleton of label " +
                            std::to_string(label));
  CHUNKWISE_ASSIGN_OR_RETURN(formats::precomputed::Skeleton skeleton,
                             formats::precomputed::DecodeSkeleton(*bytes, store->Describe(key)));
  return SkeletonData{std::move(skeleton.vertices), std::move(skeleton.edges),
                      std::move(skeleton.radii)};
}

}  // namespace chunkwise
