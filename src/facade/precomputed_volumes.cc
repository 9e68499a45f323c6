#include "chunkwise/facade/precomputed_volumes.h"

#include <string>
#include <utility>

#include "core/json.h"

namespace chunkwise {

namespace pc = formats::precomputed;

Result<std::unique_ptr<PrecomputedVolume>> OpenPrecomputed(const Context& context,
                                                           std::string_view url) {
  CHUNKWISE_ASSIGN_OR_RETURN(std::shared_ptr<store::Store> store,
                             OpenStore(context, url, context.store_options(false)));
  return pc::Volume::Open(std::move(store), "");
}

Result<std::vector<PrecomputedStoredScale>> DescribePrecomputedStorage(
    const PrecomputedVolume& volume) {
  std::vector<PrecomputedStoredScale> scales;
  const store::Store& store = volume.store();
  for (const pc::ScaleInfo& scale : volume.info().scales) {
    const std::string folder = volume.prefix() + scale.key + "/";
    CHUNKWISE_ASSIGN_OR_RETURN(const std::vector<std::string> keys, store.List(folder));
    PrecomputedStoredScale stored{scale.key, keys.size(), 0};
    for (const std::string& key : keys) {
      CHUNKWISE_ASSIGN_OR_RETURN(const std::optional<std::uint64_t> size, store.Size(key));
      stored.bytes += size.value_or(0);
    }
    scales.push_back(std::move(stored));
  }
  return scales;
}

Result<Bytes> ReadPrecomputedRegion(const Context& context, const PrecomputedVolume& volume,
                                    int scale, const core::Region& region,
                                    const CallOptions& call) {
  if (scale < 0 || scale >= volume.num_scales()) {
    return Status::InvalidArgument(volume.Describe("info") + ": no scale " + std::to_string(scale) +
                                   " (scales 0.." + std::to_string(volume.num_scales() - 1) + ")");
  }
  CHUNKWISE_RETURN_IF_ERROR(context.CheckCancelled(call, "reading " + volume.Describe("")));
  return volume.Read(scale, region);
}

Result<PrecomputedShardingSpec> ParsePrecomputedSharding(std::string_view json_text,
                                                         std::string_view where) {
  Result<nlohmann::json> json = core::ParseJson(json_text, where);
  if (!json.ok()) {
    return Status::InvalidArgument(std::string(where) + " is not JSON: " + std::string(json_text));
  }
  return pc::ParseShardingSpec(*json, where);
}

Result<PrecomputedVolumeType> ParsePrecomputedVolumeType(std::string_view text) {
  for (const PrecomputedVolumeType type :
       {PrecomputedVolumeType::kSegmentation, PrecomputedVolumeType::kImage}) {
    if (text == VolumeTypeName(type)) return type;
  }
  return Status::InvalidArgument("the volume type must be segmentation or image, not \"" +
                                 std::string(text) + "\"")
      .WithField("type");
}

Result<PrecomputedChunkEncoding> ParsePrecomputedChunkEncoding(std::string_view text) {
  for (const PrecomputedChunkEncoding encoding :
       {PrecomputedChunkEncoding::kRaw, PrecomputedChunkEncoding::kCompressedSegmentation}) {
    if (text == ChunkEncodingName(encoding)) return encoding;
  }
  return Status::InvalidArgument(
             "the chunk encoding must be raw or compressed_segmentation, not \"" +
             std::string(text) + "\"")
      .WithField("encoding");
}

namespace {

// The options' ranges, checked here so that every door (`zarr to-precomputed`,
// chunkwise.to_precomputed) refuses the same values with the same words.
Status CheckZarrToPrecomputedOptions(const ZarrToPrecomputedOptions& options) {
  for (const core::Index edge : options.chunk_size) {
    if (edge < 1 || edge > 4096) {
      return Status::InvalidArgument("the chunk edges must be 1..4096, not " + std::to_string(edge))
          .WithField("chunk_size");
    }
  }
  if (options.num_scales < 1 || options.num_scales > 32) {
    return Status::InvalidArgument("the scales must be 1..32, not " +
                                   std::to_string(options.num_scales))
        .WithField("num_scales");
  }
  if (options.gzip_level < 1 || options.gzip_level > 9) {
    return Status::InvalidArgument("the gzip level must be 1..9, not " +
                                   std::to_string(options.gzip_level))
        .WithField("gzip_level");
  }
  return Status::Ok();
}

}  // namespace

Result<ZarrToPrecomputedSummary> ZarrToPrecomputed(const Context& context,
                                                   std::string_view source_url,
                                                   std::string_view dest_url,
                                                   ZarrToPrecomputedOptions options,
                                                   const CallOptions& call) {
  CHUNKWISE_RETURN_IF_ERROR(CheckZarrToPrecomputedOptions(options));
  CHUNKWISE_RETURN_IF_ERROR(
      context.CheckCancelled(call, "converting " + std::string(source_url) + " to precomputed"));
  CHUNKWISE_ASSIGN_OR_RETURN(std::shared_ptr<store::Store> source,
                             OpenStore(context, source_url, context.store_options(false)));
  CHUNKWISE_ASSIGN_OR_RETURN(std::shared_ptr<store::Store> dest,
                             OpenStore(context, dest_url, context.store_options(true)));
  options.progress = call.progress_mode.value_or(context.progress_mode());
  if (call.threads != 0) options.threads = call.threads;
  if (options.threads == 0) options.threads = context.threads();
  return pipelines::ZarrToPrecomputed(std::move(source), "", std::move(dest), "", options);
}

}  // namespace chunkwise
