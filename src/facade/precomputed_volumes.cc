#include "chunkwise/facade/precomputed_volumes.h"

#include <string>
#include <utility>

#include "core/json.h"
#include "facade/precomputed_types.h"
#include "pipelines/zarr_to_precomputed.h"

namespace chunkwise {

namespace pc = formats::precomputed;

// The facade's enums list the format's enumerators in the format's order.
static_assert(static_cast<int>(pc::VolumeType::kSegmentation) ==
              static_cast<int>(PrecomputedVolumeType::kSegmentation));
static_assert(static_cast<int>(pc::ChunkEncoding::kCompressedSegmentation) ==
              static_cast<int>(PrecomputedChunkEncoding::kCompressedSegmentation));
static_assert(static_cast<int>(pc::ShardHash::kMurmurHash3X86_128) ==
              static_cast<int>(PrecomputedShardHash::kMurmurHash3X86_128));
static_assert(static_cast<int>(pc::ShardEncoding::kGzip) ==
              static_cast<int>(PrecomputedShardEncoding::kGzip));

pc::ShardEncoding ToFormat(PrecomputedShardEncoding encoding) {
  return static_cast<pc::ShardEncoding>(encoding);
}

pc::ShardingSpec ToFormat(const PrecomputedShardingSpec& spec) {
  return {.preshift_bits = spec.preshift_bits,
          .minishard_bits = spec.minishard_bits,
          .shard_bits = spec.shard_bits,
          .hash = static_cast<pc::ShardHash>(spec.hash),
          .minishard_index_encoding = ToFormat(spec.minishard_index_encoding),
          .data_encoding = ToFormat(spec.data_encoding)};
}

PrecomputedShardingSpec FromFormat(const pc::ShardingSpec& spec) {
  return {.preshift_bits = spec.preshift_bits,
          .minishard_bits = spec.minishard_bits,
          .shard_bits = spec.shard_bits,
          .hash = static_cast<PrecomputedShardHash>(spec.hash),
          .minishard_index_encoding =
              static_cast<PrecomputedShardEncoding>(spec.minishard_index_encoding),
          .data_encoding = static_cast<PrecomputedShardEncoding>(spec.data_encoding)};
}

pc::VolumeInfo ToFormat(const PrecomputedVolumeInfo& info) {
  pc::VolumeInfo format{.type = static_cast<pc::VolumeType>(info.type),
                        .data_type = info.data_type,
                        .num_channels = info.num_channels,
                        .scales = {},
                        .extra = info.extra};
  for (const PrecomputedScaleInfo& scale : info.scales) {
    pc::ScaleInfo& to = format.scales.emplace_back();
    to.key = scale.key;
    to.size = scale.size;
    to.voxel_offset = scale.voxel_offset;
    to.chunk_size = scale.chunk_size;
    to.resolution = scale.resolution;
    to.encoding = static_cast<pc::ChunkEncoding>(scale.encoding);
    to.compressed_segmentation_block_size = scale.compressed_segmentation_block_size;
    if (scale.sharding.has_value()) to.sharding = ToFormat(*scale.sharding);
  }
  return format;
}

PrecomputedVolumeInfo FromFormat(const pc::VolumeInfo& info) {
  PrecomputedVolumeInfo facade{.type = static_cast<PrecomputedVolumeType>(info.type),
                               .data_type = info.data_type,
                               .num_channels = info.num_channels,
                               .scales = {},
                               .extra = info.extra};
  for (const pc::ScaleInfo& scale : info.scales) {
    PrecomputedScaleInfo& to = facade.scales.emplace_back();
    to.key = scale.key;
    to.size = scale.size;
    to.voxel_offset = scale.voxel_offset;
    to.chunk_size = scale.chunk_size;
    to.resolution = scale.resolution;
    to.encoding = static_cast<PrecomputedChunkEncoding>(scale.encoding);
    to.compressed_segmentation_block_size = scale.compressed_segmentation_block_size;
    if (scale.sharding.has_value()) to.sharding = FromFormat(*scale.sharding);
  }
  return facade;
}

core::GridCoord3 PrecomputedScaleInfo::grid() const {
  core::GridCoord3 grid{};
  for (int axis = 0; axis < 3; ++axis) {
    grid[axis] = (size[axis] + chunk_size[axis] - 1) / chunk_size[axis];
  }
  return grid;
}

std::string_view VolumeTypeName(PrecomputedVolumeType type) {
  return pc::VolumeTypeName(static_cast<pc::VolumeType>(type));
}

std::string_view ChunkEncodingName(PrecomputedChunkEncoding encoding) {
  return pc::ChunkEncodingName(static_cast<pc::ChunkEncoding>(encoding));
}

nlohmann::json VolumeInfoToJson(const PrecomputedVolumeInfo& info) {
  return pc::VolumeInfoToJson(ToFormat(info));
}

PrecomputedVolume::PrecomputedVolume(std::unique_ptr<Held> held)
    : held_(std::move(held)), info_(FromFormat(held_->volume->info())) {}

PrecomputedVolume::~PrecomputedVolume() = default;

std::unique_ptr<PrecomputedVolume> PrecomputedVolumeAccess::Wrap(
    std::unique_ptr<pc::Volume> volume) {
  auto held = std::make_unique<PrecomputedVolume::Held>();
  held->volume = std::move(volume);
  return std::unique_ptr<PrecomputedVolume>(new PrecomputedVolume(std::move(held)));
}

Result<std::unique_ptr<PrecomputedVolume>> OpenPrecomputed(const Context& context,
                                                           std::string_view url) {
  CHUNKWISE_ASSIGN_OR_RETURN(std::shared_ptr<store::Store> store,
                             OpenStore(context, url, context.store_options(false)));
  CHUNKWISE_ASSIGN_OR_RETURN(std::unique_ptr<pc::Volume> volume,
                             pc::Volume::Open(std::move(store), ""));
  return PrecomputedVolumeAccess::Wrap(std::move(volume));
}

Result<std::vector<PrecomputedStoredScale>> DescribePrecomputedStorage(
    const PrecomputedVolume& facade_volume) {
  const pc::Volume& volume = PrecomputedVolumeAccess::Held(facade_volume);
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

Result<Bytes> ReadPrecomputedRegion(const Context& context, const PrecomputedVolume& facade_volume,
                                    int scale, const core::Region& region,
                                    const CallOptions& call) {
  const pc::Volume& volume = PrecomputedVolumeAccess::Held(facade_volume);
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
  CHUNKWISE_ASSIGN_OR_RETURN(const pc::ShardingSpec spec, pc::ParseShardingSpec(*json, where));
  return FromFormat(spec);
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
  pipelines::ZarrToPrecomputedOptions convert;
  if (options.type.has_value()) convert.type = static_cast<pc::VolumeType>(*options.type);
  if (options.encoding.has_value()) {
    convert.encoding = static_cast<pc::ChunkEncoding>(*options.encoding);
  }
  convert.chunk_size = options.chunk_size;
  convert.resolution = options.resolution;
  convert.num_scales = options.num_scales;
  if (options.sharding.has_value()) convert.sharding = ToFormat(*options.sharding);
  convert.auto_sharding = options.auto_sharding;
  convert.gzip_level = options.gzip_level;
  convert.threads = options.threads;
  convert.overwrite = options.overwrite;
  convert.progress = call.progress_mode.value_or(context.progress_mode());
  if (call.threads != 0) convert.threads = call.threads;
  if (convert.threads == 0) convert.threads = context.threads();
  CHUNKWISE_ASSIGN_OR_RETURN(
      pipelines::ZarrToPrecomputedSummary summary,
      pipelines::ZarrToPrecomputed(std::move(source), "", std::move(dest), "", convert));
  return ZarrToPrecomputedSummary{.chunks_per_scale = std::move(summary.chunks_per_scale),
                                  .bytes_read = summary.bytes_read,
                                  .seconds = summary.seconds};
}

std::string ZarrToPrecomputedSummary::Format() const {
  pipelines::ZarrToPrecomputedSummary summary;
  summary.chunks_per_scale = chunks_per_scale;
  summary.bytes_read = bytes_read;
  summary.seconds = seconds;
  return summary.Format();
}

}  // namespace chunkwise
