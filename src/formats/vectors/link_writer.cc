#include "formats/vectors/link_writer.h"

#include <algorithm>
#include <bit>
#include <map>

#include "formats/vectors/fragment_index.h"
#include "formats/vectors/layout.h"
#include "formats/vectors/lehmer_permutation.h"
#include "formats/vectors/ragged_blob.h"
#include "formats/zarr/array.h"

namespace chunkwise::formats::vectors {
namespace {

// Records of one chunk (aligned) or one cell (cross-chunk), by record number.
struct Partition {
  std::map<ChunkCoord, std::vector<std::size_t>> chunk_rows;
  std::map<std::string, std::vector<std::size_t>> cell_records;  // ASCII order of cell key.
};

Partition PartitionRecords(const LinkRecords& records) {
  Partition partition;
  const int width = records.link_width;
  for (std::size_t r = 0; r < records.size(); ++r) {
    const Endpoint* endpoints = &records.endpoints[r * width];
    bool aligned = true;
    for (int i = 1; i < width; ++i) aligned = aligned && endpoints[i].chunk == endpoints[0].chunk;
    if (aligned) {
      partition.chunk_rows[endpoints[0].chunk].push_back(r);
    } else {
      const CanonicalRecord canonical = Canonicalize(std::span(endpoints, width));
      partition.cell_records[FormatCellKey(canonical.chunks)].push_back(r);
    }
  }
  return partition;
}

Bytes AttributeRows(const LinkAttribute& attribute, const std::vector<std::size_t>& records) {
  Bytes rows;
  rows.reserve(records.size() * attribute.channels * 4);
  for (const std::size_t r : records) {
    for (int c = 0; c < attribute.channels; ++c) {
      AppendLittleEndian(std::bit_cast<std::uint32_t>(attribute.values[r * attribute.channels + c]),
                         rows);
    }
  }
  return rows;
}

Status WriteChunkRows(const VectorStore& store, int level, int delta, const LinkRecords& records,
                      const Partition& partition) {
  std::vector<const std::pair<const ChunkCoord, std::vector<std::size_t>>*> chunks;
  for (const auto& entry : partition.chunk_rows) chunks.push_back(&entry);
  return store.pool().ParallelFor(chunks.size(), [&](std::size_t i) -> Status {
    const auto& [chunk, rows] = *chunks[i];
    std::vector<std::int64_t> flat;
    flat.reserve(rows.size() * records.link_width);
    for (const std::size_t r : rows) {
      for (int e = 0; e < records.link_width; ++e)
        flat.push_back(records.endpoints[r * records.link_width + e].vi);
    }
    CHUNKWISE_RETURN_IF_ERROR(
        store.WriteBlob(layout::LinksBlobPath(level, delta, chunk), EncodeLinkBlob(flat)));
    for (const LinkAttribute& attribute : records.attributes) {
      CHUNKWISE_RETURN_IF_ERROR(
          store.WriteBlob(layout::LinkAttributeBlobPath(level, attribute.name, delta, chunk),
                          AttributeRows(attribute, rows)));
    }
    return Status::Ok();
  });
}

Status WriteCells(const VectorStore& store, int level, int delta, const LinkRecords& records,
                  const Partition& partition) {
  std::vector<const std::pair<const std::string, std::vector<std::size_t>>*> cells;
  for (const auto& entry : partition.cell_records) cells.push_back(&entry);
  return store.pool().ParallelFor(cells.size(), [&](std::size_t i) -> Status {
    const auto& [cell_key, members] = *cells[i];
    std::vector<CellRecord> stored;
    stored.reserve(members.size());
    for (const std::size_t r : members) {
      stored.push_back(
          Canonicalize(std::span(&records.endpoints[r * records.link_width], records.link_width))
              .record);
    }
    return store.WriteBlob(layout::CrossChunkCellPath(level, delta, cell_key),
                           EncodeCellBlob(stored));
  });
}

// The cross-chunk attribute rows in enumeration order, as a plain zarr array.
Status WriteCrossAttribute(const VectorStore& store, int level, int delta,
                           const LinkAttribute& attribute, const Partition& partition,
                           std::uint64_t num_links) {
  std::vector<std::size_t> order;
  for (const auto& [cell_key, members] : partition.cell_records)
    order.insert(order.end(), members.begin(), members.end());
  const Bytes rows = AttributeRows(attribute, order);
  nlohmann::json shape = {num_links};
  if (attribute.channels > 1) shape.push_back(attribute.channels);
  CHUNKWISE_RETURN_IF_ERROR(
      store.WriteGroup(layout::CrossChunkLinkAttributePath(level, attribute.name, delta),
                       {{"zv_array", layout::kCrossChunkLinkAttributeArray},
                        {"name", attribute.name},
                        {"dtype", "float32"},
                        {"level_delta", delta},
                        {"num_links", num_links},
                        {"shape", shape}}));
  zarr::ArrayMetadata metadata;
  metadata.shape = {static_cast<core::Index>(num_links)};
  if (attribute.channels > 1) metadata.shape.push_back(attribute.channels);
  metadata.chunk_shape = metadata.shape;
  metadata.chunk_shape[0] = std::min<core::Index>(metadata.shape[0], 1 << 16);
  metadata.data_type = core::DataType(core::DataTypeId::kFloat32);
  metadata.fill_value = {0, 0, 0, 0};
  metadata.codecs =
      nlohmann::json::array({{{"name", "bytes"}, {"configuration", {{"endian", "little"}}}},
                             {{"name", "zstd"}, {"configuration", {{"level", 3}}}}});
  zarr::ArrayOptions options;
  options.pool = std::shared_ptr<core::ThreadPool>(&store.pool(), [](core::ThreadPool*) {});
  const std::string path = layout::CrossChunkLinkAttributeDataPath(level, attribute.name, delta);
  CHUNKWISE_ASSIGN_OR_RETURN(
      zarr::Array array,
      zarr::Array::Create(store.raw_store(), store.prefix() + path, metadata, true, options));
  const core::Region region = core::Region::Full(metadata.shape);
  return array.Write(region, rows);
}

// Layout 0.9 (docs/formats/vectors.md, "Layout 0.9", Links): every record is
// filed under its source chunk in links/<delta>/<offsets>/. Records with all
// endpoints in one chunk are flat rows of the intra array, in input order,
// with one range fragment per cell in link_fragments/; the others are sorted
// as 0.8 sorts a cell, the first sorted chunk is the source, and each row
// leads with its perm_idx (has_perm), one ragged group per cell.
Result<LinkWriteSummary> WriteLinkRecords09(const VectorStore& store, int level, int delta,
                                            const LinkRecords& records,
                                            const Partition& partition) {
  const int width = records.link_width;
  if (delta != 0) {
    return Status::Unsupported("zarr-vectors layout 0.9 links are written at delta 0 only");
  }
  LinkWriteSummary summary;
  for (const auto& [chunk, rows] : partition.chunk_rows) summary.chunk_links += rows.size();
  summary.cross_chunk_links = records.size() - summary.chunk_links;
  CHUNKWISE_RETURN_IF_ERROR(store.WriteGroup(layout::LinksPath(level, delta),
                                             {{"zv_array", v0_9::kLinksFamilyArray},
                                              {"level_delta", delta},
                                              {"link_width", width},
                                              {"directed", false},
                                              {"store", "canonical"},
                                              {"sid_ndim", kSpatialDims},
                                              {"num_links", records.size()},
                                              {"num_physical_records", records.size()}}));
  const auto offsets_attributes = [&](std::span<const ChunkCoord> offsets, bool has_perm) {
    nlohmann::json listed = nlohmann::json::array();
    for (const ChunkCoord& offset : offsets) listed.push_back(offset);
    return nlohmann::json{{"zv_array", layout::kLinksArray},
                          {"dtype", "int64"},
                          {"offsets", listed},
                          {"has_perm", has_perm},
                          {"link_width", width},
                          {"level_delta", delta}};
  };
  const std::string intra = v0_9::IntraOffsets(width);
  if (!partition.chunk_rows.empty()) {
    const std::vector<ChunkCoord> zero(width - 1, ChunkCoord{});
    CHUNKWISE_RETURN_IF_ERROR(store.WriteGroup(v0_9::LinksOffsetsPath(level, delta, intra),
                                               offsets_attributes(zero, false)));
    CHUNKWISE_RETURN_IF_ERROR(store.WriteGroup(
        layout::FamilyPath(level, v0_9::kLinkFragmentsDir),
        {{"zv_array", v0_9::kLinkFragmentsDir}, {"encoding", "fragment_index_v1"}}));
  }
  for (const auto& [chunk, rows] : partition.chunk_rows) {
    Bytes flat;
    flat.reserve(rows.size() * width * 8);
    for (const std::size_t r : rows) {
      for (int e = 0; e < width; ++e) {
        AppendLittleEndian(static_cast<std::uint64_t>(records.endpoints[r * width + e].vi), flat);
      }
    }
    const std::string key = FormatChunkKey(chunk) + "/";
    CHUNKWISE_RETURN_IF_ERROR(
        store.WriteBlob(v0_9::LinksOffsetsPath(level, delta, intra) + key, flat));
    const Fragment all{true, 0, static_cast<std::int64_t>(rows.size()), {}};
    CHUNKWISE_RETURN_IF_ERROR(
        store.WriteBlob(layout::FamilyPath(level, v0_9::kLinkFragmentsDir) + key,
                        EncodeFragmentIndex(std::span(&all, 1))));
  }
  // (segment, source chunk) -> rows of perm_idx and sorted vi, and the records they are.
  std::map<std::string, std::map<ChunkCoord, std::vector<std::int64_t>>> cells;
  std::map<std::string, std::map<ChunkCoord, std::vector<std::size_t>>> cell_records;
  for (const auto& [cell_key, members] : partition.cell_records) {
    for (const std::size_t r : members) {
      const CanonicalRecord canonical =
          Canonicalize(std::span(&records.endpoints[r * width], width));
      std::vector<ChunkCoord> offsets;
      const ChunkCoord& source = canonical.chunks[0];
      for (int e = 1; e < width; ++e) {
        const ChunkCoord& chunk = canonical.chunks[e];
        offsets.push_back({chunk[0] - source[0], chunk[1] - source[1], chunk[2] - source[2]});
      }
      const std::string segment = v0_9::FormatOffsets(offsets);
      if (!cells.contains(segment)) {
        CHUNKWISE_RETURN_IF_ERROR(store.WriteGroup(v0_9::LinksOffsetsPath(level, delta, segment),
                                                   offsets_attributes(offsets, true)));
      }
      std::vector<std::int64_t>& rows = cells[segment][source];
      cell_records[segment][source].push_back(r);
      rows.push_back(canonical.record.perm_idx);
      rows.insert(rows.end(), canonical.record.vi.begin(), canonical.record.vi.end());
    }
  }
  for (const auto& [segment, sources] : cells) {
    for (const auto& [source, rows] : sources) {
      CHUNKWISE_RETURN_IF_ERROR(store.WriteBlob(
          v0_9::LinksOffsetsPath(level, delta, segment) + FormatChunkKey(source) + "/",
          EncodeLinkBlob(rows)));
    }
  }
  // Attributes: per segment an array parallel to the links array, row for row.
  for (const LinkAttribute& attribute : records.attributes) {
    const std::string family = layout::LinkAttributePath(level, attribute.name, delta);
    CHUNKWISE_RETURN_IF_ERROR(
        store.WriteGroup(family, {{"zv_array", v0_9::kLinkAttributeFamilyArray},
                                  {"name", attribute.name},
                                  {"level_delta", delta},
                                  {"num_links", records.size()}}));
    const auto segment_attributes = [&](const nlohmann::json& offsets) {
      return nlohmann::json{
          {"zv_array", v0_9::kLinkAttributeArray},
          {"name", attribute.name},
          {"dtype", "float32"},
          {"offsets", offsets},
          {"level_delta", delta},
          {"row_shape", attribute.channels == 1 ? nlohmann::json::array()
                                                : nlohmann::json::array({attribute.channels})}};
    };
    if (!partition.chunk_rows.empty()) {
      const nlohmann::json zero(width - 1, ChunkCoord{});
      CHUNKWISE_RETURN_IF_ERROR(store.WriteGroup(family + intra + "/", segment_attributes(zero)));
    }
    for (const auto& [chunk, rows] : partition.chunk_rows) {
      CHUNKWISE_RETURN_IF_ERROR(store.WriteBlob(family + intra + "/" + FormatChunkKey(chunk) + "/",
                                                AttributeRows(attribute, rows)));
    }
    for (const auto& [segment, sources] : cell_records) {
      CHUNKWISE_ASSIGN_OR_RETURN(std::vector<ChunkCoord> offsets,
                                 v0_9::ParseOffsets(segment, width));
      CHUNKWISE_RETURN_IF_ERROR(
          store.WriteGroup(family + segment + "/", segment_attributes(nlohmann::json(offsets))));
      for (const auto& [source, members] : sources) {
        CHUNKWISE_RETURN_IF_ERROR(
            store.WriteBlob(family + segment + "/" + FormatChunkKey(source) + "/",
                            AttributeRows(attribute, members)));
      }
    }
  }
  return summary;
}

}  // namespace

Result<LinkWriteSummary> WriteLinkRecords(const VectorStore& store, int level, int delta,
                                          const LinkRecords& records) {
  const int width = records.link_width;
  if (width < 2 || width > kMaxLinkWidth || records.endpoints.size() % width != 0) {
    return Status::InvalidArgument("link width " + std::to_string(width) + " with " +
                                   std::to_string(records.endpoints.size()) + " endpoints");
  }
  for (const LinkAttribute& attribute : records.attributes) {
    if (!IsValidAttributeName(attribute.name) || attribute.channels < 1 ||
        attribute.values.size() != records.size() * attribute.channels) {
      return Status::InvalidArgument("link attribute \"" + attribute.name + "\" has " +
                                     std::to_string(attribute.values.size()) + " values for " +
                                     std::to_string(records.size()) + " links");
    }
  }
  const Partition partition = PartitionRecords(records);
  if (store.metadata().layout == LayoutVersion::k0_9) {
    return WriteLinkRecords09(store, level, delta, records, partition);
  }
  LinkWriteSummary summary;
  for (const auto& [chunk, rows] : partition.chunk_rows) summary.chunk_links += rows.size();
  summary.cross_chunk_links = records.size() - summary.chunk_links;
  CHUNKWISE_RETURN_IF_ERROR(
      store.WriteGroup(layout::LinksPath(level, delta), {{"zv_array", layout::kLinksArray},
                                                         {"dtype", "int64"},
                                                         {"link_width", width},
                                                         {"level_delta", delta}}));
  CHUNKWISE_RETURN_IF_ERROR(WriteChunkRows(store, level, delta, records, partition));
  for (const LinkAttribute& attribute : records.attributes) {
    CHUNKWISE_RETURN_IF_ERROR(
        store.WriteGroup(layout::LinkAttributePath(level, attribute.name, delta),
                         {{"zv_array", layout::kLinkAttributeArray},
                          {"name", attribute.name},
                          {"dtype", "float32"},
                          {"level_delta", delta},
                          {"channels", attribute.channels}}));
  }
  if (summary.cross_chunk_links == 0) return summary;
  CHUNKWISE_RETURN_IF_ERROR(store.WriteGroup(layout::CrossChunkLinksPath(level, delta),
                                             {{"zv_array", layout::kCrossChunkLinksArray},
                                              {"num_links", summary.cross_chunk_links},
                                              {"sid_ndim", kSpatialDims},
                                              {"level_delta", delta},
                                              {"link_width", width}}));
  CHUNKWISE_RETURN_IF_ERROR(WriteCells(store, level, delta, records, partition));
  for (const LinkAttribute& attribute : records.attributes) {
    CHUNKWISE_RETURN_IF_ERROR(
        WriteCrossAttribute(store, level, delta, attribute, partition, summary.cross_chunk_links));
  }
  return summary;
}

}  // namespace chunkwise::formats::vectors
