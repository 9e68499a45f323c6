// Geometry: what one level of a zarr-vectors store holds, in memory, with
// vertices numbered globally (0..N-1) instead of by (chunk, vi).
//
// The writers take it, the readers return it, and the importers (SWC, PLY,
// OBJ, CSV/.npy) produce it. Links are `link_width` vertex indices each, in
// their meaning's order: skeleton edges [child, parent], polyline steps
// [from, to], triangles in winding order. A plain value type.
#ifndef CHUNKWISE_FORMATS_VECTORS_GEOMETRY_H_
#define CHUNKWISE_FORMATS_VECTORS_GEOMETRY_H_

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "chunkwise/core/result.h"
#include "chunkwise/formats/vectors/store_metadata.h"

namespace chunkwise::formats::vectors {

using Vec3f = std::array<float, 3>;

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
  // attribute name is empty, repeated or not a single path segment.
  Status Validate() const;
};

// True when `name` can be a path segment: non-empty, no '/', not "." or "..".
bool IsValidAttributeName(const std::string& name);

}  // namespace chunkwise::formats::vectors

#endif  // CHUNKWISE_FORMATS_VECTORS_GEOMETRY_H_
