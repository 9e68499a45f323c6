#include "pipelines/zarr_conversion.h"

#include <algorithm>
#include <unordered_set>
#include <vector>

#include "formats/zarr/array_copy.h"
#include "formats/zarr/array_layout.h"

namespace chunkwise::pipelines {
namespace {

namespace zarr = formats::zarr;

// Rank 0 makes the destination (or finds it, resuming); the others join it
// once rank 0 has, so that all write into the one unpublished array.
Result<zarr::Array> OpenDestination(core::Communicator& ranks,
                                    std::shared_ptr<store::Store> destination,
                                    const std::string& prefix, const zarr::ArrayMetadata& metadata,
                                    const ZarrConversionOptions& options,
                                    const zarr::ArrayOptions& array_options) {
  Result<zarr::Array> array = Status::Internal("not yet created");
  if (ranks.rank() == 0) {
    array = options.resume
                ? zarr::Array::ResumeUnpublished(destination, prefix, metadata, array_options)
                : zarr::Array::CreateUnpublished(destination, prefix, metadata, options.overwrite,
                                                 array_options);
  }
  CHUNKWISE_RETURN_IF_ERROR(
      core::ShareRootStatus(ranks, ranks.rank() == 0 ? array.status() : Status::Ok()));
  if (ranks.rank() == 0) return array;
  // A resumed job's array may be published already (a finished job resumed).
  return options.resume ? zarr::Array::ResumeUnpublished(std::move(destination), prefix, metadata,
                                                         array_options)
                        : zarr::Array::JoinUnpublished(std::move(destination), prefix, metadata,
                                                       array_options);
}

// The objects a resumed job finds stored, to keep as they are; none where the
// destination cannot list every key.
Result<std::unordered_set<core::Index>> StoredObjects(const zarr::Array& destination) {
  CHUNKWISE_ASSIGN_OR_RETURN(const std::optional<std::vector<core::Index>> listed,
                             destination.ListStoredObjects());
  if (!listed) return std::unordered_set<core::Index>();
  return std::unordered_set<core::Index>(listed->begin(), listed->end());
}

// The bytes of this rank's objects among `kept`: they are not copied, so the
// progress total leaves them out (for a planned object, the bytes of its box).
std::uint64_t KeptBytes(const zarr::Array& destination, const zarr::ArrayCopyPlan& plan,
                        const std::unordered_set<core::Index>& kept) {
  const core::RegularChunkGrid& grid = destination.grid();
  std::uint64_t bytes = 0;
  for (const core::Index i : kept) {
    core::Region region = grid.ChunkRegion(core::Unravel(i, grid.grid_shape()));
    if (plan.objects) {
      const auto at = std::lower_bound(plan.objects->begin(), plan.objects->end(), i);
      if (at == plan.objects->end() || *at != i) continue;  // Not this rank's to copy.
      if (plan.boxes) region = (*plan.boxes)[static_cast<std::size_t>(at - plan.objects->begin())];
    } else if (core::OwnerRank(static_cast<std::uint64_t>(i), plan.ranks) != plan.rank) {
      continue;
    }
    bytes +=
        static_cast<std::uint64_t>(region.num_elements()) * destination.metadata().data_type.size();
  }
  return std::min(bytes, plan.bytes);
}

}  // namespace

Result<zarr::ArrayMetadata> ConvertedMetadata(const zarr::ArrayMetadata& source,
                                              const ZarrConversionLayout& layout) {
  const zarr::ExistingLayout existing = zarr::DescribeLayout(source);
  zarr::ArrayLayout destination;
  destination.shape = source.shape;
  destination.data_type = source.data_type;
  destination.endian = existing.endian;  // A big-endian source stays big-endian.
  destination.chunk_shape = layout.chunks.value_or(existing.chunk_shape);
  if (layout.unsharded && layout.shards) {
    return Status::InvalidArgument("the shards: both a shard shape [" +
                                   core::FormatShape(*layout.shards) + "] and unsharded");
  }
  // The source's shards are kept unless the layout says otherwise (zarr v2 has none).
  const bool keep_shards = !layout.shards && !layout.unsharded && layout.zarr_format == 3;
  destination.shard_shape = keep_shards ? existing.shard_shape : layout.shards;
  destination.index_location = layout.index_location;
  destination.zarr_format = layout.zarr_format;
  destination.attributes = source.attributes;
  zarr::ArrayMetadata metadata;
  if (layout.codecs) destination.codec = *layout.codecs;
  nlohmann::json bytes_codecs = existing.bytes_codecs;
  if (layout.zarr_format == 2 && bytes_codecs.is_array() && !bytes_codecs.empty() &&
      bytes_codecs.back().is_object() && bytes_codecs.back().value("name", "") == "crc32c") {
    // A crc32c codec last (chunkwise's default on v3) has no v2 form: a v2
    // copy leaves it out, each chunk checked as the copy reads it.
    bytes_codecs.erase(bytes_codecs.size() - 1);
  }
  Result<zarr::ArrayMetadata> built =
      layout.codecs ? zarr::BuildArrayMetadata(destination)
                    : zarr::BuildArrayMetadataWithCodecs(destination, bytes_codecs);
  if (!built.ok() && keep_shards && existing.shard_shape) {
    // The shards were not asked for: say where they came from and how to choose.
    return built.status().WithContext("keeping the source's shards [" +
                                      core::FormatShape(*existing.shard_shape) +
                                      "] (give a shard shape, or unsharded, for another layout)");
  }
  CHUNKWISE_ASSIGN_OR_RETURN(metadata, std::move(built));
  metadata.fill_value = source.fill_value;
  metadata.fill_value_null = source.fill_value_null && layout.zarr_format == 2;
  metadata.dimension_names = source.dimension_names;
  return metadata;
}

Result<zarr::Array> ConvertZarrArray(const zarr::Array& source,
                                     std::shared_ptr<store::Store> destination,
                                     const std::string& prefix, const zarr::ArrayMetadata& metadata,
                                     const ZarrConversionOptions& options) {
  core::SingleProcess alone;
  core::Communicator& ranks = options.ranks != nullptr ? *options.ranks : alone;
  zarr::ArrayOptions array_options = options.destination;
  if (array_options.pool == nullptr) array_options.pool = std::make_shared<core::ThreadPool>(0);
  // Every rank lists the source and plans its part alone: objects are dealt
  // by their C-order index, the same on every rank. A rank that fails to
  // plan fails the job below, with the others waiting.
  const Result<zarr::ArrayCopyPlan> plan =
      zarr::PlanArrayCopy(source, metadata, ranks.rank(), ranks.size(), array_options.pool.get());
  array_options.progress = nullptr;  // The job's reporter, once its total is known.
  Result<zarr::Array> array =
      OpenDestination(ranks, std::move(destination), prefix, metadata, options, array_options);
  Status copied = array.status();
  if (copied.ok()) copied = plan.status();
  Result<std::unordered_set<core::Index>> kept = std::unordered_set<core::Index>();
  if (copied.ok() && options.resume) {
    kept = StoredObjects(*array);
    copied = kept.status();
  }
  core::ProgressOptions progress_options = options.progress;
  progress_options.total_units = copied.ok() ? plan->bytes - KeptBytes(*array, *plan, *kept) : 0;
  if (ranks.rank() != 0) progress_options.mode = core::ProgressMode::kQuiet;
  core::ProgressReporter progress(progress_options);
  if (copied.ok()) {
    array->set_progress(&progress);
    copied = zarr::CopyArrayPlan(source, *array, *plan, *array_options.pool,
                                 {.keep = &*kept, .before_object = options.before_object});
  }
  CHUNKWISE_RETURN_IF_ERROR(
      core::GatherOutcomes(ranks, copied.ok() ? Result<std::string>("") : copied).status());
  // Every rank's objects are in place: rank 0 publishes, and all report its outcome.
  CHUNKWISE_RETURN_IF_ERROR(
      core::ShareRootStatus(ranks, ranks.rank() == 0 ? array->Publish() : Status::Ok()));
  progress.Finish();
  array->set_progress(nullptr);  // The reporter ends here; the array lives on.
  return array;
}

}  // namespace chunkwise::pipelines
