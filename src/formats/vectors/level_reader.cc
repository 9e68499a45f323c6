#include "formats/vectors/level_reader.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>

#include "formats/vectors/layout.h"
#include "formats/vectors/lehmer_permutation.h"
#include "formats/vectors/number_text.h"
#include "formats/vectors/ragged_blob.h"
#include "formats/vectors/vlen_array.h"
#include "formats/zarr/array.h"

namespace chunkwise::formats::vectors {
namespace {

// The blob at `path` as rows of `row_bytes`; empty when absent.
Result<Bytes> ReadRows(const VectorStore& store, const std::string& path, std::size_t row_bytes) {
  CHUNKWISE_ASSIGN_OR_RETURN(std::optional<Bytes> blob, store.ReadBlob(path));
  if (!blob) return Bytes();
  if (blob->size() % row_bytes != 0) {
    return Status::Corruption(store.DescribeBlob(path) + ": " + std::to_string(blob->size()) +
                              " bytes are not whole rows of " + std::to_string(row_bytes));
  }
  return std::move(*blob);
}

std::vector<float> Floats(ByteView bytes) {
  std::vector<float> values(bytes.size() / 4);
  for (std::size_t i = 0; i < values.size(); ++i) {
    values[i] = std::bit_cast<float>(LoadLittleEndian<std::uint32_t>(bytes.data() + 4 * i));
  }
  return values;
}

Result<std::vector<int>> ListDeltas(const VectorStore& store, const std::string& family_path) {
  CHUNKWISE_ASSIGN_OR_RETURN(std::vector<std::string> children, store.ListChildren(family_path));
  std::vector<int> deltas;
  for (const std::string& child : children) {
    Result<int> delta = ParseDelta(child);
    if (!delta.ok()) return delta.status().WithContext(store.Describe(family_path + child));
    deltas.push_back(*delta);
  }
  std::sort(deltas.begin(), deltas.end());
  return deltas;
}

Result<int> IntAttribute(const VectorStore& store, const std::string& path,
                         const nlohmann::json& attributes, const char* name) {
  if (!attributes.contains(name) || !attributes[name].is_number_integer()) {
    return Status::InvalidArgument(store.Describe(path + "zarr.json") + ": attribute " + name +
                                   " is missing or not an integer");
  }
  return attributes[name].get<int>();
}

std::string PointText(const Vec3f& p) {
  return "(" + NumberText(p[0]) + ", " + NumberText(p[1]) + ", " + NumberText(p[2]) + ")";
}

// The root's chunk_shape and bounds are believed by every read (a bbox read
// probes only the chunk keys chunk_shape gives), so each chunk's vertices are
// held to them: finite, inside the chunk's cell (with a float32-sized slack at
// the edges, so a writer that divides in float32 and rounds a vertex on a
// boundary into the next chunk still reads) and, at level 0 where
// they are the written positions, inside the bounds.
Status CheckChunkVertices(const VectorStore& store, int level, const ChunkCoord& chunk,
                          const std::vector<Vec3f>& vertices) {
  const RootMetadata& root = store.metadata();
  const std::string path = layout::ChunkBlobPath(level, layout::kVerticesDir, chunk);
  for (std::size_t v = 0; v < vertices.size(); ++v) {
    for (int d = 0; d < 3; ++d) {
      const double p = vertices[v][d];
      const double low = static_cast<double>(chunk[d]) * root.chunk_shape[d];
      const double high = static_cast<double>(chunk[d] + 1) * root.chunk_shape[d];
      const double slack = 1e-6 * (std::abs(low) + std::abs(high));
      std::string fault;
      if (!std::isfinite(p)) {
        fault = " is not finite";
      } else if (p < low - slack || p > high + slack) {
        fault = " lies outside its chunk under the root's chunk_shape [" +
                NumberText(root.chunk_shape[0]) + ", " + NumberText(root.chunk_shape[1]) + ", " +
                NumberText(root.chunk_shape[2]) + "] (" + store.Describe("zarr.json") + ")";
      } else if (level == 0 && (p < root.bounds_min[d] || p > root.bounds_max[d])) {
        fault = " lies outside the root's bounds on axis " + std::to_string(d) + " (" +
                store.Describe("zarr.json") + ")";
      }
      if (!fault.empty()) {
        return Status::Corruption(store.Describe(path) + ": vertex " + std::to_string(v) + " " +
                                  PointText(vertices[v]) + fault);
      }
    }
  }
  return Status::Ok();
}

// Layout 0.9: each attribute's channels from the row_shape of one of its
// offsets arrays (all share it); an attribute without arrays at `delta` is skipped.
Result<std::vector<LinkAttributeInfo>> ListLinkAttributes09(const VectorStore& store, int level,
                                                            int delta,
                                                            const std::vector<std::string>& names) {
  CHUNKWISE_ASSIGN_OR_RETURN(std::optional<int> width, ReadLinkWidth(store, level, delta));
  std::vector<LinkAttributeInfo> attributes;
  if (!width) return attributes;
  for (const std::string& name : names) {
    const std::string family = layout::LinkAttributePath(level, name, delta);
    CHUNKWISE_ASSIGN_OR_RETURN(std::vector<std::string> segments, store.ListChildren(family));
    std::optional<VlenArray> array;
    for (const std::string& segment : segments) {
      CHUNKWISE_ASSIGN_OR_RETURN(array, OpenVlenArray(store, family + segment + "/"));
      if (array) break;
    }
    if (!array) continue;
    const nlohmann::json shape = array->attributes.value("row_shape", nlohmann::json::array());
    LinkAttributeInfo info{name, 1, *width};
    if (shape.is_array() && shape.size() == 1 && shape[0].is_number_integer()) {
      info.channels = shape[0].get<int>();
    } else if (!shape.is_array() || !shape.empty()) {
      return Status::Unsupported(store.Describe(array->path + "zarr.json") + ": row_shape " +
                                 shape.dump() + " (chunkwise reads [] and [channels])");
    }
    const std::string dtype = array->attributes.value("dtype", "float32");
    if (dtype != "float32") {
      return Status::Unsupported(store.Describe(array->path + "zarr.json") + ": dtype " + dtype +
                                 " (chunkwise reads float32 link attributes)");
    }
    if (info.channels < 1 || info.channels > 1 << 20) {
      return Status::InvalidArgument(store.Describe(array->path + "zarr.json") + ": row_shape " +
                                     shape.dump() + " is out of range");
    }
    attributes.push_back(info);
  }
  return attributes;
}

}  // namespace

Result<std::vector<ChunkCoord>> ListChunks(const VectorStore& store, int level,
                                           std::string_view family) {
  return ListChunksAt(store, layout::FamilyPath(level, family));
}

Result<std::vector<ChunkCoord>> ListChunksAt(const VectorStore& store, const std::string& path) {
  if (store.metadata().layout == LayoutVersion::k0_9) {
    CHUNKWISE_ASSIGN_OR_RETURN(std::optional<VlenArray> array, OpenVlenArray(store, path));
    return array ? array->nonempty : std::vector<ChunkCoord>();
  }
  CHUNKWISE_ASSIGN_OR_RETURN(std::vector<std::string> children, store.ListChildren(path));
  std::vector<ChunkCoord> chunks;
  for (const std::string& child : children) {
    Result<ChunkCoord> chunk = ParseChunkKey(child);
    if (!chunk.ok()) return chunk.status().WithContext(store.Describe(path + child));
    chunks.push_back(*chunk);
  }
  std::sort(chunks.begin(), chunks.end());
  return chunks;
}

Result<std::vector<Vec3f>> ReadChunkVertices(const VectorStore& store, int level,
                                             const ChunkCoord& chunk) {
  CHUNKWISE_ASSIGN_OR_RETURN(
      Bytes rows, ReadRows(store, layout::ChunkBlobPath(level, layout::kVerticesDir, chunk), 12));
  const std::vector<float> values = Floats(rows);
  std::vector<Vec3f> vertices(values.size() / 3);
  for (std::size_t v = 0; v < vertices.size(); ++v)
    vertices[v] = {values[3 * v], values[3 * v + 1], values[3 * v + 2]};
  CHUNKWISE_RETURN_IF_ERROR(CheckChunkVertices(store, level, chunk, vertices));
  return vertices;
}

Result<std::vector<std::int64_t>> ReadChunkObjectIds(const VectorStore& store, int level,
                                                     const ChunkCoord& chunk) {
  CHUNKWISE_ASSIGN_OR_RETURN(
      Bytes rows,
      ReadRows(store, layout::VertexAttributeBlobPath(level, layout::kObjectIdAttribute, chunk),
               8));
  std::vector<std::int64_t> ids(rows.size() / 8);
  for (std::size_t i = 0; i < ids.size(); ++i) {
    ids[i] = static_cast<std::int64_t>(LoadLittleEndian<std::uint64_t>(rows.data() + 8 * i));
  }
  return ids;
}

Result<std::vector<float>> ReadChunkVertexAttribute(const VectorStore& store, int level,
                                                    const std::string& name,
                                                    const ChunkCoord& chunk) {
  CHUNKWISE_ASSIGN_OR_RETURN(
      Bytes rows, ReadRows(store, layout::VertexAttributeBlobPath(level, name, chunk), 4));
  return Floats(rows);
}

Result<std::vector<std::string>> ListVertexAttributes(const VectorStore& store, int level) {
  CHUNKWISE_ASSIGN_OR_RETURN(
      std::vector<std::string> names,
      store.ListChildren(layout::FamilyPath(level, layout::kVertexAttributesDir)));
  std::erase(names, std::string(layout::kObjectIdAttribute));
  return names;
}

Result<std::vector<int>> ListLinkDeltas(const VectorStore& store, int level) {
  return ListDeltas(store, layout::FamilyPath(level, layout::kLinksDir));
}

Result<std::vector<int>> ListCrossLinkDeltas(const VectorStore& store, int level) {
  return ListDeltas(store, layout::FamilyPath(level, layout::kCrossChunkLinksDir));
}

Result<std::optional<int>> ReadLinkWidth(const VectorStore& store, int level, int delta) {
  for (const std::string& path :
       {layout::LinksPath(level, delta), layout::CrossChunkLinksPath(level, delta)}) {
    CHUNKWISE_ASSIGN_OR_RETURN(std::optional<nlohmann::json> attributes,
                               store.ReadGroupAttributes(path));
    if (!attributes) continue;
    CHUNKWISE_ASSIGN_OR_RETURN(int width, IntAttribute(store, path, *attributes, "link_width"));
    if (width < 1 || width > kMaxLinkWidth) {
      return Status::InvalidArgument(store.Describe(path + "zarr.json") + ": link_width " +
                                     std::to_string(width) + " is out of range");
    }
    return std::optional<int>(width);
  }
  return std::optional<int>();
}

Result<std::vector<std::int64_t>> ReadChunkLinks(const VectorStore& store, int level,
                                                 const ChunkCoord& chunk, int link_width,
                                                 int delta) {
  const std::string path =
      store.metadata().layout == LayoutVersion::k0_9
          ? v0_9::LinksOffsetsPath(level, delta, v0_9::IntraOffsets(link_width)) +
                FormatChunkKey(chunk) + "/"
          : layout::LinksBlobPath(level, delta, chunk);
  CHUNKWISE_ASSIGN_OR_RETURN(std::optional<Bytes> blob, store.ReadBlob(path));
  if (!blob) return std::vector<std::int64_t>();
  if (store.metadata().layout == LayoutVersion::k0_9 && delta == 0) {
    // 0.9's intra-chunk cells at delta 0 are flat rows, no ragged header (the
    // groups live in link_fragments/).
    if (blob->size() % (8 * static_cast<std::size_t>(link_width)) != 0) {
      return Status::Corruption(store.DescribeBlob(path) + ": " + std::to_string(blob->size()) +
                                " bytes are not whole rows of " + std::to_string(link_width) +
                                " int64");
    }
    std::vector<std::int64_t> rows(blob->size() / 8);
    for (std::size_t i = 0; i < rows.size(); ++i) {
      rows[i] = static_cast<std::int64_t>(LoadLittleEndian<std::uint64_t>(blob->data() + 8 * i));
    }
    return rows;
  }
  return DecodeLinkBlob(*blob, link_width, store.DescribeBlob(path));
}

Result<std::optional<CrossChunkFamily>> ReadCrossChunkFamily(const VectorStore& store, int level,
                                                             int delta, bool list_cells) {
  // Layout 0.9 keeps cross-chunk links in links/<delta>/<offsets>/ (ReadOffsetLinks).
  if (store.metadata().layout == LayoutVersion::k0_9) return std::optional<CrossChunkFamily>();
  const std::string path = layout::CrossChunkLinksPath(level, delta);
  CHUNKWISE_ASSIGN_OR_RETURN(std::optional<nlohmann::json> attributes,
                             store.ReadGroupAttributes(path));
  if (!attributes) return std::optional<CrossChunkFamily>();
  CrossChunkFamily family;
  CHUNKWISE_ASSIGN_OR_RETURN(family.link_width,
                             IntAttribute(store, path, *attributes, "link_width"));
  if (family.link_width < 1 || family.link_width > kMaxLinkWidth) {
    return Status::InvalidArgument(store.Describe(path + "zarr.json") +
                                   ": link_width is out of range");
  }
  const nlohmann::json num_links = attributes->value("num_links", nlohmann::json(0));
  if (!num_links.is_number_unsigned() && !num_links.is_number_integer()) {
    return Status::InvalidArgument(store.Describe(path + "zarr.json") +
                                   ": num_links is not an integer");
  }
  family.num_links = num_links.get<std::uint64_t>();
  if (list_cells) {
    CHUNKWISE_ASSIGN_OR_RETURN(family.cell_keys, store.ListChildren(path));
  }
  return std::optional<CrossChunkFamily>(std::move(family));
}

Result<std::vector<Endpoint>> ReadCrossChunkCell(const VectorStore& store, int level, int delta,
                                                 const std::string& cell_key, int link_width) {
  const std::string path = layout::CrossChunkCellPath(level, delta, cell_key);
  Result<std::vector<ChunkCoord>> chunks = ParseCellKey(cell_key, link_width);
  if (!chunks.ok()) return chunks.status().WithContext(store.Describe(path));
  CHUNKWISE_ASSIGN_OR_RETURN(std::optional<Bytes> blob, store.ReadBlob(path));
  if (!blob) return std::vector<Endpoint>();
  CHUNKWISE_ASSIGN_OR_RETURN(std::vector<CellRecord> records,
                             DecodeCellBlob(*blob, link_width, store.Describe(path)));
  std::vector<Endpoint> endpoints;
  endpoints.reserve(records.size() * link_width);
  if (!std::is_sorted(chunks->begin(), chunks->end())) {
    return Status::Corruption(store.Describe(path) +
                              ": cell key chunks are not in canonical order");
  }
  for (const CellRecord& record : records) {
    Result<std::vector<Endpoint>> input = RestoreInputOrder(*chunks, record);
    if (!input.ok()) return input.status().WithContext(store.Describe(path));
    endpoints.insert(endpoints.end(), input->begin(), input->end());
  }
  return endpoints;
}

Result<std::vector<Endpoint>> ReadCrossChunkLinks(const VectorStore& store, int level, int delta) {
  CHUNKWISE_ASSIGN_OR_RETURN(std::optional<CrossChunkFamily> family,
                             ReadCrossChunkFamily(store, level, delta));
  if (!family || family->num_links == 0) return std::vector<Endpoint>();
  std::vector<std::vector<Endpoint>> cells(family->cell_keys.size());
  CHUNKWISE_RETURN_IF_ERROR(store.pool().ParallelFor(cells.size(), [&](std::size_t i) -> Status {
    CHUNKWISE_ASSIGN_OR_RETURN(
        cells[i],
        ReadCrossChunkCell(store, level, delta, family->cell_keys[i], family->link_width));
    return Status::Ok();
  }));
  std::vector<Endpoint> endpoints;
  for (const auto& cell : cells) endpoints.insert(endpoints.end(), cell.begin(), cell.end());
  return endpoints;
}

Result<std::vector<Endpoint>> ReadAllLinks(const VectorStore& store, int level, int delta,
                                           int* link_width) {
  CHUNKWISE_ASSIGN_OR_RETURN(std::optional<int> width, ReadLinkWidth(store, level, delta));
  *link_width = width.value_or(2);
  std::vector<Endpoint> endpoints;
  if (!width) return endpoints;
  const bool v09 = store.metadata().layout == LayoutVersion::k0_9;
  CHUNKWISE_ASSIGN_OR_RETURN(
      std::vector<ChunkCoord> chunks,
      ListChunksAt(store, v09 ? v0_9::LinksOffsetsPath(level, delta, v0_9::IntraOffsets(*width))
                              : layout::LinksPath(level, delta)));
  for (const ChunkCoord& chunk : chunks) {
    CHUNKWISE_ASSIGN_OR_RETURN(std::vector<std::int64_t> rows,
                               ReadChunkLinks(store, level, chunk, *width, delta));
    for (const std::int64_t vi : rows) endpoints.push_back(Endpoint{chunk, vi});
  }
  std::vector<Endpoint> cross;
  if (v09) {
    CHUNKWISE_ASSIGN_OR_RETURN(cross, ReadOffsetLinks(store, level, delta, *width, nullptr));
  } else {
    CHUNKWISE_ASSIGN_OR_RETURN(cross, ReadCrossChunkLinks(store, level, delta));
  }
  endpoints.insert(endpoints.end(), cross.begin(), cross.end());
  return endpoints;
}

Result<std::vector<Endpoint>> ReadOffsetLinks(const VectorStore& store, int level, int delta,
                                              int link_width,
                                              const std::vector<ChunkCoord>* sources,
                                              const std::vector<LinkAttributeInfo>* attributes,
                                              std::vector<std::vector<float>>* values) {
  std::vector<Endpoint> endpoints;
  if (attributes && values) values->assign(attributes->size(), {});
  if (store.metadata().layout != LayoutVersion::k0_9) return endpoints;
  const std::string family = v0_9::LinksPath(level, delta);
  CHUNKWISE_ASSIGN_OR_RETURN(std::vector<std::string> segments, store.ListChildren(family));
  for (const std::string& segment : segments) {
    const std::string path = v0_9::LinksOffsetsPath(level, delta, segment);
    Result<std::vector<ChunkCoord>> offsets = v0_9::ParseOffsets(segment, link_width);
    if (!offsets.ok()) return offsets.status().WithContext(store.Describe(path));
    if (segment == v0_9::IntraOffsets(link_width)) continue;  // Read per chunk (ReadChunkLinks).
    CHUNKWISE_ASSIGN_OR_RETURN(std::optional<VlenArray> array, OpenVlenArray(store, path));
    if (!array) continue;
    const nlohmann::json has_perm = array->attributes.value("has_perm", nlohmann::json());
    if (!has_perm.is_boolean()) {
      return Status::InvalidArgument(store.Describe(path + "zarr.json") +
                                     ": has_perm is missing or not a boolean");
    }
    const int columns = link_width + (has_perm.get<bool>() ? 1 : 0);
    for (const ChunkCoord& source : array->nonempty) {
      if (sources && !std::binary_search(sources->begin(), sources->end(), source)) continue;
      CHUNKWISE_ASSIGN_OR_RETURN(std::optional<Bytes> blob, ReadVlenCell(store, *array, source));
      if (!blob) continue;
      const std::string cell = path + v0_9::CellKey(source, array->origin);
      CHUNKWISE_ASSIGN_OR_RETURN(std::vector<std::int64_t> rows,
                                 DecodeLinkBlob(*blob, columns, store.Describe(cell)));
      for (std::size_t a = 0; attributes && values && a < attributes->size(); ++a) {
        const LinkAttributeInfo& info = (*attributes)[a];
        CHUNKWISE_ASSIGN_OR_RETURN(
            std::vector<float> rows_of,
            ReadLinkAttributeRows(store,
                                  layout::LinkAttributePath(level, info.name, delta) + segment +
                                      "/" + FormatChunkKey(source) + "/",
                                  info, rows.size() / columns));
        (*values)[a].insert((*values)[a].end(), rows_of.begin(), rows_of.end());
      }
      // Endpoint k lives in chunk source + offset k (endpoint 0 in the source).
      std::vector<ChunkCoord> chunks{source};
      for (const ChunkCoord& offset : *offsets) {
        chunks.push_back({source[0] + offset[0], source[1] + offset[1], source[2] + offset[2]});
      }
      for (std::size_t at = 0; at < rows.size(); at += columns) {
        if (!has_perm.get<bool>()) {
          for (int k = 0; k < link_width; ++k)
            endpoints.push_back(Endpoint{chunks[k], rows[at + k]});
          continue;
        }
        // The stored order is the canonical sort; perm_idx restores the input order.
        const CellRecord record{rows[at], std::vector<std::int64_t>(rows.begin() + at + 1,
                                                                    rows.begin() + at + columns)};
        Result<std::vector<Endpoint>> input = RestoreInputOrder(chunks, record);
        if (!input.ok()) return input.status().WithContext(store.Describe(cell));
        endpoints.insert(endpoints.end(), input->begin(), input->end());
      }
    }
  }
  return endpoints;
}

Result<std::vector<LinkAttributeInfo>> ListLinkAttributes(const VectorStore& store, int level,
                                                          int delta) {
  CHUNKWISE_ASSIGN_OR_RETURN(
      std::vector<std::string> names,
      store.ListChildren(layout::FamilyPath(level, layout::kLinkAttributesDir)));
  if (!names.empty() && store.metadata().layout == LayoutVersion::k0_9) {
    return ListLinkAttributes09(store, level, delta, names);
  }
  std::vector<LinkAttributeInfo> attributes;
  for (const std::string& name : names) {
    const std::string path = layout::LinkAttributePath(level, name, delta);
    CHUNKWISE_ASSIGN_OR_RETURN(std::optional<nlohmann::json> group,
                               store.ReadGroupAttributes(path));
    if (!group) continue;
    LinkAttributeInfo info{name, 1};
    if (group->contains("channels")) {
      CHUNKWISE_ASSIGN_OR_RETURN(info.channels, IntAttribute(store, path, *group, "channels"));
    }
    if (info.channels < 1)
      return Status::InvalidArgument(store.Describe(path) + ": channels must be positive");
    attributes.push_back(info);
  }
  return attributes;
}

Result<std::vector<float>> ReadChunkLinkAttribute(const VectorStore& store, int level,
                                                  const LinkAttributeInfo& attribute, int delta,
                                                  const ChunkCoord& chunk, std::size_t rows) {
  // Layout 0.9 keeps the intra-chunk rows in the array of the all-zero offsets.
  const std::string path = store.metadata().layout == LayoutVersion::k0_9
                               ? layout::LinkAttributePath(level, attribute.name, delta) +
                                     v0_9::IntraOffsets(attribute.link_width) + "/" +
                                     FormatChunkKey(chunk) + "/"
                               : layout::LinkAttributeBlobPath(level, attribute.name, delta, chunk);
  return ReadLinkAttributeRows(store, path, attribute, rows);
}

Result<std::vector<float>> ReadLinkAttributeRows(const VectorStore& store, const std::string& path,
                                                 const LinkAttributeInfo& attribute,
                                                 std::size_t rows) {
  CHUNKWISE_ASSIGN_OR_RETURN(std::optional<Bytes> blob, store.ReadBlob(path));
  const std::size_t flat_size = rows * attribute.channels * 4;
  if (!blob) {
    if (rows == 0) return std::vector<float>();
    return Status::Corruption(store.DescribeBlob(path) + ": missing for " + std::to_string(rows) +
                              " links");
  }
  if (blob->size() == flat_size) return Floats(*blob);
  // Another writer may have kept the link blob's ragged header (docs/formats/vectors.md,
  // "Pitfalls settled", 7).
  Result<std::vector<ByteView>> groups = DecodeRaggedBlob(*blob, store.Describe(path));
  Bytes joined;
  if (groups.ok()) joined = JoinBytes(*groups);
  if (!groups.ok() || joined.size() != flat_size) {
    return Status::Corruption(store.DescribeBlob(path) + ": " + std::to_string(blob->size()) +
                              " bytes do not hold " + std::to_string(rows) + " rows of " +
                              std::to_string(attribute.channels) + " float32");
  }
  return Floats(joined);
}

Result<std::vector<float>> ReadCrossChunkLinkAttribute(const VectorStore& store, int level,
                                                       const LinkAttributeInfo& attribute,
                                                       int delta) {
  const std::string path = layout::CrossChunkLinkAttributeDataPath(level, attribute.name, delta);
  CHUNKWISE_ASSIGN_OR_RETURN(std::optional<CrossChunkFamily> family,
                             ReadCrossChunkFamily(store, level, delta));
  const std::uint64_t expected = family ? family->num_links : 0;
  zarr::ArrayOptions options;
  options.pool = std::shared_ptr<core::ThreadPool>(&store.pool(), [](core::ThreadPool*) {});
  Result<zarr::Array> array = zarr::Array::Open(store.raw_store(), store.prefix() + path, options);
  if (!array.ok() && array.status().code() == StatusCode::kNotFound) {
    if (expected == 0) return std::vector<float>();
    return Status::Corruption(store.DescribeBlob(path) + ": missing for " +
                              std::to_string(expected) + " cross-chunk links");
  }
  if (!array.ok()) return array.status();
  const core::Shape& shape = array->metadata().shape;
  const core::Index channels = shape.size() > 1 ? shape[1] : 1;
  if (array->metadata().data_type.id() != core::DataTypeId::kFloat32 || shape.empty() ||
      shape.size() > 2 || static_cast<std::uint64_t>(shape[0]) != expected ||
      channels != attribute.channels) {
    return Status::Corruption(store.Describe(path) + ": not float32 [" + std::to_string(expected) +
                              ", " + std::to_string(attribute.channels) +
                              "] (num_links of the cross-chunk family)");
  }
  if (expected == 0) return std::vector<float>();
  CHUNKWISE_ASSIGN_OR_RETURN(Bytes bytes, array->Read(core::Region::Full(shape)));
  std::vector<float> values(bytes.size() / 4);
  std::memcpy(values.data(), bytes.data(), bytes.size());  // Read returns host byte order.
  return values;
}

}  // namespace chunkwise::formats::vectors
