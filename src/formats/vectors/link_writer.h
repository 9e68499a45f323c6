// Writes one level-delta's links: chunk-local rows and cross-chunk cells, with
// their attributes.
//
// Spec: docs/formats/vectors.md, "Blob layouts" (links, cells, attributes). A
// record whose endpoints all carry the chunk key of endpoint 0 (the owning
// endpoint) becomes a row of links/<delta>/<that key>; any other becomes a
// record of cross_chunk_links/<delta>/<cell_key>, canonically sorted with its
// perm_idx. For delta != 0 the key comparison is literal across two grids
// ("Pitfalls settled", 3). Attributes follow the same split: flat rows in
// link_attributes/<name>/<delta>/<chunk_key>, and one row per cross-chunk
// record in cross_chunk_link_attributes/<name>/<delta>/data, in the
// enumeration order cells-by-ASCII-key, then stored order ("Pitfalls settled", 6).
#ifndef CHUNKWISE_FORMATS_VECTORS_LINK_WRITER_H_
#define CHUNKWISE_FORMATS_VECTORS_LINK_WRITER_H_

#include <vector>

#include "formats/vectors/cross_chunk_record.h"
#include "formats/vectors/geometry.h"
#include "formats/vectors/vector_store.h"

namespace chunkwise::formats::vectors {

// Links in (chunk, vi) form, input order: link_width endpoints per record.
struct LinkRecords {
  int link_width = 2;
  std::vector<Endpoint> endpoints;
  std::vector<LinkAttribute> attributes;  // channels values per record each.

  std::size_t size() const { return link_width == 0 ? 0 : endpoints.size() / link_width; }
};

// What was written, for summaries and metadata.
struct LinkWriteSummary {
  std::uint64_t chunk_links = 0;        // Rows under links/<delta>/.
  std::uint64_t cross_chunk_links = 0;  // Records under cross_chunk_links/<delta>/.
};

// Writes `records` at (level, delta). The links/<delta>/ family group is
// always written (L1 wants links/0 even when empty); the cross-chunk family
// only when it has records. InvalidArgument when an attribute's length is not
// channels × records (the length invariant), or the width is out of range.
// In a layout-0.9 store every record goes to links/<delta>/<offsets>/ with
// link_fragments/ for the intra-chunk rows (docs/formats/vectors.md, "Layout
// 0.9"); there only delta 0 is written (else Unsupported), attributes in
// link_attributes/<name>/0/<offsets>/ parallel to the links arrays.
Result<LinkWriteSummary> WriteLinkRecords(const VectorStore& store, int level, int delta,
                                          const LinkRecords& records);

}  // namespace chunkwise::formats::vectors

#endif  // CHUNKWISE_FORMATS_VECTORS_LINK_WRITER_H_
