#include "formats/vectors/geometry_reader.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <span>
#include <string>

#include "chunkwise/core/index.h"
#include "formats/vectors/fragment_index.h"
#include "formats/vectors/layout.h"
#include "formats/vectors/level_reader.h"
#include "formats/vectors/object_index.h"

namespace chunkwise::formats::vectors {
namespace {

// What one chunk holds at the level, as read.
struct ChunkData {
  std::vector<Vec3f> vertices;
  std::vector<std::int64_t> object_ids;
  std::vector<std::vector<float>> vertex_attributes;  // Parallel to the names.
  std::vector<std::int64_t> links;
  std::vector<std::vector<float>> link_attributes;  // Parallel to the infos.
  std::vector<std::int64_t> global;                 // Per vi: selected vertex number or -1.
  std::vector<Fragment> fragments;  // Layout 0.9 with implicit links or an object index.
};

struct LevelContents {
  int link_width = 0;
  // Layout 0.9 `implicit_sequential` (polylines): consecutive vertices of a
  // fragment are linked without a stored link.
  bool implicit_sequential = false;
  // Layout 0.9 `implicit_sequential_with_branches` (skeletons): each vertex of
  // a fragment but its first has the one before as parent, unless a stored
  // link [child, parent] names another.
  bool implicit_parents = false;
  // Layout 0.9: the objects owning each fragment (object_index/), if any.
  std::optional<FragmentOwners> owners;
  std::vector<std::string> vertex_attribute_names;
  std::vector<LinkAttributeInfo> link_attributes;
};

bool Overlaps(const ChunkCoord& chunk, const Vec3& chunk_shape, const BoundingBox& box) {
  for (int d = 0; d < 3; ++d) {
    if ((chunk[d] + 1) * chunk_shape[d] < box.min[d] || chunk[d] * chunk_shape[d] > box.max[d])
      return false;
  }
  return true;
}

// The rows of a fragment in its order.
std::int64_t FragmentSize(const Fragment& fragment) {
  return fragment.is_range ? fragment.count : static_cast<std::int64_t>(fragment.indices.size());
}
std::int64_t FragmentRow(const Fragment& fragment, std::int64_t i) {
  return fragment.is_range ? fragment.start + i : fragment.indices[i];
}

// Reads the chunk's fragment index into data.fragments, each checked to lie
// inside the chunk's vertex rows (before any link is made of it).
Status ReadFragments(const VectorStore& store, int level, const ChunkCoord& chunk,
                     ChunkData& data) {
  const std::string path = layout::ChunkBlobPath(level, layout::kFragmentsDir, chunk);
  CHUNKWISE_ASSIGN_OR_RETURN(std::optional<Bytes> blob, store.ReadBlob(path));
  if (!blob) {
    if (data.vertices.empty()) return Status::Ok();
    return Status::Corruption(store.DescribeBlob(path) + ": missing for a chunk with " +
                              std::to_string(data.vertices.size()) + " vertices");
  }
  CHUNKWISE_ASSIGN_OR_RETURN(data.fragments, DecodeFragmentIndex(*blob, store.DescribeBlob(path)));
  const auto rows = static_cast<std::int64_t>(data.vertices.size());
  for (const Fragment& fragment : data.fragments) {
    if (fragment.is_range &&
        (fragment.start < 0 || fragment.count < 0 || fragment.start > rows - fragment.count)) {
      return Status::Corruption(store.DescribeBlob(path) + ": fragment rows " +
                                std::to_string(fragment.start) + " + " +
                                std::to_string(fragment.count) + " pass the chunk's " +
                                std::to_string(rows) + " vertices");
    }
    for (const std::int64_t row : fragment.indices) {
      if (row < 0 || row >= rows) {
        return Status::Corruption(store.DescribeBlob(path) + ": fragment row " +
                                  std::to_string(row) + " is not one of the chunk's " +
                                  std::to_string(rows) + " vertices");
      }
    }
  }
  return Status::Ok();
}

// The steps inside each vertex fragment of the chunk: [v_i, v_i+1] in the
// fragment's order (docs/formats/vectors.md, "Layout 0.9", implicit links).
void AddFragmentSteps(ChunkData& data) {
  for (const Fragment& fragment : data.fragments) {
    for (std::int64_t i = 0; i + 1 < FragmentSize(fragment); ++i) {
      data.links.push_back(FragmentRow(fragment, i));
      data.links.push_back(FragmentRow(fragment, i + 1));
    }
  }
}

// Layout 0.9 object ids: each row takes the object whose manifest names its fragment.
Status AssignObjectIds(const VectorStore& store, int level, const ChunkCoord& chunk,
                       const FragmentOwners& owners, ChunkData& data) {
  if (data.vertices.empty()) return Status::Ok();
  const std::string where =
      store.DescribeBlob(layout::ChunkBlobPath(level, layout::kFragmentsDir, chunk));
  static const ChunkOwners kNone;
  const auto found = owners.find(chunk);
  const ChunkOwners& of_chunk = found == owners.end() ? kNone : found->second;
  data.object_ids.assign(data.vertices.size(), 0);
  std::vector<bool> assigned(data.vertices.size(), false);
  for (std::size_t f = 0; f < data.fragments.size(); ++f) {
    const std::optional<std::int64_t> id = OwnerOf(of_chunk, static_cast<std::int64_t>(f));
    if (!id) {
      return Status::Corruption(where + ": fragment " + std::to_string(f) +
                                " is in no object's manifest (object_index/manifests)");
    }
    for (std::int64_t i = 0; i < FragmentSize(data.fragments[f]); ++i) {
      const std::int64_t row = FragmentRow(data.fragments[f], i);
      data.object_ids[row] = *id;
      assigned[row] = true;
    }
  }
  const auto missing = std::find(assigned.begin(), assigned.end(), false);
  if (missing != assigned.end()) {
    return Status::Corruption(where + ": vertex row " + std::to_string(missing - assigned.begin()) +
                              " is in no fragment, so it has no object");
  }
  return Status::Ok();
}

Status ReadChunk(const VectorStore& store, int level, const ChunkCoord& chunk,
                 const LevelContents& contents, ChunkData& data) {
  CHUNKWISE_ASSIGN_OR_RETURN(data.vertices, ReadChunkVertices(store, level, chunk));
  CHUNKWISE_ASSIGN_OR_RETURN(data.object_ids, ReadChunkObjectIds(store, level, chunk));
  if (contents.implicit_sequential || contents.implicit_parents || contents.owners)
    CHUNKWISE_RETURN_IF_ERROR(ReadFragments(store, level, chunk, data));
  if (contents.owners)
    CHUNKWISE_RETURN_IF_ERROR(AssignObjectIds(store, level, chunk, *contents.owners, data));
  const std::string where =
      store.Describe(layout::ChunkBlobPath(level, layout::kVerticesDir, chunk));
  if (!data.object_ids.empty() && data.object_ids.size() != data.vertices.size()) {
    return Status::Corruption(where + ": object_id rows differ from vertex rows");
  }
  for (const std::string& name : contents.vertex_attribute_names) {
    CHUNKWISE_ASSIGN_OR_RETURN(std::vector<float> values,
                               ReadChunkVertexAttribute(store, level, name, chunk));
    if (values.size() != data.vertices.size())
      return Status::Corruption(where + ": attribute " + name + " rows differ");
    data.vertex_attributes.push_back(std::move(values));
  }
  if (contents.link_width == 0) return Status::Ok();
  CHUNKWISE_ASSIGN_OR_RETURN(data.links,
                             ReadChunkLinks(store, level, chunk, contents.link_width, 0));
  if (contents.implicit_sequential) AddFragmentSteps(data);
  for (const LinkAttributeInfo& info : contents.link_attributes) {
    CHUNKWISE_ASSIGN_OR_RETURN(std::vector<float> values,
                               ReadChunkLinkAttribute(store, level, info, 0, chunk,
                                                      data.links.size() / contents.link_width));
    data.link_attributes.push_back(std::move(values));
  }
  return Status::Ok();
}

// ReadGeometry's groups of chunks whose blobs are fetched as one batch.
constexpr std::size_t kChunksPerFetch = 256;

// The layout-0.8 blob paths ReadChunk reads for each of `chunks`.
std::vector<std::string> ChunkBlobPaths(int level, const LevelContents& contents,
                                        std::span<const ChunkCoord> chunks) {
  std::vector<std::string> paths;
  for (const ChunkCoord& chunk : chunks) {
    paths.push_back(layout::ChunkBlobPath(level, layout::kVerticesDir, chunk));
    paths.push_back(layout::VertexAttributeBlobPath(level, layout::kObjectIdAttribute, chunk));
    for (const std::string& name : contents.vertex_attribute_names) {
      paths.push_back(layout::VertexAttributeBlobPath(level, name, chunk));
    }
    if (contents.link_width == 0) continue;
    paths.push_back(layout::LinksBlobPath(level, 0, chunk));
    for (const LinkAttributeInfo& info : contents.link_attributes) {
      paths.push_back(layout::LinkAttributeBlobPath(level, info.name, 0, chunk));
    }
  }
  return paths;
}

Result<LevelContents> ReadContents(const VectorStore& store, int level) {
  LevelContents contents;
  CHUNKWISE_ASSIGN_OR_RETURN(contents.vertex_attribute_names, ListVertexAttributes(store, level));
  if (store.metadata().layout == LayoutVersion::k0_9) {
    CHUNKWISE_ASSIGN_OR_RETURN(contents.owners, ReadObjectIndex(store, level));
  }
  contents.link_width = LinkWidthOf(store.metadata().geometry_type);
  if (contents.link_width == 0) return contents;
  // zarr-vectors 0.9 leaves the links inside a polyline or skeleton fragment
  // implicit (vertex order); any other implicit convention would lose links.
  const RootMetadata& root = store.metadata();
  const bool v09 = root.layout == LayoutVersion::k0_9;
  contents.implicit_sequential = v09 && root.links_convention == "implicit_sequential";
  contents.implicit_parents = v09 && root.links_convention == "implicit_sequential_with_branches";
  // zarr-vectors 0.9.2's line segments (write_lines) store cross-chunk link
  // records whose vi do not match the rows they name (its reader pairs the
  // endpoints through the object manifests instead), so they are not read.
  if (v09 && root.geometry_name == "line") {
    return Status::Unsupported(store.Describe("zarr.json") +
                               ": geometry_types line (zarr-vectors line segments) of layout 0.9 "
                               "is not read: its links across chunks do not name the right rows");
  }
  if (v09 && root.links_convention.starts_with("implicit") && !contents.implicit_sequential &&
      !contents.implicit_parents) {
    return Status::Unsupported(store.Describe("zarr.json") + ": links_convention " +
                               root.links_convention + " of zarr-vectors layout 0.9 is not read");
  }
  CHUNKWISE_ASSIGN_OR_RETURN(std::optional<int> width, ReadLinkWidth(store, level, 0));
  if (width && *width != contents.link_width) {
    return Status::Corruption(store.Describe(layout::LinksPath(level, 0)) + ": link_width " +
                              std::to_string(*width) + " does not match the geometry type");
  }
  CHUNKWISE_ASSIGN_OR_RETURN(contents.link_attributes, ListLinkAttributes(store, level, 0));
  if ((contents.implicit_sequential || contents.implicit_parents) &&
      !contents.link_attributes.empty()) {
    return Status::Unsupported(store.Describe("zarr.json") + ": link attributes of a layout-0.9 " +
                               root.links_convention +
                               " store leave its implicit links without values; not read");
  }
  return contents;
}

// Layout 0.9 skeletons: the link [row, previous row] for every vertex of a
// fragment but its first, unless a stored link (intra-chunk rows already in
// data[c].links, or `offset_links`) has that vertex as its child.
void AddImplicitParents(const std::vector<ChunkCoord>& chunks,
                        const std::vector<Endpoint>& offset_links, std::vector<ChunkData>& data) {
  std::set<Endpoint> children;
  for (std::size_t at = 0; at + 1 < offset_links.size(); at += 2) children.insert(offset_links[at]);
  for (std::size_t c = 0; c < chunks.size(); ++c) {
    for (std::size_t at = 0; at + 1 < data[c].links.size(); at += 2)
      children.insert(Endpoint{chunks[c], data[c].links[at]});
  }
  for (std::size_t c = 0; c < chunks.size(); ++c) {
    ChunkData& chunk = data[c];
    for (const Fragment& fragment : chunk.fragments) {
      for (std::int64_t i = 1; i < FragmentSize(fragment); ++i) {
        const std::int64_t row = FragmentRow(fragment, i);
        if (children.contains(Endpoint{chunks[c], row})) continue;
        chunk.links.push_back(row);
        chunk.links.push_back(FragmentRow(fragment, i - 1));
      }
    }
  }
}

// Assigns global numbers to the selected vertices and copies their data.
void SelectVertices(const ReadQuery& query, const LevelContents& contents,
                    const std::vector<ChunkCoord>& chunks, std::vector<ChunkData>& data,
                    LevelGeometry& out) {
  Geometry& geometry = out.geometry;
  const bool has_ids = std::any_of(data.begin(), data.end(),
                                   [](const ChunkData& d) { return !d.object_ids.empty(); });
  for (const std::string& name : contents.vertex_attribute_names)
    geometry.vertex_attributes.push_back({name, {}});
  for (std::size_t c = 0; c < chunks.size(); ++c) {
    ChunkData& chunk = data[c];
    chunk.global.assign(chunk.vertices.size(), -1);
    for (std::size_t vi = 0; vi < chunk.vertices.size(); ++vi) {
      const std::int64_t id = chunk.object_ids.empty() ? 0 : chunk.object_ids[vi];
      if (query.bbox && !query.bbox->Contains(chunk.vertices[vi])) continue;
      if (query.object_id && (chunk.object_ids.empty() || id != *query.object_id)) continue;
      chunk.global[vi] = static_cast<std::int64_t>(geometry.positions.size());
      geometry.positions.push_back(chunk.vertices[vi]);
      if (has_ids) geometry.object_ids.push_back(id);
      for (std::size_t a = 0; a < chunk.vertex_attributes.size(); ++a) {
        geometry.vertex_attributes[a].values.push_back(chunk.vertex_attributes[a][vi]);
      }
      out.identity.push_back(Endpoint{chunks[c], static_cast<std::int64_t>(vi)});
    }
  }
}

// Appends the link `endpoints` (global numbers) when all were selected; false otherwise.
bool AddLink(std::span<const std::int64_t> globals, Geometry& geometry) {
  for (const std::int64_t g : globals) {
    if (g < 0) return false;
  }
  geometry.links.insert(geometry.links.end(), globals.begin(), globals.end());
  return true;
}

Status AddChunkLinks(const VectorStore& store, int level, const LevelContents& contents,
                     const std::vector<ChunkCoord>& chunks, const std::vector<ChunkData>& data,
                     Geometry& geometry) {
  const int width = contents.link_width;
  std::vector<std::int64_t> globals(width);
  for (std::size_t c = 0; c < chunks.size(); ++c) {
    const ChunkData& chunk = data[c];
    for (std::size_t row = 0; row * width < chunk.links.size(); ++row) {
      for (int e = 0; e < width; ++e) {
        const std::int64_t vi = chunk.links[row * width + e];
        if (vi < 0 || static_cast<std::size_t>(vi) >= chunk.global.size()) {
          return Status::Corruption(store.Describe(layout::LinksBlobPath(level, 0, chunks[c])) +
                                    ": vi " + std::to_string(vi) + " is not a vertex of the chunk");
        }
        globals[e] = chunk.global[vi];
      }
      if (!AddLink(globals, geometry)) continue;
      for (std::size_t a = 0; a < contents.link_attributes.size(); ++a) {
        const int channels = contents.link_attributes[a].channels;
        const auto& values = chunk.link_attributes[a];
        geometry.link_attributes[a].values.insert(geometry.link_attributes[a].values.end(),
                                                  values.begin() + row * channels,
                                                  values.begin() + (row + 1) * channels);
      }
    }
  }
  return Status::Ok();
}

// Probing more keys than this costs more than listing a level of a typical store.
constexpr double kMaxProbes = 4096;

// Every chunk key a small box overlaps, in key order; nullopt when there are too many to probe.
std::optional<std::vector<ChunkCoord>> ChunksOfBox(const BoundingBox& box,
                                                   const Vec3& chunk_shape) {
  ChunkCoord low{}, high{};
  double count = 1;
  for (int d = 0; d < 3; ++d) {
    if (!(box.min[d] <= box.max[d])) return std::vector<ChunkCoord>{};
    const double first =
        std::ceil(box.min[d] / chunk_shape[d]) - 1;  // As Overlaps: touching counts.
    const double last = std::floor(box.max[d] / chunk_shape[d]);
    if (!(std::abs(first) < 1e15 && std::abs(last) < 1e15)) return std::nullopt;
    low[d] = static_cast<std::int64_t>(first);
    high[d] = static_cast<std::int64_t>(last);
    count *= static_cast<double>(high[d] - low[d] + 1);
  }
  if (count > kMaxProbes) return std::nullopt;
  std::vector<ChunkCoord> chunks;
  for (std::int64_t x = low[0]; x <= high[0]; ++x) {
    for (std::int64_t y = low[1]; y <= high[1]; ++y) {
      for (std::int64_t z = low[2]; z <= high[2]; ++z) chunks.push_back({x, y, z});
    }
  }
  return chunks;
}

// The chunks to read: for a small box every chunk key it overlaps (absent ones read as empty),
// which spares listing a large level; otherwise the listed chunks, less those outside the box.
Result<std::vector<ChunkCoord>> CandidateChunks(const VectorStore& store, int level,
                                                const ReadQuery& query) {
  const Vec3& chunk_shape = store.metadata().chunk_shape;
  if (query.bbox) {
    if (std::optional<std::vector<ChunkCoord>> probed = ChunksOfBox(*query.bbox, chunk_shape)) {
      return *std::move(probed);
    }
  }
  CHUNKWISE_ASSIGN_OR_RETURN(std::vector<ChunkCoord> chunks,
                             ListChunks(store, level, layout::kVerticesDir));
  if (query.bbox) {
    std::erase_if(chunks, [&](const ChunkCoord& chunk) {
      return !Overlaps(chunk, chunk_shape, *query.bbox);
    });
  }
  return chunks;
}

// The keys of every cell whose chunks are all among `chunks` (sorted), or nullopt when there
// are too many to probe: the nondecreasing `width`-tuples, less those of a single chunk.
std::optional<std::vector<std::string>> CandidateCells(const std::vector<ChunkCoord>& chunks,
                                                       int width) {
  double count = 1;  // C(k + width − 1, width) tuples.
  for (int i = 1; i <= width; ++i) count = count * static_cast<double>(chunks.size() + i - 1) / i;
  if (chunks.empty() || count > kMaxProbes)
    return chunks.empty() ? std::optional(std::vector<std::string>{}) : std::nullopt;
  std::vector<std::string> keys;
  std::vector<std::size_t> index(width, 0);
  std::vector<ChunkCoord> cell(width);
  while (true) {
    if (index.front() != index.back()) {
      for (int i = 0; i < width; ++i) cell[i] = chunks[index[i]];
      keys.push_back(FormatCellKey(cell));
    }
    int i = width - 1;
    while (i >= 0 && index[i] + 1 == chunks.size()) --i;
    if (i < 0) break;
    ++index[i];
    for (int j = i + 1; j < width; ++j) index[j] = index[i];
  }
  std::sort(keys.begin(), keys.end());
  return keys;
}

Result<std::vector<std::int64_t>> GlobalsOf(const VectorStore& store, const std::string& cell_path,
                                            std::span<const Endpoint> endpoints,
                                            const std::map<ChunkCoord, std::size_t>& chunk_index,
                                            const std::vector<ChunkData>& data) {
  std::vector<std::int64_t> globals;
  for (const Endpoint& endpoint : endpoints) {
    const auto found = chunk_index.find(endpoint.chunk);
    if (found == chunk_index.end()) {
      globals.push_back(-1);
      continue;
    }
    const std::vector<std::int64_t>& global = data[found->second].global;
    if (endpoint.vi < 0 || static_cast<std::size_t>(endpoint.vi) >= global.size()) {
      return Status::Corruption(store.Describe(cell_path) + ": vi " + std::to_string(endpoint.vi) +
                                " is not a vertex of chunk " + FormatChunkKey(endpoint.chunk));
    }
    globals.push_back(global[endpoint.vi]);
  }
  return globals;
}

// Layout 0.9: the links of other offsets than 0.0.0 whose source chunk is read;
// those with an endpoint outside the read chunks are dropped as cross-chunk
// records are (AddLink).
// `preread`, when given, holds those links of every source chunk already.
Status AddOffsetLinks(const VectorStore& store, int level, const LevelContents& contents,
                      const std::vector<ChunkCoord>& chunks, const std::vector<ChunkData>& data,
                      const std::vector<Endpoint>* preread, Geometry& geometry) {
  const int width = contents.link_width;
  if (width == 0) return Status::Ok();
  std::vector<ChunkCoord> sorted = chunks;
  std::sort(sorted.begin(), sorted.end());
  std::vector<Endpoint> endpoints;
  std::vector<std::vector<float>> attributes;
  if (preread) {
    endpoints = *preread;
  } else {
    CHUNKWISE_ASSIGN_OR_RETURN(endpoints, ReadOffsetLinks(store, level, 0, width, &sorted,
                                                          &contents.link_attributes, &attributes));
  }
  std::map<ChunkCoord, std::size_t> chunk_index;
  for (std::size_t c = 0; c < chunks.size(); ++c) chunk_index[chunks[c]] = c;
  const std::string path = v0_9::LinksPath(level, 0);
  for (std::size_t at = 0; at + width <= endpoints.size(); at += width) {
    CHUNKWISE_ASSIGN_OR_RETURN(
        std::vector<std::int64_t> globals,
        GlobalsOf(store, path, std::span(&endpoints[at], width), chunk_index, data));
    if (!AddLink(globals, geometry)) continue;
    const std::size_t record = at / width;
    for (std::size_t a = 0; a < attributes.size(); ++a) {
      const auto channels = static_cast<std::size_t>(contents.link_attributes[a].channels);
      geometry.link_attributes[a].values.insert(geometry.link_attributes[a].values.end(),
                                                attributes[a].begin() + record * channels,
                                                attributes[a].begin() + (record + 1) * channels);
    }
  }
  return Status::Ok();
}

Status AddCrossChunkLinks(const VectorStore& store, int level, const LevelContents& contents,
                          const std::vector<ChunkCoord>& chunks, const std::vector<ChunkData>& data,
                          const std::vector<Endpoint>* preread, Geometry& geometry) {
  if (store.metadata().layout == LayoutVersion::k0_9) {
    return AddOffsetLinks(store, level, contents, chunks, data, preread, geometry);
  }
  CHUNKWISE_ASSIGN_OR_RETURN(std::optional<CrossChunkFamily> family,
                             ReadCrossChunkFamily(store, level, 0, /*list_cells=*/false));
  if (!family || family->num_links == 0) return Status::Ok();
  const int width = contents.link_width;
  if (family->link_width != width) {
    return Status::Corruption(store.Describe(layout::CrossChunkLinksPath(level, 0)) +
                              ": link_width does not match the geometry type");
  }
  std::map<ChunkCoord, std::size_t> chunk_index;
  for (std::size_t c = 0; c < chunks.size(); ++c) chunk_index[chunks[c]] = c;
  // Attribute rows are numbered over every cell, so with attributes every cell is read.
  const bool read_all = !contents.link_attributes.empty();
  const std::optional<std::vector<std::string>> probed =
      read_all ? std::nullopt : CandidateCells(chunks, width);
  if (!probed) {
    CHUNKWISE_ASSIGN_OR_RETURN(family, ReadCrossChunkFamily(store, level, 0));
  }
  std::vector<std::string> picked;
  for (const std::string& cell_key : probed ? *probed : family->cell_keys) {
    Result<std::vector<ChunkCoord>> cell_chunks = ParseCellKey(cell_key, width);
    if (!cell_chunks.ok()) {
      return cell_chunks.status().WithContext(
          store.Describe(layout::CrossChunkCellPath(level, 0, cell_key)));
    }
    const bool inside =
        std::all_of(cell_chunks->begin(), cell_chunks->end(),
                    [&](const ChunkCoord& chunk) { return chunk_index.contains(chunk); });
    if (read_all || inside) picked.push_back(cell_key);
  }
  std::vector<std::vector<Endpoint>> cells(picked.size());
  CHUNKWISE_RETURN_IF_ERROR(store.pool().ParallelFor(picked.size(), [&](std::size_t i) -> Status {
    CHUNKWISE_ASSIGN_OR_RETURN(cells[i], ReadCrossChunkCell(store, level, 0, picked[i], width));
    return Status::Ok();
  }));
  std::vector<std::vector<float>> attributes;
  for (const LinkAttributeInfo& info : contents.link_attributes) {
    CHUNKWISE_ASSIGN_OR_RETURN(std::vector<float> values,
                               ReadCrossChunkLinkAttribute(store, level, info, 0));
    attributes.push_back(std::move(values));
  }
  std::size_t record = 0;
  for (std::size_t i = 0; i < picked.size(); ++i) {
    const std::string cell_path = layout::CrossChunkCellPath(level, 0, picked[i]);
    for (std::size_t at = 0; at < cells[i].size(); at += width, ++record) {
      CHUNKWISE_ASSIGN_OR_RETURN(
          std::vector<std::int64_t> globals,
          GlobalsOf(store, cell_path, std::span(&cells[i][at], width), chunk_index, data));
      if (!AddLink(globals, geometry)) continue;
      for (std::size_t a = 0; a < attributes.size(); ++a) {
        const int channels = contents.link_attributes[a].channels;
        if ((record + 1) * channels > attributes[a].size()) {
          return Status::Corruption(store.Describe(cell_path) + ": more records than num_links");
        }
        geometry.link_attributes[a].values.insert(geometry.link_attributes[a].values.end(),
                                                  attributes[a].begin() + record * channels,
                                                  attributes[a].begin() + (record + 1) * channels);
      }
    }
  }
  return Status::Ok();
}

}  // namespace

bool BoundingBox::Contains(const Vec3f& position) const {
  for (int d = 0; d < 3; ++d) {
    if (position[d] < min[d] || position[d] > max[d]) return false;
    if (exclusive_max && position[d] >= max[d]) return false;
  }
  return true;
}

Result<BoundingBox> ParseRegionBox(std::string_view text) {
  constexpr double kInfinity = std::numeric_limits<double>::infinity();
  BoundingBox box{{-kInfinity, -kInfinity, -kInfinity}, {kInfinity, kInfinity, kInfinity}, true};
  auto error = [&](int axis, std::string_view field, const std::string& why) {
    return Status::InvalidArgument("invalid region \"" + std::string(text) + "\": axis " +
                                   std::string(1, "xyz"[axis]) + " (\"" + std::string(field) +
                                   "\"): " + why);
  };
  // An empty bound keeps `out`; false when the text is not a number.
  auto bound = [](std::string_view bound_text, double& out) {
    const std::string trimmed(core::TrimSpaces(bound_text));
    if (trimmed.empty()) return true;
    char* end = nullptr;
    const double value = std::strtod(trimmed.c_str(), &end);
    if (end != trimmed.c_str() + trimmed.size() || std::isnan(value)) return false;
    out = value;
    return true;
  };
  if (core::TrimSpaces(text).empty()) return box;
  std::string_view rest = text;
  for (int axis = 0;; ++axis) {
    const std::size_t comma = rest.find(',');
    const std::string_view field = rest.substr(0, comma);
    if (axis >= 3) {
      return Status::InvalidArgument("invalid region \"" + std::string(text) +
                                     "\": more than three axes (x, y, z)");
    }
    const std::size_t colon = field.find(':');
    if (colon == std::string_view::npos || field.find(':', colon + 1) != std::string_view::npos) {
      return error(axis, field, "expected start:stop");
    }
    if (!bound(field.substr(0, colon), box.min[axis]))
      return error(axis, field, "start is not a number");
    if (!bound(field.substr(colon + 1), box.max[axis]))
      return error(axis, field, "stop is not a number");
    if (box.min[axis] > box.max[axis]) return error(axis, field, "start is after stop");
    if (comma == std::string_view::npos) break;
    rest.remove_prefix(comma + 1);
  }
  return box;
}

Result<LevelGeometry> ReadGeometry(const VectorStore& store, const ReadQuery& query) {
  const int level = query.level;
  if (level < 0 || level >= store.metadata().num_levels) {
    return Status::NotFound("level " + std::to_string(level) + " is not in the store (it has " +
                            std::to_string(store.metadata().num_levels) + ")");
  }
  CHUNKWISE_RETURN_IF_ERROR(store.ReadLevel(level).status());
  CHUNKWISE_ASSIGN_OR_RETURN(const LevelContents contents, ReadContents(store, level));
  CHUNKWISE_ASSIGN_OR_RETURN(const std::vector<ChunkCoord> chunks,
                             CandidateChunks(store, level, query));
  std::vector<ChunkData> data(chunks.size());
  // From a remote store the chunks' blobs come in groups, each group's
  // requests one batch from this thread (VectorStore::WithBlobsFetched), so
  // that the pool only decodes; elsewhere each pool task reads its chunk.
  const bool batched = store.fetches_blobs_in_batches();
  const std::size_t group = batched ? kChunksPerFetch : std::max<std::size_t>(chunks.size(), 1);
  for (std::size_t first = 0; first < chunks.size(); first += group) {
    const std::size_t count = std::min(group, chunks.size() - first);
    std::optional<VectorStore> fetched;
    if (batched) {
      fetched = store.WithBlobsFetched(
          ChunkBlobPaths(level, contents, std::span(chunks).subspan(first, count)));
    }
    const VectorStore& view = fetched ? *fetched : store;
    CHUNKWISE_RETURN_IF_ERROR(store.pool().ParallelFor(count, [&](std::size_t j) {
      const std::size_t c = first + j;
      if (query.cancellation != nullptr && query.cancellation->cancelled()) {
        return query.cancellation->Check("reading level " + std::to_string(level));
      }
      CHUNKWISE_RETURN_IF_ERROR(ReadChunk(view, level, chunks[c], contents, data[c]));
      if (query.progress != nullptr) query.progress->Add(1);
      return Status::Ok();
    }));
  }
  // A skeleton's stored links may come from cells of chunks outside a box;
  // all are read, since any may override a vertex's implicit parent.
  std::optional<std::vector<Endpoint>> offset_links;
  if (contents.implicit_parents) {
    CHUNKWISE_ASSIGN_OR_RETURN(offset_links,
                               ReadOffsetLinks(store, level, 0, contents.link_width, nullptr));
    AddImplicitParents(chunks, *offset_links, data);
  }
  LevelGeometry out;
  out.geometry.type = store.metadata().geometry_type;
  for (const LinkAttributeInfo& info : contents.link_attributes) {
    out.geometry.link_attributes.push_back({info.name, info.channels, {}});
  }
  SelectVertices(query, contents, chunks, data, out);
  if (contents.link_width == 0) return out;
  CHUNKWISE_RETURN_IF_ERROR(AddChunkLinks(store, level, contents, chunks, data, out.geometry));
  CHUNKWISE_RETURN_IF_ERROR(AddCrossChunkLinks(
      store, level, contents, chunks, data, offset_links ? &*offset_links : nullptr, out.geometry));
  return out;
}

Result<std::vector<CrossLevelLink>> ReadParents(const VectorStore& store, int level) {
  int width = 2;
  CHUNKWISE_ASSIGN_OR_RETURN(std::vector<Endpoint> endpoints,
                             ReadAllLinks(store, level, +1, &width));
  if (width != 2) {
    return Status::Corruption(store.Describe(layout::LinksPath(level, +1)) +
                              ": cross-level links must have link_width 2");
  }
  std::vector<CrossLevelLink> links;
  links.reserve(endpoints.size() / 2);
  for (std::size_t i = 0; i + 1 < endpoints.size(); i += 2)
    links.push_back({endpoints[i], endpoints[i + 1]});
  return links;
}

Result<std::vector<CrossLevelLink>> ReadChildren(const VectorStore& store, int level) {
  CHUNKWISE_ASSIGN_OR_RETURN(std::optional<int> stored_width, ReadLinkWidth(store, level, -1));
  if (stored_width) {
    int width = 2;
    CHUNKWISE_ASSIGN_OR_RETURN(std::vector<Endpoint> endpoints,
                               ReadAllLinks(store, level, -1, &width));
    if (width != 2) {
      return Status::Corruption(store.Describe(layout::LinksPath(level, -1)) +
                                ": cross-level links must have link_width 2");
    }
    std::vector<CrossLevelLink> links;
    for (std::size_t i = 0; i + 1 < endpoints.size(); i += 2)
      links.push_back({endpoints[i], endpoints[i + 1]});
    return links;
  }
  if (level == 0) return std::vector<CrossLevelLink>();
  // Implicit storage: walk the +1 links of the finer level and swap the roles.
  CHUNKWISE_ASSIGN_OR_RETURN(std::vector<CrossLevelLink> parents, ReadParents(store, level - 1));
  for (CrossLevelLink& link : parents) std::swap(link.owner, link.target);
  return parents;
}

}  // namespace chunkwise::formats::vectors
