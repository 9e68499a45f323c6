// Cross-chunk records: the canonical endpoint sort, the cell key, and the
// cell blob of cross_chunk_links/<delta>/<cell_key>.
//
// Spec: docs/formats/vectors.md, "Blob layouts" (`cross_chunk_links`). A
// record's L endpoints (chunk, vi), in input order (endpoint 0 at the owning
// level), are sorted lexicographically by chunk, ties by vi; the cell key is
// the sorted chunks joined with dots, and the record stores perm_idx
// (lehmer_permutation.h) and the vi in sorted order. The cell blob is a ragged
// blob (ragged_blob.h) with one group per record: i64 perm_idx, then L × i64
// vi. Pure functions.
#ifndef CHUNKWISE_FORMATS_VECTORS_CROSS_CHUNK_RECORD_H_
#define CHUNKWISE_FORMATS_VECTORS_CROSS_CHUNK_RECORD_H_

#include <compare>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "chunkwise/core/bytes.h"
#include "chunkwise/core/result.h"
#include "formats/vectors/paths.h"

namespace chunkwise::formats::vectors {

// One endpoint of a link: the chunk it lives in and its row in that chunk's vertices.
struct Endpoint {
  ChunkCoord chunk{};
  std::int64_t vi = 0;
  auto operator<=>(const Endpoint&) const = default;
};

// A record as stored: perm_idx and the vi in canonical slot order.
struct CellRecord {
  std::int64_t perm_idx = 0;
  std::vector<std::int64_t> vi;
  bool operator==(const CellRecord&) const = default;
};

// A record after the canonical sort: where it goes and what it stores.
struct CanonicalRecord {
  std::vector<ChunkCoord> chunks;  // Sorted; FormatCellKey(chunks) is the cell key.
  CellRecord record;
};

// Sorts `input` (REQUIRES: 1 <= size <= kMaxLinkWidth) into its canonical form.
CanonicalRecord Canonicalize(std::span<const Endpoint> input);
// The input-order endpoints of `record` stored in the cell whose sorted chunks
// are `chunks`; OutOfRange for a bad perm_idx, InvalidArgument when the vi
// count differs from the chunk count.
Result<std::vector<Endpoint>> RestoreInputOrder(std::span<const ChunkCoord> chunks,
                                                const CellRecord& record);

// The cell blob of `records`. REQUIRES: each has `link_width` vi.
Bytes EncodeCellBlob(std::span<const CellRecord> records);
// The records of a cell blob; Corruption naming `key` when the ragged blob is
// malformed or a record is not 1 + link_width int64.
Result<std::vector<CellRecord>> DecodeCellBlob(ByteView blob, int link_width, std::string_view key);

}  // namespace chunkwise::formats::vectors

#endif  // CHUNKWISE_FORMATS_VECTORS_CROSS_CHUNK_RECORD_H_
