#include "facade/skeleton_setup.h"

#include <cstring>
#include <string>
#include <utility>

#include "chunkwise/facade/format_detection.h"
#include "chunkwise/facade/precomputed_volumes.h"
#include "chunkwise/facade/vectors.h"
#include "chunkwise/facade/zarr_arrays.h"

namespace chunkwise::skeleton_setup {
namespace {

namespace sk = pipelines::skeletons;

template <typename T>
std::vector<std::uint64_t> Widen(const Bytes& bytes) {
  std::vector<std::uint64_t> out(bytes.size() / sizeof(T));
  for (std::size_t i = 0; i < out.size(); ++i) {
    T v;
    std::memcpy(&v, bytes.data() + i * sizeof(T), sizeof(T));
    out[i] = v;
  }
  return out;
}

std::vector<std::uint64_t> WidenLabels(const Bytes& bytes, core::DataType type) {
  switch (type.id()) {
    case core::DataTypeId::kUInt8:
      return Widen<std::uint8_t>(bytes);
    case core::DataTypeId::kUInt16:
      return Widen<std::uint16_t>(bytes);
    case core::DataTypeId::kUInt32:
      return Widen<std::uint32_t>(bytes);
    default:
      return Widen<std::uint64_t>(bytes);
  }
}

Status CheckLabelType(core::DataType type, std::string_view url) {
  switch (type.id()) {
    case core::DataTypeId::kUInt8:
    case core::DataTypeId::kUInt16:
    case core::DataTypeId::kUInt32:
    case core::DataTypeId::kUInt64:
      return Status();
    default:
      return Status::InvalidArgument(std::string(url) + " holds " + std::string(type.zarr_name()) +
                                     ", not unsigned integer labels");
  }
}

// The call the reads run with: quiet, the call's threads and cancellation.
CallOptions QuietCall(const CallOptions& call) {
  static core::ProgressObserver silent;
  CallOptions read = call;
  read.observer = &silent;
  read.progress_mode = core::ProgressMode::kQuiet;
  return read;
}

Result<OpenedSource> OpenPrecomputedSource(const Context& context, std::string_view url,
                                           const CallOptions& call) {
  CHUNKWISE_ASSIGN_OR_RETURN(std::unique_ptr<PrecomputedVolume> opened,
                             OpenPrecomputed(context, url));
  std::shared_ptr<PrecomputedVolume> volume = std::move(opened);
  const PrecomputedVolumeInfo& info = volume->info();
  if (info.num_channels != 1) {
    return Status::InvalidArgument(std::string(url) + " has " + std::to_string(info.num_channels) +
                                   " channels; labels have one");
  }
  CHUNKWISE_RETURN_IF_ERROR(CheckLabelType(info.data_type, url));
  const PrecomputedScaleInfo& scale = info.scales.at(0);
  OpenedSource out;
  sk::SkeletonSource& source = out.source;
  source.shape = {scale.size[2], scale.size[1], scale.size[0]};
  source.chunk = {scale.chunk_size[2], scale.chunk_size[1], scale.chunk_size[0]};
  for (int a = 0; a < 3; ++a) {
    source.voxel_size[a] = scale.resolution[a];
    source.origin[a] = static_cast<double>(scale.voxel_offset[a]) * scale.resolution[a];
  }
  const core::DataType type = info.data_type;
  const CallOptions read = QuietCall(call);
  source.read = [&context, volume, type,
                 read](const core::Region& region) -> Result<std::vector<std::uint64_t>> {
    CHUNKWISE_ASSIGN_OR_RETURN(const Bytes bytes,
                               ReadPrecomputedRegion(context, *volume, 0, region, read));
    return WidenLabels(bytes, type);
  };
  out.keep = volume;
  return out;
}

Result<OpenedSource> OpenZarrSource(const Context& context, std::string_view url,
                                    const CallOptions& call) {
  CHUNKWISE_ASSIGN_OR_RETURN(ZarrArray opened, OpenZarrArray(context, url, {}, call));
  auto array = std::make_shared<ZarrArray>(std::move(opened));
  const ZarrArrayMetadata& metadata = array->metadata();
  if (metadata.shape.size() != 3) {
    return Status::InvalidArgument(std::string(url) + " has " +
                                   std::to_string(metadata.shape.size()) +
                                   " dimensions; skeletons need a 3-d (z, y, x) label volume");
  }
  CHUNKWISE_RETURN_IF_ERROR(CheckLabelType(metadata.data_type, url));
  OpenedSource out;
  sk::SkeletonSource& source = out.source;
  const core::Shape& chunk = metadata.inner_chunk_shape.value_or(metadata.chunk_shape);
  for (int a = 0; a < 3; ++a) {
    source.shape[a] = metadata.shape[a];
    source.chunk[a] = chunk.size() == 3 && chunk[a] > 0 ? chunk[a] : 64;
  }
  const core::DataType type = metadata.data_type;
  const std::size_t item = type.size();
  const CallOptions read = QuietCall(call);
  source.read = [&context, array, type, item,
                 read](const core::Region& region) -> Result<std::vector<std::uint64_t>> {
    Bytes bytes(static_cast<std::size_t>(region.num_elements()) * item);
    CHUNKWISE_RETURN_IF_ERROR(ReadRegionInto(context, *array, region, bytes.data(), read));
    return WidenLabels(bytes, type);
  };
  out.keep = array;
  return out;
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

}  // namespace

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

Result<OpenedSource> OpenSource(const Context& context, std::string_view url,
                                const SkeletonizeOptions& options, const CallOptions& call) {
  CHUNKWISE_ASSIGN_OR_RETURN(std::shared_ptr<store::Store> store,
                             OpenStore(context, url, context.store_options(false)));
  Result<DetectedFormat> format = DetectFormat(*store, "");
  if (!format.ok()) return format.status().WithContext(url);
  Result<OpenedSource> opened = Status::Internal("unreached");
  switch (format->kind) {
    case FormatKind::kPrecomputed:
      opened = OpenPrecomputedSource(context, url, call);
      break;
    case FormatKind::kZarrV3Array:
    case FormatKind::kZarrV2Array:
      opened = OpenZarrSource(context, url, call);
      break;
    default:
      return Status::InvalidArgument(
          std::string(url) + " is " + std::string(FormatName(format->kind)) +
          ", not a label volume (a zarr array or a precomputed segmentation)");
  }
  if (opened.ok() && options.voxel_size) {
    sk::SkeletonSource& source = opened->source;
    for (int a = 0; a < 3; ++a) {
      source.origin[a] = source.origin[a] / source.voxel_size[a] * (*options.voxel_size)[a];
    }
    source.voxel_size = *options.voxel_size;
  }
  return opened;
}

sk::SkeletonJob PlanJob(const SkeletonizeOptions& options, std::string_view source_url, int parts) {
  sk::SkeletonJob job;
  job.parts = parts;
  job.labels = options.labels;
  job.output.output = options.format == SkeletonFormat::kSwc ? sk::SkeletonOutput::kSwc
                      : options.format == SkeletonFormat::kPrecomputedSharded
                          ? sk::SkeletonOutput::kPrecomputedSharded
                          : sk::SkeletonOutput::kPrecomputed;
  job.output.overwrite = options.overwrite;
  job.output.directory = options.directory;
  job.skeletonize.params = {options.scale, options.constant, options.pdrf_scale,
                            options.pdrf_exponent};
  job.skeletonize.max_memory = options.max_memory;
  job.where = std::string(source_url);
  job.vectors = options.format == SkeletonFormat::kVectors;
  return job;
}

}  // namespace chunkwise::skeleton_setup
