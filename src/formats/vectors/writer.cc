#include "formats/vectors/writer.h"

#include <bit>
#include <cmath>
#include <limits>
#include <unordered_map>

#include "formats/vectors/fragment_index.h"
#include "formats/vectors/layout.h"
#include "formats/vectors/number_text.h"
#include "formats/vectors/write_checks.h"

namespace chunkwise::formats::vectors {
namespace {

// One fragment per object in the chunk, in order of first appearance.
Bytes FragmentsOf(const Geometry& geometry, const std::vector<std::int64_t>& members) {
  if (geometry.object_ids.empty()) {
    const Fragment whole{true, 0, static_cast<std::int64_t>(members.size()), {}};
    return EncodeFragmentIndex(std::span(&whole, 1));
  }
  std::unordered_map<std::int64_t, std::size_t> slot_of;
  std::vector<std::vector<std::int64_t>> rows;
  for (std::size_t vi = 0; vi < members.size(); ++vi) {
    auto [it, inserted] = slot_of.try_emplace(geometry.object_ids[members[vi]], rows.size());
    if (inserted) rows.emplace_back();
    rows[it->second].push_back(static_cast<std::int64_t>(vi));
  }
  std::vector<Fragment> fragments;
  for (const auto& object_rows : rows) fragments.push_back(MakeFragment(object_rows));
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

Status WriteChunk(const VectorStore& store, int level, const Geometry& geometry,
                  const ChunkCoord& chunk, const std::vector<std::int64_t>& members) {
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
      layout::ChunkBlobPath(level, layout::kFragmentsDir, chunk), FragmentsOf(geometry, members)));
  if (!geometry.object_ids.empty()) {
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
  if (!geometry.object_ids.empty()) {
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

LinkRecords LinksOf(const Geometry& geometry, const ChunkPlacement& placement) {
  LinkRecords records;
  records.link_width = geometry.link_width();
  records.endpoints.reserve(geometry.links.size());
  for (const std::int64_t vertex : geometry.links)
    records.endpoints.push_back(placement.EndpointOf(vertex));
  records.attributes = geometry.link_attributes;
  return records;
}

}  // namespace

Result<WriteSummary> WriteLevel(const VectorStore& store, int level, const Geometry& geometry,
                                const ChunkPlacement& placement, const LevelMetadata& extras,
                                core::ProgressReporter* progress,
                                const core::Cancellation* cancellation) {
  CHUNKWISE_RETURN_IF_ERROR(geometry.Validate());
  CHUNKWISE_RETURN_IF_ERROR(WriteVertexFamilies(store, level, geometry));
  CHUNKWISE_RETURN_IF_ERROR(store.pool().ParallelFor(placement.chunks.size(), [&](std::size_t c) {
    if (cancellation != nullptr) {
      CHUNKWISE_RETURN_IF_ERROR(cancellation->Check("writing level " + std::to_string(level)));
    }
    Status status = WriteChunk(store, level, geometry, placement.chunks[c], placement.members[c]);
    if (progress != nullptr) progress->Add(placement.members[c].size());
    return status;
  }));
  WriteSummary summary{geometry.positions.size(), placement.chunks.size(), {}};
  LevelMetadata metadata = extras;
  metadata.level = level;
  metadata.vertex_count = geometry.positions.size();
  metadata.arrays_present = {std::string(layout::kVerticesDir), std::string(layout::kFragmentsDir)};
  if (!geometry.object_ids.empty() || !geometry.vertex_attributes.empty()) {
    metadata.arrays_present.emplace_back(layout::kVertexAttributesDir);
  }
  if (geometry.link_width() > 0) {
    CHUNKWISE_ASSIGN_OR_RETURN(summary.links,
                               WriteLinkRecords(store, level, 0, LinksOf(geometry, placement)));
    metadata.arrays_present.emplace_back(layout::kLinksDir);
    // 0.9 keeps cross-chunk links under links/ too.
    if (summary.links.cross_chunk_links > 0 && store.metadata().layout == LayoutVersion::k0_8)
      metadata.arrays_present.emplace_back(layout::kCrossChunkLinksDir);
    if (!geometry.link_attributes.empty()) {
      metadata.arrays_present.emplace_back(layout::kLinkAttributesDir);
      if (summary.links.cross_chunk_links > 0) {
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

Result<WriteSummary> WriteGeometry(std::shared_ptr<store::Store> store, std::string prefix,
                                   const Geometry& geometry, const WriteOptions& options) {
  CHUNKWISE_RETURN_IF_ERROR(CheckChunkShape(options.chunk_shape));
  CHUNKWISE_RETURN_IF_ERROR(geometry.Validate());
  for (const Vec3f& position : geometry.positions) {
    for (int d = 0; d < 3; ++d) {
      if (std::abs(position[d] / options.chunk_shape[d]) >= kMaxChunkIndex) {
        return Status::InvalidArgument("a vertex at " + std::to_string(position[d]) +
                                       " is more than 1e15 chunks from the origin");
      }
    }
  }
  RootMetadata metadata;
  metadata.version = std::string(layout::kVersion);
  if (options.layout == LayoutVersion::k0_9) {
    // 0.9's implicit links (polylines, skeletons), its link attributes and its
    // object index are not written yet.
    const bool explicit_links = geometry.type == GeometryType::kPoints ||
                                geometry.type == GeometryType::kGraph ||
                                geometry.type == GeometryType::kMesh;
    if (!explicit_links || !geometry.object_ids.empty() || !geometry.link_attributes.empty()) {
      return Status::Unsupported(
          "writing zarr-vectors layout 0.9 is done for points, graphs and meshes without object "
          "ids or link attributes only; this is " +
          std::string(GeometryTypeName(geometry.type)) +
          (geometry.object_ids.empty() ? "" : " with object ids") +
          (geometry.link_attributes.empty() ? "" : " with link attributes") + " (use layout 0.8)");
    }
    metadata.version = std::string(v0_9::kVersion);
    metadata.layout = LayoutVersion::k0_9;
  }
  metadata.chunk_shape = options.chunk_shape;
  metadata.geometry_type = geometry.type;
  metadata.base_bin_shape = options.chunk_shape;
  for (int d = 0; d < 3; ++d) metadata.base_bin_shape[d] /= 4;  // Level n bins: chunk · 2^n / 4.
  if (metadata.layout == LayoutVersion::k0_8)
    metadata.capabilities = {std::string(layout::kCapabilityFragmentIndex)};
  for (int d = 0; d < 3; ++d) {
    metadata.bounds_min[d] = geometry.positions.empty() ? 0 : std::numeric_limits<double>::max();
    metadata.bounds_max[d] = geometry.positions.empty() ? 0 : std::numeric_limits<double>::lowest();
  }
  for (const Vec3f& position : geometry.positions) {
    for (int d = 0; d < 3; ++d) {
      metadata.bounds_min[d] = std::min<double>(metadata.bounds_min[d], position[d]);
      metadata.bounds_max[d] = std::max<double>(metadata.bounds_max[d], position[d]);
    }
  }
  // Every array and the level's group first, the root last: a write killed,
  // failing or cancelled half-way leaves no store that any reader opens.
  CHUNKWISE_ASSIGN_OR_RETURN(VectorStore vectors, VectorStore::CreateUnpublished(
                                                      std::move(store), std::move(prefix), metadata,
                                                      options.overwrite, options.store_options));
  const ChunkPlacement placement = PlaceVertices(geometry.positions, options.chunk_shape);
  CHUNKWISE_ASSIGN_OR_RETURN(WriteSummary summary,
                             WriteLevel(vectors, 0, geometry, placement, LevelMetadata{},
                                        options.progress, options.cancellation));
  CHUNKWISE_RETURN_IF_ERROR(vectors.Publish());
  return summary;
}

}  // namespace chunkwise::formats::vectors
