// Reading the families of one level: chunk listings, per-chunk blobs, links
// at any delta, cross-chunk cells and link attributes.
//
// Spec: docs/formats/vectors.md, "Blob layouts" and "Reading". These are the
// building blocks of the geometry reader, the pyramid builder and the
// validator. An absent node is no data (empty result), not an error; a node
// another writer got wrong is Corruption or InvalidArgument naming its path.
// Thread-safe: all functions only read.
#ifndef CHUNKWISE_FORMATS_VECTORS_LEVEL_READER_H_
#define CHUNKWISE_FORMATS_VECTORS_LEVEL_READER_H_

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "formats/vectors/cross_chunk_record.h"
#include "formats/vectors/geometry.h"
#include "formats/vectors/vector_store.h"

namespace chunkwise::formats::vectors {

// The chunks with a node under `family` (kVerticesDir or kFragmentsDir), sorted.
// InvalidArgument naming the path for a child that is not a chunk key.
Result<std::vector<ChunkCoord>> ListChunks(const VectorStore& store, int level,
                                           std::string_view family);
// The chunk keys directly under the layout path `path` (e.g. links/<delta>/), sorted.
Result<std::vector<ChunkCoord>> ListChunksAt(const VectorStore& store, const std::string& path);

Result<std::vector<Vec3f>> ReadChunkVertices(const VectorStore& store, int level,
                                             const ChunkCoord& chunk);
// The chunk's object ids (int64 rows), empty when the store has none.
Result<std::vector<std::int64_t>> ReadChunkObjectIds(const VectorStore& store, int level,
                                                     const ChunkCoord& chunk);
// A float32 vertex attribute's rows in the chunk; empty when absent.
Result<std::vector<float>> ReadChunkVertexAttribute(const VectorStore& store, int level,
                                                    const std::string& name,
                                                    const ChunkCoord& chunk);
// The float32 vertex attributes of a level (object_id excluded).
Result<std::vector<std::string>> ListVertexAttributes(const VectorStore& store, int level);

// The deltas present under links/ (resp. cross_chunk_links/), sorted ascending.
Result<std::vector<int>> ListLinkDeltas(const VectorStore& store, int level);
Result<std::vector<int>> ListCrossLinkDeltas(const VectorStore& store, int level);
// link_width from the family group attributes of links/<delta>/ or
// cross_chunk_links/<delta>/; nullopt when neither exists.
Result<std::optional<int>> ReadLinkWidth(const VectorStore& store, int level, int delta);

// The rows (link_width int64 each) of links/<delta>/<chunk>; empty when absent.
Result<std::vector<std::int64_t>> ReadChunkLinks(const VectorStore& store, int level,
                                                 const ChunkCoord& chunk, int link_width,
                                                 int delta);

// The family attributes of cross_chunk_links/<delta>/ and its cells in enumeration order.
struct CrossChunkFamily {
  int link_width = 2;
  std::uint64_t num_links = 0;
  std::vector<std::string> cell_keys;  // ASCII order.
};
// nullopt when the family is absent (writers skip empty families). Without
// `list_cells`, cell_keys stays empty (a box read that knows its candidate cells).
Result<std::optional<CrossChunkFamily>> ReadCrossChunkFamily(const VectorStore& store, int level,
                                                             int delta, bool list_cells = true);
// The records of one cell, each as link_width endpoints in input order.
Result<std::vector<Endpoint>> ReadCrossChunkCell(const VectorStore& store, int level, int delta,
                                                 const std::string& cell_key, int link_width);
// Every cross-chunk record at (level, delta) in enumeration order, endpoints in
// input order (link_width per record); empty when the family is absent or empty.
Result<std::vector<Endpoint>> ReadCrossChunkLinks(const VectorStore& store, int level, int delta);

// Both kinds of links at (level, delta) as endpoint tuples in input order:
// chunk rows first (chunk order), then cross-chunk records. For delta != 0
// columns 1.. of a chunk row live in the same chunk key at level + delta.
Result<std::vector<Endpoint>> ReadAllLinks(const VectorStore& store, int level, int delta,
                                           int* link_width);

// A link attribute: its name and channels, from link_attributes/<name>/<delta>/.
struct LinkAttributeInfo {
  std::string name;
  int channels = 1;
  int link_width = 0;  // Layout 0.9: the links' width, which names the intra-chunk segment.
};
// Layout 0.9: the records of every links/<delta>/<offsets>/ array other than
// the intra-chunk one (0.0.0), endpoints in input order (link_width per
// record); with `sources` (sorted), only the cells of those source chunks.
// Empty for a 0.8 store. With `attributes`, `values` gets each attribute's
// rows (channels floats per record, parallel to the records) from the
// link_attributes/<name>/<delta>/<offsets>/ cells; Corruption naming the
// cell when one does not hold a row per record.
Result<std::vector<Endpoint>> ReadOffsetLinks(
    const VectorStore& store, int level, int delta, int link_width,
    const std::vector<ChunkCoord>* sources,
    const std::vector<LinkAttributeInfo>* attributes = nullptr,
    std::vector<std::vector<float>>* values = nullptr);

Result<std::vector<LinkAttributeInfo>> ListLinkAttributes(const VectorStore& store, int level,
                                                          int delta);
// The chunk's attribute rows for `rows` links: flat rows, or a ragged blob of them.
Result<std::vector<float>> ReadChunkLinkAttribute(const VectorStore& store, int level,
                                                  const LinkAttributeInfo& attribute, int delta,
                                                  const ChunkCoord& chunk, std::size_t rows);
// The attribute rows of the blob (or 0.9 cell) at `path`, as ReadChunkLinkAttribute.
Result<std::vector<float>> ReadLinkAttributeRows(const VectorStore& store, const std::string& path,
                                                 const LinkAttributeInfo& attribute,
                                                 std::size_t rows);
// cross_chunk_link_attributes/<name>/<delta>/data as floats; empty when absent.
// Corruption when its num_links differs from the cross-chunk family's.
Result<std::vector<float>> ReadCrossChunkLinkAttribute(const VectorStore& store, int level,
                                                       const LinkAttributeInfo& attribute,
                                                       int delta);

}  // namespace chunkwise::formats::vectors

#endif  // CHUNKWISE_FORMATS_VECTORS_LEVEL_READER_H_
