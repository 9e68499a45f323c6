#include "chunkwise/facade/skeletons.h"

#include <cstring>
#include <memory>
#include <utility>

#include "chunkwise/facade/format_detection.h"
#include "chunkwise/facade/precomputed_volumes.h"
#include "chunkwise/facade/vectors.h"
#include "chunkwise/facade/zarr_arrays.h"
#include "core/json.h"
#include "formats/precomputed/segment_shards.h"
#include "formats/precomputed/skeleton_file.h"
#include "pipelines/skeletons/skeletonize.h"

namespace chunkwise {
namespace {

namespace sk = pipelines::skeletons;

// A whole label volume widened to uint64, with where its voxels lie.
struct LoadedLabels {
  std::vector<std::uint64_t> labels;
  std::array<std::int64_t, 3> shape{};  // z, y, x
  std::array<double, 3> voxel_size{1, 1, 1};
  std::array<double, 3> origin{0, 0, 0};
};

template <typename T>
void Widen(const Bytes& bytes, std::vector<std::uint64_t>& out) {
  out.resize(bytes.size() / sizeof(T));
  for (std::size_t i = 0; i < out.size(); ++i) {
    T v;
    std::memcpy(&v, bytes.data() + i * sizeof(T), sizeof(T));
    out[i] = v;
  }
}

Status WidenLabels(const Bytes& bytes, core::DataType type, std::string_view url,
                   std::vector<std::uint64_t>& out) {
  switch (type.id()) {
    case core::DataTypeId::kUInt8:
      Widen<std::uint8_t>(bytes, out);
      return Status();
    case core::DataTypeId::kUInt16:
      Widen<std::uint16_t>(bytes, out);
      return Status();
    case core::DataTypeId::kUInt32:
      Widen<std::uint32_t>(bytes, out);
      return Status();
    case core::DataTypeId::kUInt64:
      Widen<std::uint64_t>(bytes, out);
      return Status();
    default:
      return Status::InvalidArgument(std::string(url) + " holds " + std::string(type.zarr_name()) +
                                     ", not unsigned integer labels");
  }
}

Result<LoadedLabels> LoadPrecomputed(const Context& context, std::string_view url,
                                     const CallOptions& call) {
  CHUNKWISE_ASSIGN_OR_RETURN(std::unique_ptr<PrecomputedVolume> volume,
                             OpenPrecomputed(context, url));
  const PrecomputedVolumeInfo& info = volume->info();
  if (info.num_channels != 1) {
    return Status::InvalidArgument(std::string(url) + " has " + std::to_string(info.num_channels) +
                                   " channels; labels have one");
  }
  const PrecomputedScaleInfo& scale = info.scales.at(0);
  LoadedLabels out;
  out.shape = {scale.size[2], scale.size[1], scale.size[0]};
  for (int a = 0; a < 3; ++a) {
    out.voxel_size[a] = scale.resolution[a];
    out.origin[a] = static_cast<double>(scale.voxel_offset[a]) * scale.resolution[a];
  }
  const core::Region region =
      core::Region::Full(std::vector<core::Index>(out.shape.begin(), out.shape.end()));
  CHUNKWISE_ASSIGN_OR_RETURN(const Bytes bytes,
                             ReadPrecomputedRegion(context, *volume, 0, region, call));
  CHUNKWISE_RETURN_IF_ERROR(WidenLabels(bytes, info.data_type, url, out.labels));
  return out;
}

Result<LoadedLabels> LoadZarr(const Context& context, std::string_view url,
                              const CallOptions& call) {
  CHUNKWISE_ASSIGN_OR_RETURN(ZarrArray array, OpenZarrArray(context, url, {}, call));
  const ZarrArrayMetadata& metadata = array.metadata();
  if (metadata.shape.size() != 3) {
    return Status::InvalidArgument(std::string(url) + " has " +
                                   std::to_string(metadata.shape.size()) +
                                   " dimensions; skeletons need a 3-d (z, y, x) label volume");
  }
  LoadedLabels out;
  out.shape = {metadata.shape[0], metadata.shape[1], metadata.shape[2]};
  CHUNKWISE_ASSIGN_OR_RETURN(const Bytes bytes,
                             ReadRegion(context, array, core::Region::Full(metadata.shape), call));
  CHUNKWISE_RETURN_IF_ERROR(WidenLabels(bytes, metadata.data_type, url, out.labels));
  return out;
}

Result<LoadedLabels> LoadLabels(const Context& context, std::string_view url,
                                const CallOptions& call) {
  CHUNKWISE_ASSIGN_OR_RETURN(std::shared_ptr<store::Store> store,
                             OpenStore(context, url, context.store_options(false)));
  Result<DetectedFormat> format = DetectFormat(*store, "");
  if (!format.ok()) return format.status().WithContext(url);
  switch (format->kind) {
    case FormatKind::kPrecomputed:
      return LoadPrecomputed(context, url, call);
    case FormatKind::kZarrV3Array:
    case FormatKind::kZarrV2Array:
      return LoadZarr(context, url, call);
    default:
      return Status::InvalidArgument(
          std::string(url) + " is " + std::string(FormatName(format->kind)) +
          ", not a label volume (a zarr array or a precomputed segmentation)");
  }
}

Status CheckOptions(const SkeletonizeOptions& options) {
  if (!(options.scale >= 0) || !(options.constant >= 0)) {
    return Status::InvalidArgument(
        "the invalidation ball needs scale >= 0 and constant >= 0, not " +
        std::to_string(options.scale) + " and " + std::to_string(options.constant));
  }
  if (options.voxel_size) {
    for (double v : *options.voxel_size) {
      if (!(v > 0)) return Status::InvalidArgument("voxel_size needs three sizes > 0");
    }
  }
  if (options.vectors_chunk_shape) {
    for (double v : *options.vectors_chunk_shape) {
      if (!(v > 0)) {
        return Status::InvalidArgument("the vectors chunk shape needs three sizes > 0")
            .WithField("chunk_shape");
      }
    }
  }
  return Status();
}

// The skeletons as one zarr-vectors skeleton geometry: each label's vertices
// in its own order, its edges [child, parent] as TEASAR draws them.
Result<VectorGeometry> SkeletonGeometry(const std::vector<sk::Skeleton>& skeletons) {
  VectorGeometry geometry;
  geometry.type = VectorGeometryType::kSkeleton;
  geometry.vertex_attributes = {{"radius", {}}};
  std::vector<float>& radii = geometry.vertex_attributes[0].values;
  for (const sk::Skeleton& s : skeletons) {
    if (s.label > static_cast<std::uint64_t>(INT64_MAX)) {
      return Status::InvalidArgument("label " + std::to_string(s.label) +
                                     " does not fit a zarr-vectors object id (int64)");
    }
    const auto first = static_cast<std::int64_t>(geometry.positions.size());
    geometry.positions.insert(geometry.positions.end(), s.vertices.begin(), s.vertices.end());
    geometry.object_ids.insert(geometry.object_ids.end(), s.vertices.size(),
                               static_cast<std::int64_t>(s.label));
    radii.insert(radii.end(), s.radii.begin(), s.radii.end());
    for (const auto& [child, parent] : s.edges) {
      geometry.links.push_back(first + child);
      geometry.links.push_back(first + parent);
    }
  }
  return geometry;
}

Result<SkeletonizeSummary> WriteVectorSkeletons(const Context& context, std::string_view dest_url,
                                                const std::vector<sk::Skeleton>& skeletons,
                                                const std::array<double, 3>& voxel_size,
                                                const SkeletonizeOptions& options,
                                                const CallOptions& call) {
  CHUNKWISE_ASSIGN_OR_RETURN(const VectorGeometry geometry, SkeletonGeometry(skeletons));
  VectorsWriteOptions write;
  write.overwrite = options.overwrite;
  // Layout 0.8 still: its stores are what `vectors pyramid` builds on.
  write.layout = VectorsLayout::k0_8;
  if (options.vectors_chunk_shape) {
    write.chunk_shape = *options.vectors_chunk_shape;
  } else {
    for (int a = 0; a < 3; ++a) write.chunk_shape[a] = 128 * voxel_size[a];
  }
  CHUNKWISE_ASSIGN_OR_RETURN(const VectorsWriteSummary written,
                             WriteVectors(context, dest_url, geometry, write, call));
  SkeletonizeSummary summary;
  summary.files = written.chunks;
  return summary;
}

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
  CHUNKWISE_RETURN_IF_ERROR(CheckOptions(options));
  CHUNKWISE_RETURN_IF_ERROR(
      context.CheckCancelled(call, "skeletonizing " + std::string(source_url)));
  // The read counts bytes and the skeletons voxels: the call's observer is
  // told of the skeletons alone, so that its counts keep one unit.
  core::ProgressObserver silent;
  CallOptions read_call = call;
  read_call.observer = &silent;
  read_call.progress_mode = core::ProgressMode::kQuiet;
  CHUNKWISE_ASSIGN_OR_RETURN(LoadedLabels loaded, LoadLabels(context, source_url, read_call));
  if (options.voxel_size) {
    for (int a = 0; a < 3; ++a) {
      loaded.origin[a] = loaded.origin[a] / loaded.voxel_size[a] * (*options.voxel_size)[a];
    }
    loaded.voxel_size = *options.voxel_size;
  }
  const sk::LabelVolume volume{loaded.labels, loaded.shape, loaded.voxel_size, loaded.origin};

  CHUNKWISE_ASSIGN_OR_RETURN(std::shared_ptr<core::ThreadPool> pool, context.pool(call));
  sk::SkeletonizeVolumeOptions run;
  run.params = {options.scale, options.constant, options.pdrf_scale, options.pdrf_exponent};
  run.labels = options.labels;
  run.pool = pool.get();
  run.cancellation = &context.cancellation(call);
  const std::uint64_t voxels = sk::CountLabelVoxels(volume, options.labels);
  std::unique_ptr<core::ProgressReporter> progress =
      context.StartProgress(call, "skeletonize", voxels, "voxels");
  run.progress = progress.get();
  CHUNKWISE_ASSIGN_OR_RETURN(const std::vector<sk::Skeleton> skeletons,
                             sk::SkeletonizeVolume(volume, run, std::string(source_url)));
  CHUNKWISE_RETURN_IF_ERROR(
      context.CheckCancelled(call, "writing skeletons to " + std::string(dest_url)));

  SkeletonizeSummary summary;
  if (options.format == SkeletonFormat::kVectors) {
    // The store's own progress counts vertices: kept from the call's observer.
    CHUNKWISE_ASSIGN_OR_RETURN(
        summary,
        WriteVectorSkeletons(context, dest_url, skeletons, loaded.voxel_size, options, read_call));
  } else {
    CHUNKWISE_ASSIGN_OR_RETURN(std::shared_ptr<store::Store> dest,
                               OpenStore(context, dest_url, context.store_options(true)));
    sk::WriteSkeletonsOptions write;
    write.output = options.format == SkeletonFormat::kSwc ? sk::SkeletonOutput::kSwc
                   : options.format == SkeletonFormat::kPrecomputedSharded
                       ? sk::SkeletonOutput::kPrecomputedSharded
                       : sk::SkeletonOutput::kPrecomputed;
    write.overwrite = options.overwrite;
    write.directory = options.directory;
    Result<sk::WrittenSkeletons> written = sk::WriteSkeletons(*dest, skeletons, write);
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
