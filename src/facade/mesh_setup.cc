#include "facade/mesh_setup.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <utility>
#include <vector>

#include "chunkwise/facade/format_detection.h"
#include "chunkwise/facade/precomputed_volumes.h"
#include "chunkwise/facade/vectors.h"
#include "chunkwise/facade/zarr_arrays.h"
#include "core/file_io.h"
#include "facade/precomputed_types.h"
#include "facade/zarr_array_access.h"

namespace chunkwise::mesh_setup {
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

}  // namespace

Status CheckMeshOptions(const MeshOptions& options) {
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
  if ((multires || vectors) && (options.lods < 1 || options.lods > 16)) {
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
  return Status::Ok();
}

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

Result<std::map<std::uint64_t, pc::SegmentName>> ReadNames(const std::string& path) {
  if (path.empty()) return std::map<std::uint64_t, pc::SegmentName>{};
  CHUNKWISE_ASSIGN_OR_RETURN(const Bytes bytes, core::ReadFile(path));
  return pc::ParseSegmentNamesCsv(
      std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()), path);
}

pipelines::MeshJob PlanMeshJob(const MeshOptions& options, const pc::ScaleInfo& scale,
                               const std::array<std::int64_t, 3>& shape,
                               std::map<std::uint64_t, pc::SegmentName> names, int parts) {
  pipelines::MeshJob job;
  job.parts = parts;
  job.shape = shape;
  job.multires = options.format == "multires" || options.format == "multires-sharded";
  const std::array<std::int64_t, 3> voxel_offset{scale.voxel_offset[0], scale.voxel_offset[1],
                                                 scale.voxel_offset[2]};
  job.meshing.chunk = options.chunk;
  if (!options.labels.empty()) job.meshing.labels = options.labels;
  if (!job.multires) {
    job.meshing.resolution = scale.resolution;
    job.meshing.voxel_offset = voxel_offset;
  }  // Else voxels: the mesh info's transform scales them.
  job.output.overwrite = options.overwrite;
  job.output.names = std::move(names);
  job.output.max_error = options.max_simplification_error;
  job.output.reduction_factor = options.simplification_factor;
  job.lods.lods = options.lods;
  job.lods.fragment = {options.chunk[2], options.chunk[1], options.chunk[0]};
  job.lods.resolution = scale.resolution;
  job.lods.voxel_offset = voxel_offset;
  job.lods.sharded = options.format == "multires-sharded";
  return job;
}

pipelines::MeshLevelsOptions VectorLevels(const MeshOptions& options, const OpenedSource& opened) {
  pipelines::MeshLevelsOptions levels;
  levels.levels = options.lods;
  levels.resolution = opened.resolution;
  levels.voxel_offset = opened.voxel_offset;
  levels.chunk = options.chunk;
  return levels;
}

Result<MeshSummary> WriteVectorMeshes(const Context& context, std::string_view dest_url,
                                      const pipelines::LeveledMeshes& levels,
                                      const OpenedSource& opened, const MeshOptions& options,
                                      const CallOptions& call) {
  std::vector<VectorGeometry> geometries(static_cast<std::size_t>(std::max(options.lods, 1)));
  for (std::size_t k = 0; k < geometries.size(); ++k) {
    VectorGeometry& geometry = geometries[k];
    geometry.type = VectorGeometryType::kMesh;
    for (const auto& [label, meshes] : levels) {
      if (label > static_cast<std::uint64_t>(INT64_MAX)) {
        return Status::InvalidArgument("label " + std::to_string(label) +
                                       " does not fit a zarr-vectors object id (int64)");
      }
      const pipelines::LabelMesh& mesh = meshes.at(k);
      const auto first = static_cast<std::int64_t>(geometry.positions.size());
      for (std::size_t v = 0; v < mesh.num_vertices(); ++v) {
        geometry.positions.push_back(
            {mesh.vertices[3 * v], mesh.vertices[3 * v + 1], mesh.vertices[3 * v + 2]});
      }
      geometry.object_ids.insert(geometry.object_ids.end(), mesh.num_vertices(),
                                 static_cast<std::int64_t>(label));
      for (const std::uint32_t index : mesh.triangles) geometry.links.push_back(first + index);
    }
  }
  VectorsWriteOptions write;
  write.overwrite = options.overwrite;
  // Layout 0.9: zarr-vectors' own reader (0.9.x) opens every level.
  write.layout = VectorsLayout::k0_9;
  for (int a = 0; a < 3; ++a) {
    write.chunk_shape[a] = static_cast<double>(options.chunk[2 - a]) * opened.resolution[a];
  }
  CHUNKWISE_ASSIGN_OR_RETURN(const VectorsWriteSummary written,
                             WriteVectorLevels(context, dest_url, geometries, write, call));
  MeshSummary summary;
  summary.segments = levels.size();
  summary.vertices = written.vertices;
  summary.triangles = geometries.front().num_links();
  return summary;
}

}  // namespace chunkwise::mesh_setup
