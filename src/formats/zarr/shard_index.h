// The shard index of the zarr v3 `sharding_indexed` codec, as a pure byte format.
//
// Spec: docs/formats/zarr-shard-index.md ("Layout", "Checks on read", "Writing"). A shard
// holding n inner chunks carries an index of n (offset, nbytes) pairs, each a little-endian
// uint64, followed by the CRC32C of those 16·n bytes as a little-endian uint32: 16·n + 4
// bytes in all. Entry k belongs to the inner chunk whose row-major position in the shard is
// k. Offsets count from the start of the shard object whether the index sits at its start
// or its end. An entry whose two fields are both 2^64−1 marks an empty chunk (read as
// fill_value). This file only encodes and decodes those bytes; reading and writing shards
// is done elsewhere.
#ifndef CHUNKWISE_FORMATS_ZARR_SHARD_INDEX_H_
#define CHUNKWISE_FORMATS_ZARR_SHARD_INDEX_H_

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <utility>
#include <vector>

#include "chunkwise/core/bytes.h"
#include "chunkwise/core/result.h"

namespace chunkwise::formats::zarr {

// The value of both fields of an empty entry.
inline constexpr std::uint64_t kEmptyChunk = ~std::uint64_t{0};

// Where one inner chunk lies in its shard: `nbytes` bytes from byte `offset` of the shard.
struct ChunkLocation {
  std::uint64_t offset = kEmptyChunk;
  std::uint64_t nbytes = kEmptyChunk;

  // Whether this is the empty marker: both fields 2^64−1.
  bool empty() const { return offset == kEmptyChunk && nbytes == kEmptyChunk; }
  bool operator==(const ChunkLocation&) const = default;
};

// The `index_location` of the sharding configuration.
enum class IndexLocation { kStart, kEnd };

// How far a writer must shift the offsets of data laid out from byte 0 of a data buffer:
// 0 when the index is at the end, 16·n + 4 when it is at the start (errata 3). Apply the
// shift before Encode, which computes the CRC.
std::uint64_t DataOffsetShift(IndexLocation location, std::size_t n);

// The n entries of one shard's index. A plain value type; not synchronised.
class ShardIndex {
 public:
  // An index of `n` empty entries.
  static ShardIndex Empty(std::size_t n);

  // The encoded size of an index of `n` entries: 16·n + 4.
  static std::size_t EncodedSize(std::size_t n);

  // Parses an encoded index of `n` entries taken from the shard stored under `shard_key`
  // (used in messages only), whose whole object is `shard_size` bytes. Returns Corruption,
  // naming the key, if `bytes` is not 16·n + 4 bytes long, if the checksum does not match,
  // if an entry has exactly one field equal to 2^64−1, if a non-empty entry ends past
  // `shard_size`, or, for IndexLocation::kStart, if a non-empty entry begins inside the
  // index. A zero-length entry is accepted; whether it decodes is the inner codecs' call.
  static Result<ShardIndex> Decode(ByteView bytes, std::size_t n, std::uint64_t shard_size,
                                   std::string_view shard_key,
                                   IndexLocation location = IndexLocation::kEnd);

  // The number of entries, n.
  std::size_t size() const { return entries_.size(); }

  // Entry k. REQUIRES: k < size().
  const ChunkLocation& at(std::size_t k) const;

  // Replaces entry k; the empty marker is allowed. REQUIRES: k < size().
  void Set(std::size_t k, ChunkLocation location);

  // Whether every entry is empty; such a shard should not be written at all.
  bool all_empty() const;

  // The 16·n + 4 bytes of this index: the entries then their CRC32C.
  Bytes Encode() const;

 private:
  explicit ShardIndex(std::vector<ChunkLocation> entries) : entries_(std::move(entries)) {}

  std::vector<ChunkLocation> entries_;
};

}  // namespace chunkwise::formats::zarr

#endif  // CHUNKWISE_FORMATS_ZARR_SHARD_INDEX_H_
