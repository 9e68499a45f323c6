#include "formats/vectors/validator.h"

#include <algorithm>
#include <map>
#include <set>

#include "formats/vectors/cross_chunk_record.h"
#include "formats/vectors/fragment_index.h"
#include "formats/vectors/layout.h"
#include "formats/vectors/lehmer_permutation.h"
#include "formats/vectors/level_reader.h"
#include "formats/vectors/ragged_blob.h"

namespace chunkwise::formats::vectors {
namespace {

std::string Node(const std::string& path) {
  return !path.empty() && path.back() == '/' ? path.substr(0, path.size() - 1) : path;
}

// Chunks and their vertex counts at one level.
struct LevelChunks {
  std::map<ChunkCoord, std::int64_t> vertex_count;  // From vertices/.
  std::set<ChunkCoord> fragment_chunks;             // From vertex_fragments/.
};

class Validator {
 public:
  Validator(const VectorStore& store, int validation_level)
      : store_(store), depth_(validation_level) {}

  std::vector<Violation> Run() {
    const int levels = store_.metadata().num_levels;
    chunks_.resize(levels);
    for (int level = 0; level < levels; ++level) ScanLevel(level);
    for (int level = 0; level < levels; ++level) CheckLinks(level);
    if (depth_ >= 4) {
      for (int level = 0; level < levels; ++level) CheckCoverage(level);
    }
    return std::move(violations_);
  }

 private:
  void Add(int level, ViolationKind kind, const std::string& path, std::string message) {
    violations_.push_back(Violation{level, kind, Node(path), std::move(message)});
  }

  std::optional<std::vector<ChunkCoord>> Chunks(const std::string& path) {
    Result<std::vector<std::string>> children = store_.ListChildren(path);
    if (!children.ok()) {
      Add(1, ViolationKind::kMalformedBlob, path, children.status().ToString());
      return std::nullopt;
    }
    std::vector<ChunkCoord> chunks;
    for (const std::string& child : *children) {
      Result<ChunkCoord> chunk = ParseChunkKey(child);
      if (chunk.ok()) {
        chunks.push_back(*chunk);
      } else {
        Add(1, ViolationKind::kMalformedBlob, path + child, "not a chunk key");
      }
    }
    return chunks;
  }

  void ScanLevel(int level) {
    Result<LevelMetadata> metadata = store_.ReadLevel(level);
    if (!metadata.ok()) {
      Add(1, ViolationKind::kBadMetadata, layout::LevelPath(level) + "zarr.json",
          metadata.status().ToString());
    }
    for (const ChunkCoord& chunk : Chunks(layout::FamilyPath(level, layout::kVerticesDir))
                                       .value_or(std::vector<ChunkCoord>{})) {
      Result<std::vector<Vec3f>> vertices = ReadChunkVertices(store_, level, chunk);
      if (!vertices.ok()) {
        Add(1, ViolationKind::kMalformedBlob,
            layout::ChunkBlobPath(level, layout::kVerticesDir, chunk),
            vertices.status().ToString());
        continue;
      }
      chunks_[level].vertex_count[chunk] = static_cast<std::int64_t>(vertices->size());
    }
    for (const ChunkCoord& chunk : Chunks(layout::FamilyPath(level, layout::kFragmentsDir))
                                       .value_or(std::vector<ChunkCoord>{})) {
      chunks_[level].fragment_chunks.insert(chunk);
      CheckFragments(level, chunk);
    }
    if (metadata.ok()) CheckVertexCount(level, metadata->vertex_count);
  }

  // The level's vertex_count (what `vectors info` reports) against the chunks.
  // 0 is what a level without the attribute reads as, so it is not held to it.
  void CheckVertexCount(int level, std::uint64_t declared) {
    std::uint64_t held = 0;
    for (const auto& [chunk, count] : chunks_[level].vertex_count) {
      held += static_cast<std::uint64_t>(count);
    }
    if (declared != 0 && declared != held) {
      Add(1, ViolationKind::kBadMetadata, layout::LevelPath(level) + "zarr.json",
          "vertex_count " + std::to_string(declared) + ", but the level's chunks hold " +
              std::to_string(held) + " vertices");
    }
  }

  void CheckFragments(int level, const ChunkCoord& chunk) {
    const std::string path = layout::ChunkBlobPath(level, layout::kFragmentsDir, chunk);
    Result<std::optional<Bytes>> blob = store_.ReadBlob(path);
    Result<std::vector<Fragment>> fragments =
        blob.ok() && *blob ? DecodeFragmentIndex(**blob, path)
                           : Result<std::vector<Fragment>>(std::vector<Fragment>{});
    if (!blob.ok() || !fragments.ok()) {
      Add(1, ViolationKind::kMalformedBlob, path,
          (!blob.ok() ? blob.status() : fragments.status()).ToString());
      return;
    }
    const std::int64_t count =
        chunks_[level].vertex_count.contains(chunk) ? chunks_[level].vertex_count[chunk] : 0;
    for (const Fragment& fragment : *fragments) {
      bool inside = fragment.is_range
                        ? fragment.start >= 0 && fragment.count >= 0 &&
                              fragment.start <= count - fragment.count
                        : std::all_of(fragment.indices.begin(), fragment.indices.end(),
                                      [&](std::int64_t i) { return i >= 0 && i < count; });
      if (!inside && depth_ >= 3) {
        Add(3, ViolationKind::kVertexIndexOutOfRange, path,
            "a fragment names rows beyond the chunk's " + std::to_string(count) + " vertices");
        return;
      }
    }
  }

  // Checks that `endpoint` names a vertex of an existing chunk at `level`.
  void CheckEndpoint(int level, const Endpoint& endpoint, const std::string& path) {
    if (depth_ < 3) return;
    if (level < 0 || level >= static_cast<int>(chunks_.size()) ||
        !chunks_[level].fragment_chunks.contains(endpoint.chunk)) {
      Add(3, ViolationKind::kMissingChunk, path,
          "endpoint chunk " + FormatChunkKey(endpoint.chunk) + " is not in level " +
              std::to_string(level) + "'s vertex_fragments");
      return;
    }
    const auto found = chunks_[level].vertex_count.find(endpoint.chunk);
    const std::int64_t count = found == chunks_[level].vertex_count.end() ? 0 : found->second;
    if (endpoint.vi < 0 || endpoint.vi >= count) {
      Add(3, ViolationKind::kVertexIndexOutOfRange, path,
          "vi " + std::to_string(endpoint.vi) + " in chunk " + FormatChunkKey(endpoint.chunk) +
              " of " + std::to_string(count) + " vertices");
    }
  }

  std::vector<int> Deltas(const std::string& family_path) {
    std::vector<int> deltas;
    Result<std::vector<std::string>> children = store_.ListChildren(family_path);
    for (const std::string& child : children.ok() ? *children : std::vector<std::string>{}) {
      Result<int> delta = ParseDelta(child);
      if (delta.ok()) {
        deltas.push_back(*delta);
      } else {
        Add(1, ViolationKind::kMalformedBlob, family_path + child, delta.status().ToString());
      }
    }
    return deltas;
  }

  void CheckLinks(int level) {
    if (LinkWidthOf(store_.metadata().geometry_type) > 0) {
      Result<std::optional<nlohmann::json>> family =
          store_.ReadGroupAttributes(layout::LinksPath(level, 0));
      if (!family.ok() || !*family) {
        Add(1, ViolationKind::kMissingLinks, layout::LinksPath(level, 0),
            family.ok() ? "links/0 is absent for a linked geometry" : family.status().ToString());
      }
    }
    for (const int delta : Deltas(layout::FamilyPath(level, layout::kLinksDir))) {
      CheckCapability(level, delta, layout::LinksPath(level, delta));
      CheckChunkLinks(level, delta);
    }
    for (const int delta : Deltas(layout::FamilyPath(level, layout::kCrossChunkLinksDir))) {
      CheckCapability(level, delta, layout::CrossChunkLinksPath(level, delta));
      CheckCells(level, delta);
    }
    if (depth_ >= 3) CheckCrossAttributes(level);
  }

  void CheckCapability(int level, int delta, const std::string& path) {
    if (delta != 0 && !store_.metadata().HasCapability(layout::kCapabilityMultiscaleLinks)) {
      Add(1, ViolationKind::kMissingCapability, path,
          "delta " + FormatDelta(delta) + " needs capability multiscale_links");
    }
  }

  void CheckChunkLinks(int level, int delta);
  void CheckCells(int level, int delta);
  void CheckCell(int level, int delta, const std::string& cell_key, int width,
                 std::uint64_t& records);
  void CheckCrossAttributes(int level);
  void CheckCoverage(int level);

  const VectorStore& store_;
  const int depth_;
  std::vector<LevelChunks> chunks_;
  std::map<std::pair<int, int>, std::set<Endpoint>>
      owners_;  // (level, delta > 0) → owning endpoints.
  std::vector<Violation> violations_;
};

void Validator::CheckChunkLinks(int level, int delta) {
  Result<std::optional<int>> width = ReadLinkWidth(store_, level, delta);
  const std::string family = layout::LinksPath(level, delta);
  if (!width.ok() || !*width) {
    Add(1, ViolationKind::kBadMetadata, family,
        width.ok() ? "no link_width" : width.status().ToString());
    return;
  }
  Result<std::vector<LinkAttributeInfo>> attributes = ListLinkAttributes(store_, level, delta);
  if (!attributes.ok())
    Add(1, ViolationKind::kBadMetadata, layout::FamilyPath(level, layout::kLinkAttributesDir),
        attributes.status().ToString());
  for (const ChunkCoord& chunk : Chunks(family).value_or(std::vector<ChunkCoord>{})) {
    const std::string path = layout::LinksBlobPath(level, delta, chunk);
    Result<std::vector<std::int64_t>> rows = ReadChunkLinks(store_, level, chunk, **width, delta);
    if (!rows.ok()) {
      Add(1, ViolationKind::kMalformedBlob, path, rows.status().ToString());
      continue;
    }
    for (std::size_t at = 0; at < rows->size(); at += **width) {
      for (int e = 0; e < **width; ++e) {
        CheckEndpoint(e == 0 ? level : level + delta, Endpoint{chunk, (*rows)[at + e]}, path);
      }
      if (delta > 0) owners_[{level, delta}].insert(Endpoint{chunk, (*rows)[at]});
    }
    if (depth_ < 3 || !attributes.ok()) continue;
    for (const LinkAttributeInfo& info : *attributes) {
      Result<std::vector<float>> values =
          ReadChunkLinkAttribute(store_, level, info, delta, chunk, rows->size() / **width);
      if (!values.ok()) {
        Add(3, ViolationKind::kAttributeLengthMismatch,
            layout::LinkAttributeBlobPath(level, info.name, delta, chunk),
            values.status().ToString());
      }
    }
  }
}

void Validator::CheckCells(int level, int delta) {
  const std::string family_path = layout::CrossChunkLinksPath(level, delta);
  Result<std::optional<CrossChunkFamily>> family = ReadCrossChunkFamily(store_, level, delta);
  if (!family.ok() || !*family) {
    Add(1, ViolationKind::kBadMetadata, family_path,
        family.ok() ? "no family metadata" : family.status().ToString());
    return;
  }
  std::uint64_t records = 0;
  for (const std::string& cell_key : (*family)->cell_keys)
    CheckCell(level, delta, cell_key, (*family)->link_width, records);
  if (depth_ >= 3 && records != (*family)->num_links) {
    Add(3, ViolationKind::kNumLinksMismatch, family_path,
        "num_links " + std::to_string((*family)->num_links) + " but the cells hold " +
            std::to_string(records));
  }
}

void Validator::CheckCell(int level, int delta, const std::string& cell_key, int width,
                          std::uint64_t& records) {
  const std::string path = layout::CrossChunkCellPath(level, delta, cell_key);
  Result<std::vector<ChunkCoord>> chunks = ParseCellKey(cell_key, width);
  if (!chunks.ok() || !std::is_sorted(chunks->begin(), chunks->end())) {
    if (depth_ >= 3)
      Add(3, ViolationKind::kBadCellKey, path,
          chunks.ok() ? "chunks are not in canonical order" : chunks.status().ToString());
    return;
  }
  Result<std::optional<Bytes>> blob = store_.ReadBlob(path);
  Result<std::vector<CellRecord>> cell =
      blob.ok() && *blob ? DecodeCellBlob(**blob, width, path)
                         : Result<std::vector<CellRecord>>(std::vector<CellRecord>{});
  if (!blob.ok() || !cell.ok()) {
    Add(1, ViolationKind::kMalformedBlob, path,
        (!blob.ok() ? blob.status() : cell.status()).ToString());
    return;
  }
  records += cell->size();
  for (const CellRecord& record : *cell) {
    Result<std::vector<Endpoint>> input = RestoreInputOrder(*chunks, record);
    if (!input.ok()) {
      if (depth_ >= 3) Add(3, ViolationKind::kBadPermIdx, path, input.status().ToString());
      continue;
    }
    for (int e = 0; e < width; ++e)
      CheckEndpoint(e == 0 || delta == 0 ? level : level + delta, (*input)[e], path);
    if (delta > 0) owners_[{level, delta}].insert((*input)[0]);
  }
}

void Validator::CheckCrossAttributes(int level) {
  const std::string base = layout::FamilyPath(level, layout::kCrossChunkLinkAttributesDir);
  Result<std::vector<std::string>> names = store_.ListChildren(base);
  for (const std::string& name : names.ok() ? *names : std::vector<std::string>{}) {
    for (const int delta : Deltas(base + name + "/")) {
      const std::string path = layout::CrossChunkLinkAttributePath(level, name, delta);
      Result<std::optional<CrossChunkFamily>> family = ReadCrossChunkFamily(store_, level, delta);
      const std::uint64_t expected = family.ok() && *family ? (*family)->num_links : 0;
      Result<std::optional<nlohmann::json>> group = store_.ReadGroupAttributes(path);
      const nlohmann::json stated =
          group.ok() && *group ? (*group)->value("num_links", nlohmann::json()) : nlohmann::json();
      if (!stated.is_number_integer() ||
          stated.get<std::int64_t>() != static_cast<std::int64_t>(expected)) {
        Add(3, ViolationKind::kNumLinksMismatch, path,
            "num_links " + stated.dump() + " differs from the cross-chunk family's " +
                std::to_string(expected));
        continue;
      }
      const nlohmann::json shape = (*group)->value("shape", nlohmann::json::array());
      const int channels = shape.is_array() && shape.size() == 2 && shape[1].is_number_integer()
                               ? shape[1].get<int>()
                               : 1;
      Result<std::vector<float>> values =
          ReadCrossChunkLinkAttribute(store_, level, LinkAttributeInfo{name, channels}, delta);
      if (!values.ok())
        Add(3, ViolationKind::kNumLinksMismatch, path + "data", values.status().ToString());
    }
  }
}

void Validator::CheckCoverage(int level) {
  for (const auto& [key, owners] : owners_) {
    if (key.first != level) continue;
    for (const auto& [chunk, count] : chunks_[level].vertex_count) {
      std::int64_t missing = 0;
      std::int64_t first = -1;
      for (std::int64_t vi = 0; vi < count; ++vi) {
        if (owners.contains(Endpoint{chunk, vi})) continue;
        if (missing++ == 0) first = vi;
      }
      if (missing > 0) {
        Add(4, ViolationKind::kOrphanVertex,
            layout::ChunkBlobPath(level, layout::kVerticesDir, chunk),
            std::to_string(missing) + " of " + std::to_string(count) + " vertices have no " +
                FormatDelta(key.second) + " link (first vi " + std::to_string(first) + ")");
      }
    }
  }
}

}  // namespace

std::string_view ViolationKindName(ViolationKind kind) {
  switch (kind) {
    case ViolationKind::kBadMetadata:
      return "bad_metadata";
    case ViolationKind::kMissingLinks:
      return "missing_links";
    case ViolationKind::kMissingCapability:
      return "missing_capability";
    case ViolationKind::kMalformedBlob:
      return "malformed_blob";
    case ViolationKind::kBadCellKey:
      return "bad_cell_key";
    case ViolationKind::kMissingChunk:
      return "missing_chunk";
    case ViolationKind::kVertexIndexOutOfRange:
      return "vertex_index_out_of_range";
    case ViolationKind::kBadPermIdx:
      return "bad_perm_idx";
    case ViolationKind::kNumLinksMismatch:
      return "num_links_mismatch";
    case ViolationKind::kAttributeLengthMismatch:
      return "attribute_length_mismatch";
    case ViolationKind::kOrphanVertex:
      return "orphan_vertex";
  }
  return "unknown";
}

Result<std::vector<Violation>> ValidateStore(std::shared_ptr<store::Store> store,
                                             std::string prefix, int validation_level) {
  if (validation_level < 1 || validation_level > 4) {
    return Status::InvalidArgument("validation level must be 1..4, got " +
                                   std::to_string(validation_level));
  }
  VectorStoreOptions options;
  options.pool = std::make_shared<core::ThreadPool>(1);
  Result<VectorStore> opened = VectorStore::Open(std::move(store), std::move(prefix), options);
  if (!opened.ok()) {
    if (opened.status().code() == StatusCode::kIOError) return opened.status();
    return std::vector<Violation>{
        Violation{1, ViolationKind::kBadMetadata, "zarr.json", opened.status().ToString()}};
  }
  // The checks below walk the 0.8 tree; on a 0.9 store they would report its
  // arrays as malformed blobs.
  if (opened->metadata().layout != LayoutVersion::k0_8) {
    return Status::Unsupported(opened->Describe("zarr.json") + ": validate checks layout 0.8; " +
                               "this store is zarr-vectors " + opened->metadata().version);
  }
  return Validator(*opened, validation_level).Run();
}

}  // namespace chunkwise::formats::vectors
