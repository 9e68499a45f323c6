// The root and level metadata of a zarr-vectors store, and the geometry types.
//
// Spec: docs/formats/vectors.md, "Root and level metadata" and "Geometry
// types". The root group's attributes hold {"zarr_vectors": {...},
// "multiscales": [...]}; each level group's hold {"zarr_vectors_level": {...}}.
// Parsing never throws and names the metadata key in every error. Plain value
// types.
#ifndef CHUNKWISE_FORMATS_VECTORS_STORE_METADATA_H_
#define CHUNKWISE_FORMATS_VECTORS_STORE_METADATA_H_

#include <array>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "chunkwise/core/geometry.h"
#include "chunkwise/core/result.h"

namespace chunkwise::formats::vectors {

// The geometry types are the library's (core/geometry.h).
using core::GeometryType;
using core::GeometryTypeName;
using core::LinkWidthOf;
using core::ParseGeometryType;

// How the −delta mirror of cross-level links is kept (docs/formats/vectors.md,
// "Pyramid").
enum class CrossLevelStorage { kExplicit, kImplicit };
std::string_view CrossLevelStorageName(CrossLevelStorage storage);
Result<CrossLevelStorage> ParseCrossLevelStorage(std::string_view name);

using Vec3 = std::array<double, 3>;

// The on-disk layouts chunkwise knows (docs/formats/vectors.md, "Layouts"):
// 0.8 keeps one single-chunk uint8 array per spatial chunk; 0.9 keeps one
// variable-length-bytes array per family over the chunk grid.
enum class LayoutVersion { k0_8, k0_9 };
// "0.8" or "0.9".
std::string_view LayoutVersionName(LayoutVersion layout);
// The layout of a store whose zv_version is `version` (any 0.8.x or 0.9.x);
// Unsupported naming `key` (the metadata's place) and the version otherwise.
Result<LayoutVersion> DetectLayoutVersion(std::string_view version, std::string_view key);
// "0.8" or "0.9" as a user spells it (also "0.8.0", "0.9.2"); InvalidArgument otherwise.
Result<LayoutVersion> ParseLayoutVersion(std::string_view name);

struct RootMetadata {
  std::string version;                         // zv_version, e.g. "0.8.0".
  LayoutVersion layout = LayoutVersion::k0_8;  // From the version.
  Vec3 chunk_shape{};                          // World units per chunk; every level uses it.
  Vec3 bounds_min{}, bounds_max{};             // Inclusive bounds of every level's vertices.
  GeometryType geometry_type = GeometryType::kPoints;
  std::string geometry_name;  // geometry_types[0] as read ("streamline", ...); empty when written.
  CrossLevelStorage cross_level_storage = CrossLevelStorage::kExplicit;
  Vec3 base_bin_shape{};  // Level n merges vertices in bins of base · 2^n.
  int num_levels = 1;     // Levels 0..num_levels-1 (multiscales datasets).
  // As read ("explicit", "implicit_sequential", ...; empty when absent). The
  // writer derives its own from the geometry type.
  std::string links_convention;
  std::vector<std::string> capabilities;

  bool HasCapability(std::string_view name) const;
};

// The root group's attributes.
nlohmann::json FormatRootAttributes(const RootMetadata& metadata);
// InvalidArgument naming `key` and the field for missing or malformed fields;
// Unsupported for a zv_version other than 0.8.x and 0.9.x or spatial dimensions other than 3.
Result<RootMetadata> ParseRootAttributes(const nlohmann::json& attributes, std::string_view key);

struct LevelMetadata {
  int level = 0;
  std::uint64_t vertex_count = 0;
  std::vector<std::string> arrays_present;  // Family directory names.
  std::optional<Vec3> bin_shape;            // Null at level 0.
  int parent_level = -1;                    // The finer level it was built from; -1 at 0.
  // How the level was made, when not the default ("none" at level 0,
  // "per_object" above): "manual" for levels a caller made (a mesh's
  // simplified levels). Written, not read.
  std::string coarsening_method;
};

nlohmann::json FormatLevelAttributes(const LevelMetadata& metadata);
Result<LevelMetadata> ParseLevelAttributes(const nlohmann::json& attributes, std::string_view key);

}  // namespace chunkwise::formats::vectors

#endif  // CHUNKWISE_FORMATS_VECTORS_STORE_METADATA_H_
