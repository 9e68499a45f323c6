#include "formats/vectors/store_metadata.h"

#include <algorithm>
#include <cmath>

#include "formats/vectors/layout.h"
#include "formats/vectors/number_text.h"

namespace chunkwise::formats::vectors {
namespace {

// Stored metadata that does not hold together: Corruption naming the key.
Status Bad(std::string_view key, const std::string& what) {
  return Status::Corruption(std::string(key) + ": " + what);
}

// Extents the reader divides by to place vertices: finite and positive.
Status CheckExtents(const Vec3& extents, std::string_view key, const std::string& field) {
  for (int d = 0; d < 3; ++d) {
    if (!std::isfinite(extents[d]) || !(extents[d] > 0)) {
      return Bad(key, field + "[" + std::to_string(d) + "] is " + NumberText(extents[d]) +
                          ", not a finite positive number");
    }
  }
  return Status::Ok();
}

// The bounds the writer recorded from the vertices: finite, min <= max.
Status CheckBounds(const Vec3& low, const Vec3& high, std::string_view key) {
  for (int d = 0; d < 3; ++d) {
    if (!std::isfinite(low[d]) || !std::isfinite(high[d])) {
      return Bad(key, "bounds on axis " + std::to_string(d) + " are [" + NumberText(low[d]) + ", " +
                          NumberText(high[d]) + "], not finite");
    }
    if (low[d] > high[d]) {
      return Bad(key, "bounds on axis " + std::to_string(d) + ": min " + NumberText(low[d]) +
                          " is above max " + NumberText(high[d]));
    }
  }
  return Status::Ok();
}

Result<Vec3> ParseVec3(const nlohmann::json& json, std::string_view key, const std::string& field) {
  if (!json.is_array() || json.size() != 3) {
    return Bad(key, field + " must be a list of 3 numbers (chunkwise reads 3-D stores only)");
  }
  Vec3 values{};
  for (std::size_t i = 0; i < 3; ++i) {
    if (!json[i].is_number())
      return Bad(key, field + "[" + std::to_string(i) + "] is not a number");
    values[i] = json[i].get<double>();
  }
  return values;
}

nlohmann::json Vec3Json(const Vec3& values) { return {values[0], values[1], values[2]}; }

std::string LinksConvention(GeometryType type) {
  switch (type) {
    case GeometryType::kPoints:
    case GeometryType::kPolyline:
      return "implicit_sequential";
    case GeometryType::kSkeleton:
      return "implicit_sequential_with_branches";
    default:
      return "explicit";
  }
}

nlohmann::json Multiscales(const RootMetadata& metadata) {
  nlohmann::json datasets = nlohmann::json::array();
  for (int level = 0; level < metadata.num_levels; ++level) {
    const double scale = static_cast<double>(1 << std::min(level, 30));
    nlohmann::json scales = nlohmann::json::array();
    nlohmann::json translation = nlohmann::json::array();
    for (int d = 0; d < 3; ++d) {
      scales.push_back(scale);
      translation.push_back(metadata.base_bin_shape[d] * scale / 2);
    }
    datasets.push_back({{"path", std::to_string(level)},
                        {"coordinateTransformations",
                         {{{"type", "scale"}, {"scale", scales}},
                          {{"type", "translation"}, {"translation", translation}}}}});
  }
  nlohmann::json axes = nlohmann::json::array();
  for (const char* name : {"x", "y", "z"}) axes.push_back({{"name", name}, {"type", "space"}});
  return nlohmann::json::array({{{"version", "0.4"},
                                 {"name", "default"},
                                 {"axes", axes},
                                 {"datasets", datasets},
                                 {"metadata", {{"format", "zarr_vectors"}}}}});
}

}  // namespace

std::string_view CrossLevelStorageName(CrossLevelStorage storage) {
  return storage == CrossLevelStorage::kExplicit ? "explicit" : "implicit";
}

Result<CrossLevelStorage> ParseCrossLevelStorage(std::string_view name) {
  if (name == "explicit") return CrossLevelStorage::kExplicit;
  if (name == "implicit") return CrossLevelStorage::kImplicit;
  return Status::InvalidArgument("cross_level_storage \"" + std::string(name) +
                                 "\" is not explicit or implicit");
}

bool RootMetadata::HasCapability(std::string_view name) const {
  return std::find(capabilities.begin(), capabilities.end(), name) != capabilities.end();
}

nlohmann::json FormatRootAttributes(const RootMetadata& metadata) {
  nlohmann::json block = {
      {"zv_version", metadata.version},
      {"chunk_shape", Vec3Json(metadata.chunk_shape)},
      {"bounds", {Vec3Json(metadata.bounds_min), Vec3Json(metadata.bounds_max)}},
      {"geometry_types", {GeometryTypeName(metadata.geometry_type)}},
      {"crs", nullptr},
      {"links_convention", LinksConvention(metadata.geometry_type)},
      {"cross_chunk_strategy", "explicit_links"},
      {"cross_level_depth", 1},
      {"cross_level_storage", CrossLevelStorageName(metadata.cross_level_storage)},
      {"reduction_factor", 8},
      {"base_bin_shape", Vec3Json(metadata.base_bin_shape)},
      {"format_capabilities", metadata.capabilities}};
  // zarr-vectors 0.9 names how objects are indexed (object_index/).
  if (metadata.layout == LayoutVersion::k0_9) block["object_index_convention"] = "standard";
  return {{std::string(layout::kRootAttributesKey), block}, {"multiscales", Multiscales(metadata)}};
}

std::string_view LayoutVersionName(LayoutVersion layout) {
  return layout == LayoutVersion::k0_9 ? "0.9" : "0.8";
}

Result<LayoutVersion> DetectLayoutVersion(std::string_view version, std::string_view key) {
  if (version.starts_with("0.8.")) return LayoutVersion::k0_8;
  if (version.starts_with("0.9.")) return LayoutVersion::k0_9;
  return Status::Unsupported(std::string(key) + ": zarr-vectors layout version " +
                             std::string(version) + " (chunkwise reads 0.8.x and 0.9.x)");
}

Result<LayoutVersion> ParseLayoutVersion(std::string_view name) {
  if (name == "0.8" || name == v0_8::kVersion) return LayoutVersion::k0_8;
  if (name == "0.9" || name == v0_9::kVersion) return LayoutVersion::k0_9;
  return Status::InvalidArgument("unknown zarr-vectors layout \"" + std::string(name) +
                                 "\" (known: 0.8, 0.9)");
}

Result<RootMetadata> ParseRootAttributes(const nlohmann::json& attributes, std::string_view key) {
  const std::string block_name(layout::kRootAttributesKey);
  if (!attributes.is_object() || !attributes.contains(block_name) ||
      !attributes[block_name].is_object()) {
    return Status::InvalidArgument(std::string(key) + ": no \"" + block_name +
                                   "\" attributes: not a zarr-vectors store");
  }
  const nlohmann::json& block = attributes[block_name];
  RootMetadata metadata;
  if (!block.contains("zv_version") || !block["zv_version"].is_string()) {
    return Bad(key, "zv_version is missing or not a string");
  }
  metadata.version = block["zv_version"].get<std::string>();
  CHUNKWISE_ASSIGN_OR_RETURN(metadata.layout, DetectLayoutVersion(metadata.version, key));
  CHUNKWISE_ASSIGN_OR_RETURN(
      metadata.chunk_shape,
      ParseVec3(block.value("chunk_shape", nlohmann::json()), key, "chunk_shape"));
  CHUNKWISE_RETURN_IF_ERROR(CheckExtents(metadata.chunk_shape, key, "chunk_shape"));
  const nlohmann::json bounds = block.value("bounds", nlohmann::json());
  if (!bounds.is_array() || bounds.size() != 2) return Bad(key, "bounds must be [min, max]");
  CHUNKWISE_ASSIGN_OR_RETURN(metadata.bounds_min, ParseVec3(bounds[0], key, "bounds[0]"));
  CHUNKWISE_ASSIGN_OR_RETURN(metadata.bounds_max, ParseVec3(bounds[1], key, "bounds[1]"));
  CHUNKWISE_RETURN_IF_ERROR(CheckBounds(metadata.bounds_min, metadata.bounds_max, key));
  const nlohmann::json types = block.value("geometry_types", nlohmann::json());
  if (!types.is_array() || types.size() != 1 || !types[0].is_string()) {
    return Bad(key, "geometry_types must list exactly one geometry type");
  }
  metadata.geometry_name = types[0].get<std::string>();
  CHUNKWISE_ASSIGN_OR_RETURN(metadata.geometry_type, ParseGeometryType(metadata.geometry_name));
  const nlohmann::json convention = block.value("links_convention", nlohmann::json(""));
  if (!convention.is_string()) return Bad(key, "links_convention is not a string");
  metadata.links_convention = convention.get<std::string>();
  const nlohmann::json storage = block.value("cross_level_storage", nlohmann::json("explicit"));
  if (!storage.is_string()) return Bad(key, "cross_level_storage is not a string");
  CHUNKWISE_ASSIGN_OR_RETURN(metadata.cross_level_storage,
                             ParseCrossLevelStorage(storage.get<std::string>()));
  metadata.base_bin_shape = metadata.chunk_shape;
  if (block.contains("base_bin_shape")) {
    CHUNKWISE_ASSIGN_OR_RETURN(metadata.base_bin_shape,
                               ParseVec3(block["base_bin_shape"], key, "base_bin_shape"));
    CHUNKWISE_RETURN_IF_ERROR(CheckExtents(metadata.base_bin_shape, key, "base_bin_shape"));
  }
  const nlohmann::json capabilities = block.value("format_capabilities", nlohmann::json::array());
  if (!capabilities.is_array()) return Bad(key, "format_capabilities is not a list");
  for (const nlohmann::json& capability : capabilities) {
    if (!capability.is_string()) return Bad(key, "format_capabilities holds a non-string");
    metadata.capabilities.push_back(capability.get<std::string>());
  }
  const nlohmann::json multiscales = attributes.value("multiscales", nlohmann::json());
  metadata.num_levels = 1;
  if (multiscales.is_array() && !multiscales.empty() && multiscales[0].is_object() &&
      multiscales[0].contains("datasets") && multiscales[0]["datasets"].is_array()) {
    metadata.num_levels = std::max<int>(1, static_cast<int>(multiscales[0]["datasets"].size()));
  }
  return metadata;
}

nlohmann::json FormatLevelAttributes(const LevelMetadata& metadata) {
  nlohmann::json block = {
      {"level", metadata.level},
      {"vertex_count", metadata.vertex_count},
      {"arrays_present", metadata.arrays_present},
      {"bin_shape", nullptr},
      {"coarsening_method", !metadata.coarsening_method.empty()
                                ? metadata.coarsening_method
                                : std::string(metadata.level == 0 ? "none" : "per_object")},
      {"object_sparsity", 1.0}};
  if (metadata.bin_shape) block["bin_shape"] = Vec3Json(*metadata.bin_shape);
  if (metadata.parent_level >= 0) block["parent_level"] = metadata.parent_level;
  return {{std::string(layout::kLevelAttributesKey), block}};
}

Result<LevelMetadata> ParseLevelAttributes(const nlohmann::json& attributes, std::string_view key) {
  const std::string block_name(layout::kLevelAttributesKey);
  if (!attributes.is_object() || !attributes.contains(block_name) ||
      !attributes[block_name].is_object()) {
    return Bad(key, "no \"" + block_name + "\" attributes");
  }
  const nlohmann::json& block = attributes[block_name];
  LevelMetadata metadata;
  if (!block.value("level", nlohmann::json()).is_number_integer())
    return Bad(key, "level is not an integer");
  metadata.level = block["level"].get<int>();
  const nlohmann::json count = block.value("vertex_count", nlohmann::json(0));
  if (!count.is_number_unsigned() && !count.is_number_integer()) {
    return Bad(key, "vertex_count is not an integer");
  }
  metadata.vertex_count = count.get<std::uint64_t>();
  const nlohmann::json present = block.value("arrays_present", nlohmann::json::array());
  if (!present.is_array()) return Bad(key, "arrays_present is not a list");
  for (const nlohmann::json& name : present) {
    if (!name.is_string()) return Bad(key, "arrays_present holds a non-string");
    metadata.arrays_present.push_back(name.get<std::string>());
  }
  if (block.contains("bin_shape") && !block["bin_shape"].is_null()) {
    CHUNKWISE_ASSIGN_OR_RETURN(metadata.bin_shape, ParseVec3(block["bin_shape"], key, "bin_shape"));
  }
  const nlohmann::json parent = block.value("parent_level", nlohmann::json(-1));
  metadata.parent_level = parent.is_number_integer() ? parent.get<int>() : -1;
  return metadata;
}

}  // namespace chunkwise::formats::vectors
