// The self-describing ragged blob of links and cross-chunk cells, and the
// link rows it holds.
//
// Spec: docs/formats/vectors.md, "Blob layouts" and "Pitfalls settled" (2):
//   i64 K; i64 off[K] (byte offset of group k from the start of the data
//   section, off[0] == 0); data. Group k is [off[k], off[k+1]); the last
//   group ends at the blob end. Little-endian.
// A blob whose off[0] == 8·(1+K) was written with blob-relative offsets; the
// decoder accepts it too (tolerant read). Pure functions, thread-safe.
#ifndef CHUNKWISE_FORMATS_VECTORS_RAGGED_BLOB_H_
#define CHUNKWISE_FORMATS_VECTORS_RAGGED_BLOB_H_

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "chunkwise/core/bytes.h"
#include "chunkwise/core/result.h"

namespace chunkwise::formats::vectors {

// The blob holding `groups` in order (K = groups.size()).
Bytes EncodeRaggedBlob(std::span<const ByteView> groups);
// The groups of `blob`, as views into it. Corruption naming `key` when the
// header is short, K does not fit, offsets are not non-decreasing inside the
// data, or K is 0 and data follows (records no group accounts for).
Result<std::vector<ByteView>> DecodeRaggedBlob(ByteView blob, std::string_view key);

// A links/<delta>/<chunk_key> blob: one group of `rows` (M × link_width int64, row-major).
Bytes EncodeLinkBlob(std::span<const std::int64_t> rows);
// Every row of every group of a link blob, concatenated; Corruption naming
// `key` when the blob is malformed or a group is not whole rows of `link_width`.
Result<std::vector<std::int64_t>> DecodeLinkBlob(ByteView blob, int link_width,
                                                 std::string_view key);

}  // namespace chunkwise::formats::vectors

#endif  // CHUNKWISE_FORMATS_VECTORS_RAGGED_BLOB_H_
