#include "chunkwise/facade/meshes.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>
#include <functional>
#include <utility>

#include "chunkwise/facade/format_detection.h"
#include "chunkwise/facade/precomputed_volumes.h"
#include "chunkwise/facade/vectors.h"
#include "chunkwise/facade/zarr_arrays.h"
#include "core/file_io.h"
#include "facade/precomputed_types.h"
#include "facade/zarr_array_access.h"
#include "formats/precomputed/segment_properties.h"
#include "pipelines/meshing/label_meshes.h"
#include "pipelines/meshing/mesh_output.h"

namespace chunkwise {
namespace {

namespace pc = formats::precomputed;

// The labels of a box, any unsigned type, as 64-bit values.
std::vector<std::uint64_t> Widen(const Bytes& bytes, core::DataType type) {
  const std::size_t n = bytes.size() / type.size();
  std::vector<std::uint64_t> out(n);
  auto widen = [&](auto zero) {
    using T = decltype(zero);
    for (std::size_t i = 0; i < n; ++i) {
      T value;
      std::memcpy(&value, bytes.data() + i * sizeof(T), sizeof(T));
      out[i] = value;
    }
  };
  switch (type.id()) {
    case core::DataTypeId::kUInt8:
      widen(std::uint8_t{});
      break;
    case core::DataTypeId::kUInt16:
      widen(std::uint16_t{});
      break;
    case core::DataTypeId::kUInt32:
      widen(std::uint32_t{});
      break;
    default:
      widen(std::uint64_t{});
      break;
  }
  return out;
}

Status CheckLabelType(core::DataType type, std::string_view url) {
  if (type.is_integer() && !type.is_signed() && type.id() != core::DataTypeId::kBool) {
    return Status::Ok();
  }
  return Status::InvalidArgument(std::string(url) + ": labels must be unsigned integers, not " +
                                 std::string(type.zarr_name()));
}

// A source of labels (z, y, x) that keeps what it reads from open.
struct OpenedSource {
  pipelines::LabelSource source;
  std::shared_ptr<void> keep;
  // A precomputed source's finest scale, (x, y, z); a zarr array's voxels are 1 and at 0.
  std::array<double, 3> resolution{1, 1, 1};
  std::array<std::int64_t, 3> voxel_offset{0, 0, 0};
};

Result<OpenedSource> OpenLabels(const Context& context, std::string_view url,
                                const CallOptions& call) {
  CHUNKWISE_ASSIGN_OR_RETURN(std::shared_ptr<store::Store> store,
                             OpenStore(context, url, context.store_options(false)));
  Result<DetectedFormat> format = DetectFormat(*store, "");
  if (!format.ok()) return format.status().WithContext("label volume " + std::string(url));
  OpenedSource opened;
  const std::string name(url);
  if (format->kind == FormatKind::kPrecomputed) {
    CHUNKWISE_ASSIGN_OR_RETURN(std::unique_ptr<PrecomputedVolume> opened_volume,
                               OpenPrecomputed(context, url));
    std::shared_ptr<PrecomputedVolume> volume = std::move(opened_volume);
    CHUNKWISE_RETURN_IF_ERROR(CheckLabelType(volume->info().data_type, url));
    if (volume->info().num_channels != 1) {
      return Status::InvalidArgument(name + ": labels have one channel, not " +
                                     std::to_string(volume->info().num_channels));
    }
    const PrecomputedScaleInfo& scale = volume->scale(0);
    opened.source.shape = {scale.size[2], scale.size[1], scale.size[0]};
    opened.resolution = scale.resolution;
    opened.voxel_offset = {scale.voxel_offset[0], scale.voxel_offset[1], scale.voxel_offset[2]};
    const core::DataType type = volume->info().data_type;
    opened.source.read = [volume,
                          type](const core::Region& region) -> Result<std::vector<std::uint64_t>> {
      CHUNKWISE_ASSIGN_OR_RETURN(const Bytes bytes,
                                 PrecomputedVolumeAccess::Held(*volume).Read(0, region));
      return Widen(bytes, type);
    };
    opened.keep = volume;
    return opened;
  }
  if (format->kind != FormatKind::kZarrV3Array && format->kind != FormatKind::kZarrV2Array) {
    return Status::InvalidArgument(name + " holds a " + std::string(FormatName(format->kind)) +
                                   "; labels are read from a zarr array or a precomputed volume");
  }
  CHUNKWISE_ASSIGN_OR_RETURN(ZarrArray opened_array, OpenZarrArray(context, url, {}, call));
  auto array = std::make_shared<ZarrArray>(std::move(opened_array));
  const core::DataType type = array->metadata().data_type;
  CHUNKWISE_RETURN_IF_ERROR(CheckLabelType(type, url));
  const core::Shape& shape = array->metadata().shape;
  if (shape.size() != 3) {
    return Status::InvalidArgument(name + ": labels are a 3-d array (z, y, x), not " +
                                   std::to_string(shape.size()) + "-d");
  }
  opened.source.shape = {shape[0], shape[1], shape[2]};
  opened.source.read = [array,
                        type](const core::Region& region) -> Result<std::vector<std::uint64_t>> {
    CHUNKWISE_ASSIGN_OR_RETURN(const Bytes bytes, ZarrArrayAccess::Held(*array).Read(region));
    return Widen(bytes, type);
  };
  opened.keep = array;
  return opened;
}

// The destination's finest scale, checked before any meshing.
Result<pc::ScaleInfo> CheckDestination(const Context& context, std::string_view url,
                                       const std::array<std::int64_t, 3>& shape,
                                       const MeshOptions& options) {
  Result<std::unique_ptr<PrecomputedVolume>> volume = OpenPrecomputed(context, url);
  if (!volume.ok()) {
    if (volume.status().code() != StatusCode::kNotFound) return volume.status();
    return Status::NotFound("no precomputed segmentation at " + std::string(url) +
                            " to hold the meshes (make one with `zarr to-precomputed`): " +
                            std::string(volume.status().message()));
  }
  const pc::VolumeInfo& info = PrecomputedVolumeAccess::Held(**volume).info();
  if (info.type != pc::VolumeType::kSegmentation) {
    return Status::InvalidArgument(std::string(url) + " is a precomputed " +
                                   std::string(pc::VolumeTypeName(info.type)) +
                                   " volume; meshes go into a segmentation");
  }
  const pc::ScaleInfo& scale = info.scales.at(0);
  if (scale.size[0] != shape[2] || scale.size[1] != shape[1] || scale.size[2] != shape[0]) {
    return Status::InvalidArgument(
        std::string(url) + "'s finest scale is " + std::to_string(scale.size[0]) + "," +
        std::to_string(scale.size[1]) + "," + std::to_string(scale.size[2]) +
        " voxels (x,y,z) and the labels " + std::to_string(shape[2]) + "," +
        std::to_string(shape[1]) + "," + std::to_string(shape[0]));
  }
  for (const char* member : {"mesh", "segment_properties"}) {
    if (info.extra.contains(member) && !options.overwrite) {
      return Status::InvalidArgument(std::string(url) + " already has " + member + " (" +
                                     info.extra[member].dump() + "); overwrite to replace it")
          .WithField("overwrite");
    }
  }
  return scale;
}

// The meshes as one zarr-vectors mesh geometry: each label's vertices and
// triangles (winding kept) in label order, the label as object id.
Result<VectorGeometry> MeshGeometry(const pipelines::MeshedLabels& meshed) {
  VectorGeometry geometry;
  geometry.type = VectorGeometryType::kMesh;
  for (const auto& [label, mesh] : meshed.meshes) {
    if (label > static_cast<std::uint64_t>(INT64_MAX)) {
      return Status::InvalidArgument("label " + std::to_string(label) +
                                     " does not fit a zarr-vectors object id (int64)");
    }
    const auto first = static_cast<std::int64_t>(geometry.positions.size());
    for (std::size_t v = 0; v < mesh.num_vertices(); ++v) {
      geometry.positions.push_back(
          {mesh.vertices[3 * v], mesh.vertices[3 * v + 1], mesh.vertices[3 * v + 2]});
    }
    geometry.object_ids.insert(geometry.object_ids.end(), mesh.num_vertices(),
                               static_cast<std::int64_t>(label));
    for (std::uint32_t index : mesh.triangles) geometry.links.push_back(first + index);
  }
  return geometry;
}

// Meshes written as a new zarr-vectors store at `dest_url`; its chunks are
// the meshing chunks in physical units.
Result<MeshSummary> WriteVectorMeshes(const Context& context, std::string_view dest_url,
                                      const pipelines::MeshedLabels& meshed,
                                      const OpenedSource& opened, const MeshOptions& options,
                                      const CallOptions& call) {
  CHUNKWISE_ASSIGN_OR_RETURN(const VectorGeometry geometry, MeshGeometry(meshed));
  VectorsWriteOptions write;
  write.overwrite = options.overwrite;
  for (int a = 0; a < 3; ++a) {
    write.chunk_shape[a] = static_cast<double>(options.chunk[2 - a]) * opened.resolution[a];
  }
  CHUNKWISE_ASSIGN_OR_RETURN(const VectorsWriteSummary written,
                             WriteVectors(context, dest_url, geometry, write, call));
  MeshSummary summary;
  summary.segments = meshed.meshes.size();
  summary.vertices = written.vertices;
  summary.triangles = geometry.num_links();
  return summary;
}

Result<std::map<std::uint64_t, pc::SegmentName>> ReadNames(const std::string& path) {
  if (path.empty()) return std::map<std::uint64_t, pc::SegmentName>{};
  CHUNKWISE_ASSIGN_OR_RETURN(const Bytes bytes, core::ReadFile(path));
  return pc::ParseSegmentNamesCsv(
      std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()), path);
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
  // Simplified as the legacy meshes are: both outputs hold the same triangles.
  pipelines::MeshOutputOptions simplification;
  simplification.max_error = options.max_simplification_error;
  simplification.reduction_factor = options.simplification_factor;
  simplification.pool = pool.get();
  simplification.cancellation = &context.cancellation(call);
  CHUNKWISE_RETURN_IF_ERROR(pipelines::SimplifyMeshes(meshed, simplification));
  CHUNKWISE_RETURN_IF_ERROR(context.CheckCancelled(call, "writing " + std::string(dest_url)));
  // The store's progress counts vertices: kept from the call's voxels.
  core::ProgressObserver silent;
  CallOptions write_call = call;
  write_call.observer = &silent;
  write_call.progress_mode = core::ProgressMode::kQuiet;
  CHUNKWISE_ASSIGN_OR_RETURN(MeshSummary summary, WriteVectorMeshes(context, dest_url, meshed,
                                                                    opened, options, write_call));
  progress->Finish();
  summary.voxels = voxels;
  return summary;
}

}  // namespace

Result<MeshSummary> GenerateMeshes(const Context& context, std::string_view source_url,
                                   std::string_view dest_url, const MeshOptions& options,
                                   const CallOptions& call) {
  const bool sharded = options.format == "multires-sharded";
  const bool multires = sharded || options.format == "multires";
  const bool vectors = options.format == "vectors";
  if (!multires && !vectors && options.format != "legacy") {
    return Status::InvalidArgument("mesh format \"" + options.format +
                                   "\" is not one of legacy, multires, multires-sharded, vectors")
        .WithField("format");
  }
  if (vectors && !options.names_csv.empty()) {
    return Status::InvalidArgument(
               "segment names go into a precomputed segmentation's segment properties; a "
               "zarr-vectors mesh store has none")
        .WithField("names");
  }
  if (std::find(options.labels.begin(), options.labels.end(), 0) != options.labels.end()) {
    return Status::InvalidArgument("label 0 is background and has no mesh").WithField("labels");
  }
  if (multires && (options.lods < 1 || options.lods > 16)) {
    return Status::InvalidArgument("levels of detail: 1 to 16, not " + std::to_string(options.lods))
        .WithField("lods");
  }
  for (const auto& [value, field] :
       {std::pair{options.simplification_factor, "simplification_factor"},
        std::pair{options.max_simplification_error, "max_simplification_error"}}) {
    if (!std::isfinite(value) || value < 0) {
      return Status::InvalidArgument(std::string(field) + " must be a number >= 0, not " +
                                     std::to_string(value))
          .WithField(field);
    }
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
  const std::array<std::int64_t, 3> voxel_offset{scale.voxel_offset[0], scale.voxel_offset[1],
                                                 scale.voxel_offset[2]};
  pipelines::MeshingOptions placement;
  if (!multires) {
    placement.resolution = scale.resolution;
    placement.voxel_offset = voxel_offset;
  }  // Else voxels: the mesh info's transform scales them.
  CHUNKWISE_ASSIGN_OR_RETURN(const pipelines::MeshedLabels meshed,
                             MeshSource(context, source_url, opened, options, placement, pool.get(),
                                        progress.get(), call));

  pipelines::MeshOutputOptions output;
  output.overwrite = options.overwrite;
  output.names = std::move(names);
  output.max_error = options.max_simplification_error;
  output.reduction_factor = options.simplification_factor;
  output.pool = pool.get();
  output.cancellation = &context.cancellation(call);
  pipelines::MultiresOutputOptions lods;
  lods.lods = options.lods;
  lods.fragment = {options.chunk[2], options.chunk[1], options.chunk[0]};
  lods.resolution = scale.resolution;
  lods.voxel_offset = voxel_offset;
  lods.sharded = sharded;
  const Result<pipelines::MeshOutputSummary> written =
      multires ? pipelines::WriteMultiresMeshes(*dest, "", meshed, output, lods)
               : pipelines::WriteLegacyMeshes(*dest, "", meshed, output);
  CHUNKWISE_RETURN_IF_ERROR(written.status());
  progress->Finish();
  summary.segments = written->segments;
  summary.vertices = written->vertices;
  summary.triangles = written->triangles;
  summary.bytes = written->bytes;
  summary.mesh_dir = output.mesh_dir;
  summary.properties_dir = output.properties_dir;
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
