// zarr-vectors geometry by URL, one level whole in memory: the arrays the
// Python module's vectors.write hands over and vectors.read returns
// (formats/vectors). Named for that need; the CLI's vectors commands read
// and write files.
#ifndef CHUNKWISE_FACADE_GEOMETRY_ARRAYS_H_
#define CHUNKWISE_FACADE_GEOMETRY_ARRAYS_H_

#include <cstdint>
#include <optional>
#include <string_view>

#include "chunkwise/facade/call_options.h"
#include "chunkwise/facade/context.h"
#include "chunkwise/formats/vectors/geometry.h"
#include "chunkwise/formats/vectors/geometry_reader.h"
#include "chunkwise/formats/vectors/store_metadata.h"
#include "chunkwise/formats/vectors/writer.h"

namespace chunkwise {

using Geometry = formats::vectors::Geometry;
using GeometryType = formats::vectors::GeometryType;
using GeometryVertexAttribute = formats::vectors::VertexAttribute;
using GeometryLinkAttribute = formats::vectors::LinkAttribute;
using GeometryBox = formats::vectors::BoundingBox;
using GeometryWriteSummary = formats::vectors::WriteSummary;
// "point_cloud", "graph", … and back; InvalidArgument naming the text.
using formats::vectors::GeometryTypeName;
using formats::vectors::ParseGeometryType;
// "x0:x1,y0:y1,z0:z1" in world units, open ends unbounded (geometry_reader.h).
using formats::vectors::ParseRegionBox;

struct GeometryWriteOptions {
  formats::vectors::Vec3 chunk_shape{};  // x, y, z in world units; positive.
  bool overwrite = false;                // Replace a store already at the URL.
};

// Writes `geometry` as level 0 of a new zarr-vectors store at `url` (created
// if missing), encoding chunks on the call's pool. Progress counts vertices;
// a cancelled write writes no level metadata, so no reader sees the level.
// InvalidArgument naming the array for geometry that breaks its invariants,
// or naming the URL when a store is there and !overwrite.
Result<GeometryWriteSummary> WriteGeometryAt(const Context& context, std::string_view url,
                                             const Geometry& geometry,
                                             const GeometryWriteOptions& options,
                                             const CallOptions& call = {});

struct GeometryReadOptions {
  int level = 0;
  std::optional<GeometryBox> region;      // Only vertices inside it.
  std::optional<std::int64_t> object_id;  // Only vertices of this object.
};

// The selected vertices of a level of the store at `url`, and the links
// whose endpoints were all selected, in the store's vertex order (geometry_
// reader.h). Progress counts chunks read (no total); Cancelled between
// chunks. NotFound naming the URL for a level the store does not have.
Result<Geometry> ReadGeometryAt(const Context& context, std::string_view url,
                                const GeometryReadOptions& options, const CallOptions& call = {});

}  // namespace chunkwise

#endif  // CHUNKWISE_FACADE_GEOMETRY_ARRAYS_H_
