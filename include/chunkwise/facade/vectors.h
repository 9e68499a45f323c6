// zarr-vectors stores by URL: write a geometry (core/geometry.h) as level 0,
// build the pyramid, read by box, object and level, describe and validate.
// The geometry files themselves (CSV, .npy, SWC, PLY, OBJ) are io's
// (io/geometry_files.h).
#ifndef CHUNKWISE_FACADE_VECTORS_H_
#define CHUNKWISE_FACADE_VECTORS_H_

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "chunkwise/core/geometry.h"
#include "chunkwise/core/result.h"
#include "chunkwise/facade/call_options.h"
#include "chunkwise/facade/context.h"

namespace chunkwise {

using VectorGeometry = core::Geometry;
using VectorGeometryType = core::GeometryType;
using VectorsVertexAttribute = core::VertexAttribute;
using VectorsLinkAttribute = core::LinkAttribute;
using core::GeometryTypeName;
using core::ParseGeometryType;

// A box in world coordinates (x, y, z), inclusive unless exclusive_max
// ([min, max) per axis: the region syntax a:b).
struct VectorsBox {
  std::array<double, 3> min{};
  std::array<double, 3> max{};
  bool exclusive_max = false;
};

// Region text "x0:x1,y0:y1,z0:z1" in world units, exclusive at the top; an
// open end ("a:", ":b", ":") or a missing trailing axis is unbounded.
// InvalidArgument naming the axis and its text when a bound is not a number,
// start > stop, a field has no ':' or there are more than three axes.
Result<VectorsBox> ParseRegionBox(std::string_view text);

// How the -delta mirror of cross-level links is kept (docs/formats/vectors.md,
// "Pyramid"): "explicit" or "implicit".
enum class VectorsCrossLevelStorage { kExplicit, kImplicit };
std::string_view CrossLevelStorageName(VectorsCrossLevelStorage storage);
Result<VectorsCrossLevelStorage> ParseCrossLevelStorage(std::string_view name);

// The on-disk layouts (docs/formats/vectors.md, "Layouts").
enum class VectorsLayout { k0_8, k0_9 };
// "0.8" or "0.9" as a user spells it (also "0.8.0", "0.9.2"); InvalidArgument otherwise.
Result<VectorsLayout> ParseLayoutVersion(std::string_view name);

// A link family's delta as the store names it: "0", "+1", "-1".
std::string FormatDelta(int delta);

struct VectorsWriteSummary {
  std::uint64_t vertices = 0;
  std::uint64_t chunks = 0;
  struct Links {
    std::uint64_t chunk_links = 0;        // Rows under links/0/.
    std::uint64_t cross_chunk_links = 0;  // Records under cross_chunk_links/0/.
  } links;
};

// One coarser level BuildVectorsPyramid built.
struct VectorsPyramidLevel {
  int level = 0;
  std::uint64_t vertices = 0;
  std::uint64_t links = 0;
  std::uint64_t parent_links_in_chunk = 0;  // links/+1 rows at level - 1.
  std::uint64_t parent_links_across = 0;    // cross_chunk_links/+1 records at level - 1.
};

// A level read back: its geometry, vertices numbered 0..N-1 in chunk-key order.
struct VectorsLevelGeometry {
  VectorGeometry geometry;
};

// The root group's metadata (docs/formats/vectors.md, "Root and level metadata").
struct VectorsRootMetadata {
  std::string version;                               // zv_version, e.g. "0.8.0".
  VectorsLayout layout = VectorsLayout::k0_8;        // From the version.
  std::array<double, 3> chunk_shape{};               // World units per chunk; every level uses it.
  std::array<double, 3> bounds_min{}, bounds_max{};  // Inclusive bounds of every level's vertices.
  VectorGeometryType geometry_type = VectorGeometryType::kPoints;
  VectorsCrossLevelStorage cross_level_storage = VectorsCrossLevelStorage::kExplicit;
  std::array<double, 3> base_bin_shape{};  // Level n merges vertices in bins of base · 2^n.
  int num_levels = 1;                      // Levels 0..num_levels-1.
  std::string links_convention;            // As read; empty when absent.
  std::vector<std::string> capabilities;
};

// One level's metadata.
struct VectorsLevelMetadata {
  int level = 0;
  std::uint64_t vertex_count = 0;
  std::vector<std::string> arrays_present;         // Family directory names.
  std::optional<std::array<double, 3>> bin_shape;  // Null at level 0.
  int parent_level = -1;                           // The finer level it was built from; -1 at 0.
};

// What one level holds (`vectors info`).
struct VectorsLevelInfo {
  VectorsLevelMetadata metadata;
  std::uint64_t chunks = 0;      // Chunks with vertices.
  std::vector<int> link_deltas;  // Under links/.
  std::vector<std::pair<int, std::uint64_t>>
      cross_deltas;  // Under cross_chunk_links/: (delta, num_links).
};

// What ValidateVectors finds wrong (docs/formats/vectors.md, "Validation").
enum class VectorsViolationKind {
  kBadMetadata,              // L1: root/level/family metadata missing or malformed.
  kMissingLinks,             // L1: links/0 absent for a linked geometry.
  kMissingCapability,        // L1: delta != 0 without multiscale_links.
  kMalformedBlob,            // L1: a blob that does not decode, a bad key or delta segment.
  kBadCellKey,               // L3: cell key arity or order.
  kMissingChunk,             // L3: an endpoint's chunk is not in vertex_fragments.
  kVertexIndexOutOfRange,    // L3: vi >= the chunk's vertex count.
  kBadPermIdx,               // L3: perm_idx >= L!.
  kNumLinksMismatch,         // L3: family num_links differs from records or attributes.
  kAttributeLengthMismatch,  // L3: link attribute rows differ from link rows.
  kOrphanVertex,             // L4: a vertex with no link at delta > 0.
};
std::string_view ViolationKindName(VectorsViolationKind kind);

struct VectorsViolation {
  int level = 1;  // The validation level that found it (1, 3 or 4).
  VectorsViolationKind kind = VectorsViolationKind::kBadMetadata;
  std::string path;  // Relative to the store root, e.g. "0/links/0".
  std::string message;
};

struct VectorsWriteOptions {
  std::array<double, 3> chunk_shape{};  // x, y, z extents in world units; positive.
  bool overwrite = false;               // Replace a store already at the URL.
  // The on-disk layout (docs/formats/vectors.md): 0.9 (the default, zarr-vectors
  // 0.9.x) for every geometry but polylines and skeletons with link attributes
  // (Unsupported); 0.8 for any geometry
  // and for stores that `vectors pyramid` and `vectors validate` take.
  VectorsLayout layout = VectorsLayout::k0_9;
};

// Writes `geometry` as level 0 of a new store at `url` (created if missing),
// published whole: a write that stops half-way (an error, Cancelled) leaves no
// store a reader opens. InvalidArgument for a geometry that breaks its
// invariants, a non-positive chunk shape, or a store already there without
// options.overwrite. Progress counts vertices.
Result<VectorsWriteSummary> WriteVectors(const Context& context, std::string_view url,
                                         const VectorGeometry& geometry,
                                         const VectorsWriteOptions& options,
                                         const CallOptions& call = {});

// As WriteVectors, with `levels` as the store's levels 0, 1, ... (1 to 30,
// one geometry type): coarser levels the caller made (`chunkwise mesh
// --format vectors` writes a mesh's simplified levels so), each a whole
// geometry with its own links and no cross-level links (docs/formats/
// vectors-meshes.md). The summary counts level 0; progress counts every
// level's vertices. InvalidArgument also for no level, too many, or levels of
// different types.
Result<VectorsWriteSummary> WriteVectorLevels(const Context& context, std::string_view url,
                                              std::span<const VectorGeometry> levels,
                                              const VectorsWriteOptions& options,
                                              const CallOptions& call = {});

struct VectorsPyramidOptions {
  int levels = 2;  // Levels afterwards, level 0 included (>= 2).
  VectorsCrossLevelStorage storage = VectorsCrossLevelStorage::kExplicit;
};

// Replaces the store's coarser levels with options.levels - 1 new ones and
// their cross-level links. InvalidArgument for levels < 2. Progress counts levels.
Result<std::vector<VectorsPyramidLevel>> BuildVectorsPyramid(const Context& context,
                                                             std::string_view url,
                                                             const VectorsPyramidOptions& options,
                                                             const CallOptions& call = {});

struct VectorsReadOptions {
  int level = 0;
  std::optional<VectorsBox> box;          // Only vertices inside it.
  std::optional<std::int64_t> object_id;  // Only vertices of this object.
};

// The vertices and links the options select. NotFound for a level the store
// lacks; errors name the URL. Progress counts chunks; Cancelled between chunks.
Result<VectorsLevelGeometry> ReadVectors(const Context& context, std::string_view url,
                                         const VectorsReadOptions& options = {},
                                         const CallOptions& call = {});

// What a store holds: its root metadata and each level's counts.
struct VectorsInfo {
  VectorsRootMetadata root;
  std::vector<VectorsLevelInfo> levels;
};
Result<VectorsInfo> DescribeVectors(const Context& context, std::string_view url);

// The store's violations up to `validation_level` (1..4): values, not errors;
// an error only when the store cannot be read.
Result<std::vector<VectorsViolation>> ValidateVectors(const Context& context, std::string_view url,
                                                      int validation_level = 3);

}  // namespace chunkwise

#endif  // CHUNKWISE_FACADE_VECTORS_H_
