// Writing a geometry into a zarr-vectors store: level 0 of a new store, or
// one level of an existing one (the pyramid builder writes coarser levels).
//
// Spec: docs/formats/vectors.md, "Tree" to "Geometry types". Per chunk the
// writer stores vertices (N × 3 float32), vertex_fragments (one fragment per
// object), vertex_attributes/object_id (int64) when the geometry has object
// ids, and each float32 vertex attribute; links go through link_writer.h at
// delta 0. Chunks are encoded and written in parallel on the store's pool.
#ifndef CHUNKWISE_FORMATS_VECTORS_WRITER_H_
#define CHUNKWISE_FORMATS_VECTORS_WRITER_H_

#include <memory>
#include <span>
#include <string>

#include "chunkwise/core/cancellation.h"
#include "chunkwise/core/progress.h"
#include "formats/vectors/chunk_placement.h"
#include "formats/vectors/geometry.h"
#include "formats/vectors/link_writer.h"
#include "formats/vectors/vector_store.h"

namespace chunkwise::formats::vectors {

struct WriteOptions {
  Vec3 chunk_shape{};  // Positive extents, world units.
  bool overwrite = false;
  VectorStoreOptions store_options;
  core::ProgressReporter* progress = nullptr;  // Counts vertices written; may be null.
  // Checked before each chunk; may be null. A cancelled write returns
  // Cancelled before the level's metadata is written, so no reader sees the level.
  const core::Cancellation* cancellation = nullptr;
  // The on-disk layout (docs/formats/vectors.md, "Layout 0.9"); 0.9 is written
  // for every geometry, with object ids in object_index/ and polyline and
  // skeleton links implicit in fragments (so their link attributes are Unsupported).
  LayoutVersion layout = LayoutVersion::k0_8;
};

struct WriteSummary {
  std::uint64_t vertices = 0;
  std::uint64_t chunks = 0;
  LinkWriteSummary links;
};

// Writes `geometry` (checked with Geometry::Validate first) as level `level`
// of `store`, and that level's group metadata. `placement` must come from
// PlaceVertices(geometry.positions, store chunk_shape).
Result<WriteSummary> WriteLevel(const VectorStore& store, int level, const Geometry& geometry,
                                const ChunkPlacement& placement, const LevelMetadata& extras,
                                core::ProgressReporter* progress = nullptr,
                                const core::Cancellation* cancellation = nullptr);

// Creates a store at `prefix` holding `geometry` as level 0 (see
// VectorStore::Create for the overwrite rule), published whole: the root
// zarr.json is written last (VectorStore::CreateUnpublished), so a write
// that stops half-way leaves no store a reader opens. InvalidArgument for a geometry
// that breaks its invariants or a non-positive chunk shape.
Result<WriteSummary> WriteGeometry(std::shared_ptr<store::Store> store, std::string prefix,
                                   const Geometry& geometry, const WriteOptions& options);

// As WriteGeometry, with `levels` as levels 0, 1, ... (1 to 30, one
// geometry type): coarser levels the caller made, a mesh's simplified levels
// say, each a whole geometry with its own links and no cross-level links.
// Their level metadata names parent_level k - 1, coarsening_method "manual"
// and bins of base_bin_shape · 2^k (the scale the root's multiscales gives
// level k); the root's bounds hold every level's vertices. The summary
// counts level 0; progress counts every level's vertices.
Result<WriteSummary> WriteGeometryLevels(std::shared_ptr<store::Store> store, std::string prefix,
                                         std::span<const Geometry> levels,
                                         const WriteOptions& options);

}  // namespace chunkwise::formats::vectors

#endif  // CHUNKWISE_FORMATS_VECTORS_WRITER_H_
