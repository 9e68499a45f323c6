// Geometry: vertices, their links and attributes in memory, the one form
// every vector source and sink here takes (a zarr-vectors level, SWC, PLY,
// OBJ and CSV/.npy tables), with vertices numbered 0..N-1.
//
// Links are `link_width` vertex indices each, in their meaning's order:
// skeleton edges [child, parent], polyline steps [from, to], triangles in
// winding order. A plain value type; docs/formats/vectors.md, "Geometry
// types", has the types' names.
#ifndef CHUNKWISE_CORE_GEOMETRY_H_
#define CHUNKWISE_CORE_GEOMETRY_H_

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "chunkwise/core/result.h"

namespace chunkwise::core {

using Vec3f = std::array<float, 3>;

enum class GeometryType { kPoints, kGraph, kPolyline, kSkeleton, kMesh };

// The zarr-vectors names: "point_cloud", "graph", "polyline", "skeleton", "mesh".
std::string_view GeometryTypeName(GeometryType type);
// Accepts those names and the CLI's ("points"); InvalidArgument otherwise.
Result<GeometryType> ParseGeometryType(std::string_view name);
// Endpoints per link: 0 for points, 3 for (triangle) meshes, else 2.
int LinkWidthOf(GeometryType type);

// One float32 value per vertex.
struct VertexAttribute {
  std::string name;
  std::vector<float> values;
  bool operator==(const VertexAttribute&) const = default;
};

// `channels` float32 values per link, row-major.
struct LinkAttribute {
  std::string name;
  int channels = 1;
  std::vector<float> values;
  bool operator==(const LinkAttribute&) const = default;
};

struct Geometry {
  GeometryType type = GeometryType::kPoints;
  std::vector<Vec3f> positions;
  std::vector<std::int64_t> object_ids;  // Empty, or one per vertex.
  std::vector<VertexAttribute> vertex_attributes;
  std::vector<std::int64_t> links;  // link_width() indices per link.
  std::vector<LinkAttribute> link_attributes;

  int link_width() const { return LinkWidthOf(type); }
  std::size_t num_links() const;
  // The length invariants writers enforce: InvalidArgument naming the array
  // when links are not whole rows, an index is out of range, positions are
  // not finite, object ids or a vertex attribute do not have one value per
  // vertex, a link attribute does not have channels values per link, or an
  // attribute name is empty, repeated ("object_id" included) or not a single
  // path segment.
  Status Validate() const;
};

// True when `name` can be a path segment: non-empty, no '/', not "." or "..".
bool IsValidAttributeName(const std::string& name);

}  // namespace chunkwise::core

#endif  // CHUNKWISE_CORE_GEOMETRY_H_
