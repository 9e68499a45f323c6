#include "formats/vectors/writer.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <span>
#include <unordered_map>

#include "formats/vectors/fragment_index.h"
#include "formats/vectors/layout.h"
#include "formats/vectors/number_text.h"
#include "formats/vectors/object_index.h"
#include "formats/vectors/write_checks.h"

namespace chunkwise::formats::vectors {
namespace {

// As BuildPyramid allows.
constexpr std::size_t kMaxLevels = 30;

// Which vertices continue into the next one (v, v + 1) without a stored link
// in layout 0.9: a polyline step [v, v + 1] or a skeleton edge [v + 1, v]
// (docs/formats/vectors.md, "Layout 0.9"). Empty for the other types, whose
// links are all stored.
std::vector<bool> ImplicitSteps(const Geometry& geometry) {
  const bool polyline = geometry.type == GeometryType::kPolyline;
  if (!polyline && geometry.type != GeometryType::kSkeleton) return {};
  std::vector<bool> steps(geometry.positions.size(), false);
  for (std::size_t at = 0; at + 1 < geometry.links.size(); at += 2) {
    const std::int64_t from = polyline ? geometry.links[at] : geometry.links[at + 1];
    const std::int64_t to = polyline ? geometry.links[at + 1] : geometry.links[at];
    if (to == from + 1) steps[from] = true;
  }
  return steps;
}

std::int64_t ObjectOf(const Geometry& geometry, std::int64_t vertex) {
  return geometry.object_ids.empty() ? 0 : geometry.object_ids[vertex];
}

// The fragments of a chunk as lists of its rows. With `steps` (layout 0.9
// polylines and skeletons): each run of consecutive vertices of one object
// joined by implicit steps, in vertex order. Otherwise one fragment per object
// in the chunk, in order of first appearance.
std::vector<std::vector<std::int64_t>> FragmentRows(const Geometry& geometry,
                                                    const std::vector<std::int64_t>& members,
                                                    const std::vector<bool>& steps) {
  std::vector<std::vector<std::int64_t>> rows;
  if (!steps.empty()) {
    for (std::size_t vi = 0; vi < members.size(); ++vi) {
      const std::int64_t v = members[vi];
      const bool joined = vi > 0 && members[vi - 1] + 1 == v && steps[v - 1] &&
                          ObjectOf(geometry, v - 1) == ObjectOf(geometry, v);
      if (!joined) rows.emplace_back();
      rows.back().push_back(static_cast<std::int64_t>(vi));
    }
    return rows;
  }
  std::unordered_map<std::int64_t, std::size_t> slot_of;
  for (std::size_t vi = 0; vi < members.size(); ++vi) {
    auto [it, inserted] = slot_of.try_emplace(ObjectOf(geometry, members[vi]), rows.size());
    if (inserted) rows.emplace_back();
    rows[it->second].push_back(static_cast<std::int64_t>(vi));
  }
  return rows;
}

Bytes EncodeFragments(const std::vector<std::vector<std::int64_t>>& rows) {
  std::vector<Fragment> fragments;
  for (const auto& fragment_rows : rows) fragments.push_back(MakeFragment(fragment_rows));
  return EncodeFragmentIndex(fragments);
}

template <typename Value, typename Get>
Bytes Rows(const std::vector<std::int64_t>& members, Get get) {
  Bytes bytes(members.size() * sizeof(Value));
  for (std::size_t i = 0; i < members.size(); ++i) {
    StoreLittleEndian(get(members[i]), bytes.data() + i * sizeof(Value));
  }
  return bytes;
}

// `fragments`: the chunk's fragments (FragmentRows), rows of `members`.
Status WriteChunk(const VectorStore& store, int level, const Geometry& geometry,
                  const ChunkCoord& chunk, const std::vector<std::int64_t>& members,
                  const std::vector<std::vector<std::int64_t>>& fragments) {
  const bool v09 = store.metadata().layout == LayoutVersion::k0_9;
  Bytes vertices(members.size() * 12);
  for (std::size_t i = 0; i < members.size(); ++i) {
    for (int d = 0; d < 3; ++d) {
      StoreLittleEndian(std::bit_cast<std::uint32_t>(geometry.positions[members[i]][d]),
                        vertices.data() + 12 * i + 4 * d);
    }
  }
  CHUNKWISE_RETURN_IF_ERROR(
      store.WriteBlob(layout::ChunkBlobPath(level, layout::kVerticesDir, chunk), vertices));
  CHUNKWISE_RETURN_IF_ERROR(store.WriteBlob(
      layout::ChunkBlobPath(level, layout::kFragmentsDir, chunk), EncodeFragments(fragments)));
  if (!geometry.object_ids.empty() && !v09) {  // 0.9 keeps them in object_index/.
    const Bytes ids = Rows<std::uint64_t>(members, [&](std::int64_t v) {
      return static_cast<std::uint64_t>(geometry.object_ids[v]);
    });
    CHUNKWISE_RETURN_IF_ERROR(store.WriteBlob(
        layout::VertexAttributeBlobPath(level, layout::kObjectIdAttribute, chunk), ids));
  }
  for (const VertexAttribute& attribute : geometry.vertex_attributes) {
    const Bytes values = Rows<std::uint32_t>(
        members, [&](std::int64_t v) { return std::bit_cast<std::uint32_t>(attribute.values[v]); });
    CHUNKWISE_RETURN_IF_ERROR(
        store.WriteBlob(layout::VertexAttributeBlobPath(level, attribute.name, chunk), values));
  }
  return Status::Ok();
}

Status WriteVertexFamilies(const VectorStore& store, int level, const Geometry& geometry) {
  CHUNKWISE_RETURN_IF_ERROR(store.WriteGroup(
      layout::FamilyPath(level, layout::kVerticesDir),
      {{"zv_array", layout::kVerticesArray}, {"dtype", "float32"}, {"encoding", "raw"}}));
  CHUNKWISE_RETURN_IF_ERROR(store.WriteGroup(
      layout::FamilyPath(level, layout::kFragmentsDir),
      store.metadata().layout == LayoutVersion::k0_9
          ? nlohmann::json{{"zv_array", layout::kFragmentsArray}, {"encoding", "fragment_index_v1"}}
          : nlohmann::json{
                {"zv_array", layout::kFragmentsArray}, {"format", "ZVFG"}, {"version", 1}}));
  if (!geometry.object_ids.empty() && store.metadata().layout == LayoutVersion::k0_8) {
    CHUNKWISE_RETURN_IF_ERROR(
        store.WriteGroup(layout::VertexAttributePath(level, layout::kObjectIdAttribute),
                         {{"zv_array", layout::kAttributeArray},
                          {"name", layout::kObjectIdAttribute},
                          {"dtype", "int64"}}));
  }
  for (const VertexAttribute& attribute : geometry.vertex_attributes) {
    CHUNKWISE_RETURN_IF_ERROR(store.WriteGroup(
        layout::VertexAttributePath(level, attribute.name),
        {{"zv_array", layout::kAttributeArray}, {"name", attribute.name}, {"dtype", "float32"}}));
  }
  return Status::Ok();
}

// The links to store: all but those `steps` leave implicit (each implicit step once).
LinkRecords LinksOf(const Geometry& geometry, const ChunkPlacement& placement,
                    const std::vector<bool>& steps,
                    const std::vector<std::vector<std::vector<std::int64_t>>>& fragments) {
  LinkRecords records;
  records.link_width = geometry.link_width();
  records.attributes = geometry.link_attributes;
  // A step is implicit when both ends are in one fragment, one after the other.
  std::vector<bool> implied(steps.size(), false);
  for (std::size_t c = 0; c < fragments.size() && !steps.empty(); ++c) {
    for (const auto& rows : fragments[c]) {
      for (std::size_t i = 0; i + 1 < rows.size(); ++i)
        implied[placement.members[c][rows[i]]] = true;
    }
  }
  const bool polyline = geometry.type == GeometryType::kPolyline;
  const std::size_t width = records.link_width;
  for (std::size_t at = 0; at + width <= geometry.links.size(); at += width) {
    if (!steps.empty()) {
      const std::int64_t from = polyline ? geometry.links[at] : geometry.links[at + 1];
      const std::int64_t to = polyline ? geometry.links[at + 1] : geometry.links[at];
      if (to == from + 1 && implied[from]) {
        implied[from] = false;  // A repeated step is stored.
        continue;
      }
    }
    for (std::size_t e = 0; e < width; ++e)
      records.endpoints.push_back(placement.EndpointOf(geometry.links[at + e]));
  }
  return records;
}

// Layout 0.9: each object's fragments, in the order of their first vertex
// (a polyline's walk order), by ascending object id.
Status WriteObjects(const VectorStore& store, int level, const Geometry& geometry,
                    const ChunkPlacement& placement,
                    const std::vector<std::vector<std::vector<std::int64_t>>>& fragments) {
  struct Piece {
    std::int64_t object, first_vertex;
    std::size_t chunk, fragment;
    auto operator<=>(const Piece&) const = default;
  };
  std::vector<Piece> pieces;
  for (std::size_t c = 0; c < fragments.size(); ++c) {
    for (std::size_t f = 0; f < fragments[c].size(); ++f) {
      const std::int64_t first = placement.members[c][fragments[c][f].front()];
      pieces.push_back({ObjectOf(geometry, first), first, c, f});
    }
  }
  std::sort(pieces.begin(), pieces.end());
  std::vector<ObjectManifest> objects;
  for (const Piece& piece : pieces) {
    if (objects.empty() || objects.back().id != piece.object) objects.push_back({piece.object, {}});
    objects.back().blocks.push_back(
        {placement.chunks[piece.chunk], {{static_cast<std::int64_t>(piece.fragment), 1}}});
  }
  return WriteObjectIndex(store, level, objects);
}

// Layout 0.9 readers take a polyline as its fragments in manifest order,
// which the writer takes from vertex order (WriteObjects). So before a
// polyline is written in 0.9 its vertices are renumbered in walk order: each
// line's vertices consecutive, from its first to its last (a store read back
// numbers vertices chunk by chunk, which breaks that order). Lines keep the
// order of their first vertices; a step that would give a vertex a second
// successor or predecessor, or join two objects, stays an ordinary link.
Geometry InWalkOrder(const Geometry& geometry) {
  const std::size_t n = geometry.positions.size();
  std::vector<std::int64_t> next(n, -1);
  std::vector<bool> has_previous(n, false);
  for (std::size_t at = 0; at + 1 < geometry.links.size(); at += 2) {
    const std::int64_t from = geometry.links[at], to = geometry.links[at + 1];
    if (from == to || next[from] >= 0 || has_previous[to] ||
        ObjectOf(geometry, from) != ObjectOf(geometry, to)) {
      continue;
    }
    next[from] = to;
    has_previous[to] = true;
  }
  std::vector<std::int64_t> order;
  order.reserve(n);
  std::vector<bool> placed(n, false);
  const auto walk = [&](std::int64_t v) {
    for (; v >= 0 && !placed[v]; v = next[v]) {
      placed[v] = true;
      order.push_back(v);
    }
  };
  for (std::size_t v = 0; v < n; ++v) {
    if (!has_previous[v]) walk(static_cast<std::int64_t>(v));
  }
  for (std::size_t v = 0; v < n; ++v) walk(static_cast<std::int64_t>(v));  // Closed lines.
  std::vector<std::int64_t> renumbered(n);
  for (std::size_t i = 0; i < n; ++i) renumbered[order[i]] = static_cast<std::int64_t>(i);
  Geometry out;
  out.type = geometry.type;
  out.link_attributes = geometry.link_attributes;
  for (const std::int64_t v : order) {
    out.positions.push_back(geometry.positions[v]);
    if (!geometry.object_ids.empty()) out.object_ids.push_back(geometry.object_ids[v]);
  }
  for (const VertexAttribute& attribute : geometry.vertex_attributes) {
    VertexAttribute& moved = out.vertex_attributes.emplace_back();
    moved.name = attribute.name;
    for (const std::int64_t v : order) moved.values.push_back(attribute.values[v]);
  }
  for (const std::int64_t v : geometry.links) out.links.push_back(renumbered[v]);
  return out;
}

// What layout 0.9 cannot hold, refused before anything is written.
Status CheckWritableAs09(const Geometry& geometry) {
  const bool implicit =
      geometry.type == GeometryType::kPolyline || geometry.type == GeometryType::kSkeleton;
  if (implicit && !geometry.link_attributes.empty()) {
    return Status::Unsupported(
        "zarr-vectors layout 0.9 keeps no attributes for the links of a " +
        std::string(GeometryTypeName(geometry.type)) +
        " it leaves implicit; this one has link attributes (use layout 0.8)");
  }
  if (geometry.type != GeometryType::kSkeleton) return Status::Ok();
  // A 0.9 skeleton vertex has one parent: the one before it or a stored one.
  std::vector<bool> has_parent(geometry.positions.size(), false);
  for (std::size_t at = 0; at + 1 < geometry.links.size(); at += 2) {
    const std::int64_t child = geometry.links[at];
    if (has_parent[child]) {
      return Status::Unsupported("skeleton vertex " + std::to_string(child) +
                                 " has more than one parent, which zarr-vectors layout 0.9 "
                                 "cannot store (use layout 0.8)");
    }
    has_parent[child] = true;
  }
  return Status::Ok();
}

}  // namespace

Result<WriteSummary> WriteLevel(const VectorStore& store, int level, const Geometry& geometry,
                                const ChunkPlacement& placement, const LevelMetadata& extras,
                                core::ProgressReporter* progress,
                                const core::Cancellation* cancellation) {
  CHUNKWISE_RETURN_IF_ERROR(geometry.Validate());
  CHUNKWISE_RETURN_IF_ERROR(WriteVertexFamilies(store, level, geometry));
  const bool v09 = store.metadata().layout == LayoutVersion::k0_9;
  const std::vector<bool> steps = v09 ? ImplicitSteps(geometry) : std::vector<bool>();
  std::vector<std::vector<std::vector<std::int64_t>>> fragments(placement.chunks.size());
  CHUNKWISE_RETURN_IF_ERROR(store.pool().ParallelFor(placement.chunks.size(), [&](std::size_t c) {
    if (cancellation != nullptr) {
      CHUNKWISE_RETURN_IF_ERROR(cancellation->Check("writing level " + std::to_string(level)));
    }
    fragments[c] = FragmentRows(geometry, placement.members[c], steps);
    Status status =
        WriteChunk(store, level, geometry, placement.chunks[c], placement.members[c], fragments[c]);
    if (progress != nullptr) progress->Add(placement.members[c].size());
    return status;
  }));
  WriteSummary summary{geometry.positions.size(), placement.chunks.size(), {}};
  LevelMetadata metadata = extras;
  metadata.level = level;
  metadata.vertex_count = geometry.positions.size();
  metadata.arrays_present = {std::string(layout::kVerticesDir), std::string(layout::kFragmentsDir)};
  if ((!geometry.object_ids.empty() && !v09) || !geometry.vertex_attributes.empty()) {
    metadata.arrays_present.emplace_back(layout::kVertexAttributesDir);
  }
  // 0.9 polylines and skeletons always name their objects (zarr-vectors
  // reads a polyline through its manifest); all are object 0 without ids.
  if (v09 && (!geometry.object_ids.empty() || !steps.empty()) && !geometry.positions.empty()) {
    CHUNKWISE_RETURN_IF_ERROR(WriteObjects(store, level, geometry, placement, fragments));
    metadata.arrays_present.emplace_back(v0_9::kObjectIndexDir);
  }
  if (geometry.link_width() > 0) {
    CHUNKWISE_ASSIGN_OR_RETURN(
        summary.links,
        WriteLinkRecords(store, level, 0, LinksOf(geometry, placement, steps, fragments)));
    metadata.arrays_present.emplace_back(layout::kLinksDir);
    // 0.9 keeps cross-chunk links under links/ too.
    if (summary.links.cross_chunk_links > 0 && store.metadata().layout == LayoutVersion::k0_8)
      metadata.arrays_present.emplace_back(layout::kCrossChunkLinksDir);
    if (!geometry.link_attributes.empty()) {
      metadata.arrays_present.emplace_back(layout::kLinkAttributesDir);
      if (summary.links.cross_chunk_links > 0 && !v09) {
        metadata.arrays_present.emplace_back(layout::kCrossChunkLinkAttributesDir);
      }
    }
  }
  CHUNKWISE_RETURN_IF_ERROR(store.WriteLevel(metadata));
  return summary;
}

Status CheckChunkShape(const Vec3& chunk_shape) {
  for (int d = 0; d < 3; ++d) {
    if (!std::isfinite(chunk_shape[d]) || !(chunk_shape[d] > 0)) {
      return Status::InvalidArgument("chunk_shape[" + std::to_string(d) + "] is " +
                                     NumberText(chunk_shape[d]) +
                                     ": chunk shape extents must be finite and positive");
    }
  }
  return Status::Ok();
}

Result<WriteSummary> WriteGeometryLevels(std::shared_ptr<store::Store> store, std::string prefix,
                                         std::span<const Geometry> levels,
                                         const WriteOptions& options) {
  CHUNKWISE_RETURN_IF_ERROR(CheckChunkShape(options.chunk_shape));
  if (levels.empty() || levels.size() > kMaxLevels) {
    return Status::InvalidArgument("a store has 1 to " + std::to_string(kMaxLevels) +
                                   " levels, not " + std::to_string(levels.size()));
  }
  for (std::size_t level = 0; level < levels.size(); ++level) {
    const Geometry& geometry = levels[level];
    CHUNKWISE_RETURN_IF_ERROR(geometry.Validate());
    if (geometry.type != levels[0].type) {
      return Status::InvalidArgument(
          "level " + std::to_string(level) + " is a " +
          std::string(GeometryTypeName(geometry.type)) + " and level 0 a " +
          std::string(GeometryTypeName(levels[0].type)) + ": a store holds one geometry type");
    }
    for (const Vec3f& position : geometry.positions) {
      for (int d = 0; d < 3; ++d) {
        if (std::abs(position[d] / options.chunk_shape[d]) >= kMaxChunkIndex) {
          return Status::InvalidArgument("a vertex at " + std::to_string(position[d]) +
                                         " is more than 1e15 chunks from the origin");
        }
      }
    }
  }
  RootMetadata metadata;
  metadata.version = std::string(layout::kVersion);
  if (options.layout == LayoutVersion::k0_9) {
    for (const Geometry& geometry : levels) CHUNKWISE_RETURN_IF_ERROR(CheckWritableAs09(geometry));
    metadata.version = std::string(v0_9::kVersion);
    metadata.layout = LayoutVersion::k0_9;
  }
  metadata.chunk_shape = options.chunk_shape;
  metadata.geometry_type = levels[0].type;
  metadata.num_levels = static_cast<int>(levels.size());
  metadata.base_bin_shape = options.chunk_shape;
  for (int d = 0; d < 3; ++d) metadata.base_bin_shape[d] /= 4;  // Level n bins: chunk · 2^n / 4.
  if (metadata.layout == LayoutVersion::k0_8)
    metadata.capabilities = {std::string(layout::kCapabilityFragmentIndex)};
  // Bounds over every level: a coarser level's vertices may lie outside
  // level 0's box, and layout 0.9 places every level's cells from its minimum.
  bool any = false;
  for (const Geometry& geometry : levels) any = any || !geometry.positions.empty();
  for (int d = 0; d < 3; ++d) {
    metadata.bounds_min[d] = any ? std::numeric_limits<double>::max() : 0;
    metadata.bounds_max[d] = any ? std::numeric_limits<double>::lowest() : 0;
  }
  for (const Geometry& geometry : levels) {
    for (const Vec3f& position : geometry.positions) {
      for (int d = 0; d < 3; ++d) {
        metadata.bounds_min[d] = std::min<double>(metadata.bounds_min[d], position[d]);
        metadata.bounds_max[d] = std::max<double>(metadata.bounds_max[d], position[d]);
      }
    }
  }
  const Vec3 base_bin_shape = metadata.base_bin_shape;
  // Every array and the levels' groups first, the root last: a write killed,
  // failing or cancelled half-way leaves no store that any reader opens.
  CHUNKWISE_ASSIGN_OR_RETURN(VectorStore vectors, VectorStore::CreateUnpublished(
                                                      std::move(store), std::move(prefix), metadata,
                                                      options.overwrite, options.store_options));
  WriteSummary summary;
  for (std::size_t level = 0; level < levels.size(); ++level) {
    const Geometry& geometry = levels[level];
    const bool walk =
        metadata.layout == LayoutVersion::k0_9 && geometry.type == GeometryType::kPolyline;
    const Geometry walked = walk ? InWalkOrder(geometry) : Geometry();
    const Geometry& written = walk ? walked : geometry;
    const ChunkPlacement placement = PlaceVertices(written.positions, options.chunk_shape);
    LevelMetadata extras;
    if (level > 0) {
      // Levels the caller made: bins only name the level's scale.
      Vec3 bin_shape = base_bin_shape;
      for (double& extent : bin_shape) extent = std::ldexp(extent, static_cast<int>(level));
      extras.bin_shape = bin_shape;
      extras.parent_level = static_cast<int>(level) - 1;
      extras.coarsening_method = "manual";
    }
    CHUNKWISE_ASSIGN_OR_RETURN(const WriteSummary level_summary,
                               WriteLevel(vectors, static_cast<int>(level), written, placement,
                                          extras, options.progress, options.cancellation));
    if (level == 0) summary = level_summary;
  }
  CHUNKWISE_RETURN_IF_ERROR(vectors.Publish());
  return summary;
}

Result<WriteSummary> WriteGeometry(std::shared_ptr<store::Store> store, std::string prefix,
                                   const Geometry& geometry, const WriteOptions& options) {
  return WriteGeometryLevels(std::move(store), std::move(prefix), std::span(&geometry, 1), options);
}

}  // namespace chunkwise::formats::vectors
