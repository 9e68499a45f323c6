// Reading a level back as a Geometry: whole, by bounding box, by object; and
// walking up and down the levels through the cross-level links.
//
// Spec: docs/formats/vectors.md, "Reading" and "Pyramid". Vertices
// come back in chunk-key order, then vi; a link comes back only when all its
// endpoints were selected, with its endpoint order (direction, winding)
// restored from perm_idx. Reads run in parallel over chunks on the store's pool.
#ifndef CHUNKWISE_FORMATS_VECTORS_GEOMETRY_READER_H_
#define CHUNKWISE_FORMATS_VECTORS_GEOMETRY_READER_H_

#include <optional>
#include <utility>
#include <vector>

#include "chunkwise/core/cancellation.h"
#include "chunkwise/core/progress.h"
#include "formats/vectors/cross_chunk_record.h"
#include "formats/vectors/geometry.h"
#include "formats/vectors/vector_store.h"

namespace chunkwise::formats::vectors {

// A box in world coordinates, inclusive unless exclusive_max.
struct BoundingBox {
  Vec3 min{};
  Vec3 max{};
  // With exclusive_max, [min, max) per axis: the region syntax a:b.
  bool exclusive_max = false;
  bool Contains(const Vec3f& position) const;
};

// Parses region text "x0:x1,y0:y1,z0:z1" in the store's axis order (x, y, z),
// bounds exclusive at the top, in world units (any real numbers). An open
// end ("a:", ":b", ":") or a missing trailing axis is unbounded. InvalidArgument
// naming the axis and its text when a bound is not a number, start > stop, a
// field has no ':' or there are more than three axes.
Result<BoundingBox> ParseRegionBox(std::string_view text);

struct ReadQuery {
  int level = 0;
  std::optional<BoundingBox> bbox;             // Only vertices inside it.
  std::optional<std::int64_t> object_id;       // Only vertices of this object.
  core::ProgressReporter* progress = nullptr;  // Counts chunks read; may be null.
  // Checked before each chunk; may be null. A cancelled read returns Cancelled.
  const core::Cancellation* cancellation = nullptr;
};

struct LevelGeometry {
  Geometry geometry;
  std::vector<Endpoint> identity;  // Per vertex: its (chunk, vi) at the level.
};

// NotFound for a level the store does not have; the level reader's errors
// (naming the path) for nodes that break the format.
Result<LevelGeometry> ReadGeometry(const VectorStore& store, const ReadQuery& query);

// A cross-level link: a vertex at the owning level and one at owning + delta.
struct CrossLevelLink {
  Endpoint owner;
  Endpoint target;
  bool operator==(const CrossLevelLink&) const = default;
};
// Up: the +1 links of `level` (each vertex to its parent at level + 1).
Result<std::vector<CrossLevelLink>> ReadParents(const VectorStore& store, int level);
// Down: the −1 links of `level` (each coarse vertex to its children at level − 1),
// read from the −1 families when stored (explicit), else derived from the +1
// families of level − 1 (implicit).
Result<std::vector<CrossLevelLink>> ReadChildren(const VectorStore& store, int level);

}  // namespace chunkwise::formats::vectors

#endif  // CHUNKWISE_FORMATS_VECTORS_GEOMETRY_READER_H_
