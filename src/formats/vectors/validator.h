// Validation of a zarr-vectors store at levels L1, L3 and L4.
//
// Spec: docs/formats/vectors.md, "Validation". Violations are values, not
// errors: a store another writer got wrong yields a list of findings, each
// with the offending node's path. Levels are cumulative (L3 runs L1's checks;
// 2 behaves as 1):
//   L1 structural: root and level metadata parse; links/0 exists for every
//      linked geometry; any delta != 0 family needs capability
//      multiscale_links; every blob decodes (vertices, fragment index, link
//      blobs, cells) and delta segments and chunk keys parse.
//   L3 consistency: cell keys have arity 3·link_width and are canonically
//      sorted; every endpoint's chunk exists (vertex_fragments) at its level
//      (delta 0: all endpoints here; delta != 0: the owning endpoint here, the
//      other at level + delta); vi below the chunk's vertex count; perm_idx
//      below L!; num_links matches the records and the attribute arrays; link
//      attribute rows match link rows.
//   L4 semantic (opt-in, full scan): for each delta > 0, the owning endpoints
//      cover every vertex of the level.
#ifndef CHUNKWISE_FORMATS_VECTORS_VALIDATOR_H_
#define CHUNKWISE_FORMATS_VECTORS_VALIDATOR_H_

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "chunkwise/core/result.h"
#include "chunkwise/store/store.h"

namespace chunkwise::formats::vectors {

enum class ViolationKind {
  kBadMetadata,              // L1: root/level/family metadata missing or malformed.
  kMissingLinks,             // L1: links/0 absent for a linked geometry.
  kMissingCapability,        // L1: delta != 0 without multiscale_links.
  kMalformedBlob,            // L1: a blob that does not decode, a bad key or delta segment.
  kBadCellKey,               // L3: cell key arity or order.
  kMissingChunk,             // L3: an endpoint's chunk is not in vertex_fragments.
  kVertexIndexOutOfRange,    // L3: vi >= the chunk's vertex count.
  kBadPermIdx,               // L3: perm_idx >= L!.
  kNumLinksMismatch,         // L3: family num_links differs from records or attributes.
  kAttributeLengthMismatch,  // L3: link attribute rows differ from link rows.
  kOrphanVertex,             // L4: a vertex with no link at delta > 0.
};

std::string_view ViolationKindName(ViolationKind kind);

struct Violation {
  int level = 1;  // The validation level that found it (1, 3 or 4).
  ViolationKind kind = ViolationKind::kBadMetadata;
  std::string path;  // Relative to the store root, e.g. "0/cross_chunk_links/0/0.0.0.1.0.0".
  std::string message;
};

// Validates the store at `prefix` up to `validation_level` (1..4). Errors only
// for I/O failures; everything wrong with the store's contents is a Violation.
Result<std::vector<Violation>> ValidateStore(std::shared_ptr<store::Store> store,
                                             std::string prefix, int validation_level);

}  // namespace chunkwise::formats::vectors

#endif  // CHUNKWISE_FORMATS_VECTORS_VALIDATOR_H_
