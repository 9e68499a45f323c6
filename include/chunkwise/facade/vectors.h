// zarr-vectors stores by URL (formats/vectors): write a geometry as level 0,
// build the pyramid, read by box, object and level, describe and validate.
// The geometry files themselves (CSV, .npy, SWC, PLY, OBJ) are io's
// (io/geometry_files.h).
#ifndef CHUNKWISE_FACADE_VECTORS_H_
#define CHUNKWISE_FACADE_VECTORS_H_

#include <array>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "chunkwise/facade/call_options.h"
#include "chunkwise/facade/context.h"
#include "chunkwise/formats/vectors/geometry.h"
#include "chunkwise/formats/vectors/geometry_reader.h"
#include "chunkwise/formats/vectors/paths.h"
#include "chunkwise/formats/vectors/pyramid.h"
#include "chunkwise/formats/vectors/store_info.h"
#include "chunkwise/formats/vectors/store_metadata.h"
#include "chunkwise/formats/vectors/validator.h"
#include "chunkwise/formats/vectors/writer.h"

namespace chunkwise {

using VectorGeometry = formats::vectors::Geometry;
using VectorGeometryType = formats::vectors::GeometryType;
using VectorsVertexAttribute = formats::vectors::VertexAttribute;
using VectorsLinkAttribute = formats::vectors::LinkAttribute;
using VectorsBox = formats::vectors::BoundingBox;
using VectorsCrossLevelStorage = formats::vectors::CrossLevelStorage;
using VectorsWriteSummary = formats::vectors::WriteSummary;
using VectorsPyramidLevel = formats::vectors::PyramidLevelSummary;
using VectorsLevelGeometry = formats::vectors::LevelGeometry;
using VectorsRootMetadata = formats::vectors::RootMetadata;
using VectorsLevelInfo = formats::vectors::LevelInfo;
using VectorsViolation = formats::vectors::Violation;
using VectorsLayout = formats::vectors::LayoutVersion;
// The format's names for these, and their parsers ("skeleton", "implicit",
// a link delta "+1", a violation kind, region text "x0:x1,y0:y1,z0:z1").
using formats::vectors::CrossLevelStorageName;
using formats::vectors::FormatDelta;
using formats::vectors::GeometryTypeName;
using formats::vectors::ParseCrossLevelStorage;
using formats::vectors::ParseGeometryType;
using formats::vectors::ParseLayoutVersion;
using formats::vectors::ParseRegionBox;
using formats::vectors::ViolationKindName;

struct VectorsWriteOptions {
  std::array<double, 3> chunk_shape{};  // x, y, z extents in world units; positive.
  bool overwrite = false;               // Replace a store already at the URL.
  // The on-disk layout (docs/formats/vectors.md): 0.8 (the default) for every
  // geometry; 0.9 for points without object ids only (else Unsupported).
  VectorsLayout layout = VectorsLayout::k0_8;
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
