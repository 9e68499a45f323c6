// Object membership of a layout-0.9 level: <level>/object_index/.
//
// Spec: docs/formats/vectors.md, "Layout 0.9", "Object ids". Where 0.8 keeps
// an int64 `object_id` vertex attribute, 0.9 names, for each object, the
// vertex fragments (vertex_fragments/, one ZVFG index per chunk) that hold its
// vertices: row r of the 1-d `manifests` array (variable_length_bytes) is the
// manifest of the object whose id is row r of the 1-d int64 `object_ids`
// array. A manifest is `u32 B` blocks, each `i64 chunk[3]`, `u8 mode` and
// then: mode 0 `i64 fragment`; mode 1 `i64 start, i64 count` (fragments
// start..start+count-1); mode 2 `u32 n, i64 fragments[n]`; little-endian,
// nothing after the last block. For polylines the blocks are in walk order.
// Pure functions besides the store reads and writes; thread-safe.
#ifndef CHUNKWISE_FORMATS_VECTORS_OBJECT_INDEX_H_
#define CHUNKWISE_FORMATS_VECTORS_OBJECT_INDEX_H_

#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "chunkwise/core/bytes.h"
#include "chunkwise/core/result.h"
#include "formats/vectors/paths.h"
#include "formats/vectors/vector_store.h"

namespace chunkwise::formats::vectors {

// Fragments start..start+count-1 of a chunk.
struct FragmentRange {
  std::int64_t start = 0;
  std::int64_t count = 1;
  bool operator==(const FragmentRange&) const = default;
};

// The fragments of one chunk that an object owns.
struct ManifestBlock {
  ChunkCoord chunk{};
  std::vector<FragmentRange> fragments;
  bool operator==(const ManifestBlock&) const = default;
};

// Corruption naming `where` for a truncated manifest, an unknown mode, a
// negative fragment number or count, or bytes after the last block. Ranges
// stay ranges (a hostile count allocates nothing).
Result<std::vector<ManifestBlock>> DecodeObjectManifest(ByteView blob, std::string_view where);
// Each block as mode 0 (one fragment), 1 (one range) or 2 (a list).
Bytes EncodeObjectManifest(std::span<const ManifestBlock> blocks);

// Which object owns each named fragment of a chunk: first fragment of a
// range -> (one past its last, object id).
struct OwnedRange {
  std::int64_t end = 0;
  std::int64_t id = 0;
};
using ChunkOwners = std::map<std::int64_t, OwnedRange>;
using FragmentOwners = std::map<ChunkCoord, ChunkOwners>;
// The id of the object owning `fragment`; nullopt when no manifest names it.
std::optional<std::int64_t> OwnerOf(const ChunkOwners& owners, std::int64_t fragment);

// The owners recorded in <level>/object_index/; nullopt when the level has
// none. InvalidArgument naming the array for metadata we cannot read,
// Corruption naming the chunk for data that does not decode or a fragment two
// objects claim.
Result<std::optional<FragmentOwners>> ReadObjectIndex(const VectorStore& store, int level);

struct ObjectManifest {
  std::int64_t id = 0;
  std::vector<ManifestBlock> blocks;
};
// Writes <level>/object_index/ for `objects` (ascending ids), uncompressed.
// Goes to the raw store: the group is not a family VectorStore keeps for Publish.
Status WriteObjectIndex(const VectorStore& store, int level,
                        std::span<const ObjectManifest> objects);

}  // namespace chunkwise::formats::vectors

#endif  // CHUNKWISE_FORMATS_VECTORS_OBJECT_INDEX_H_
