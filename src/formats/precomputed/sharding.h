// neuroglancer_uint64_sharded_v1: which shard and minishard hold a chunk, and
// the byte layout of a shard file (its shard index and minishard indexes).
//
// Format: docs/formats/precomputed.md §Sharding. A chunk id (the compressed
// Morton code of a volume chunk) is shifted right by preshift_bits, hashed
// (identity or murmurhash3_x86_128), and split: the low minishard_bits pick
// the minishard, the next shard_bits the shard, whose file is
// "<hex>.shard" (lowercase, zero-padded to ceil(shard_bits / 4) digits). A
// shard starts with a fixed index of 2^minishard_bits [start, end) pairs
// (uint64le, relative to the end of that index) locating each minishard's
// index; a minishard index is three uint64le arrays [ids][offsets][sizes] of
// n entries, ids delta-coded, offsets coded relative to the end of the prior
// chunk (the first relative to the end of the shard index); it may be gzipped.
//
// All functions are pure and thread-safe. Parsers never read outside their
// input and check every offset against the shard's size.
#ifndef CHUNKWISE_FORMATS_PRECOMPUTED_SHARDING_H_
#define CHUNKWISE_FORMATS_PRECOMPUTED_SHARDING_H_

#include <cstdint>
#include <nlohmann/json.hpp>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "chunkwise/core/bytes.h"
#include "chunkwise/core/result.h"

namespace chunkwise::formats::precomputed {

enum class ShardHash { kIdentity, kMurmurHash3X86_128 };
// How minishard indexes, or chunk data, are stored in a shard.
enum class ShardEncoding { kRaw, kGzip };

struct ShardingSpec {
  int preshift_bits = 0;
  int minishard_bits = 0;
  int shard_bits = 0;
  ShardHash hash = ShardHash::kIdentity;
  ShardEncoding minishard_index_encoding = ShardEncoding::kRaw;
  ShardEncoding data_encoding = ShardEncoding::kRaw;

  std::uint64_t num_minishards() const { return std::uint64_t{1} << minishard_bits; }
  // Bytes of the shard index at the start of each shard.
  std::uint64_t shard_index_size() const { return 16 * num_minishards(); }
  bool operator==(const ShardingSpec&) const = default;
};

// Parses a "sharding" object. InvalidArgument naming `where` and the field
// for a missing or mistyped field, bit counts outside 0..64, minishard_bits
// above 32 (a shard index of more than 64 GiB), or minishard + shard bits
// past 64; Unsupported for another @type, hash or encoding.
Result<ShardingSpec> ParseShardingSpec(const nlohmann::json& json, std::string_view where);
nlohmann::json ShardingSpecToJson(const ShardingSpec& spec);

// The hashed id of `chunk_id`: hash(chunk_id >> preshift_bits).
std::uint64_t HashedChunkId(const ShardingSpec& spec, std::uint64_t chunk_id);

struct ChunkShard {
  std::uint64_t shard = 0;
  std::uint64_t minishard = 0;
  bool operator==(const ChunkShard&) const = default;
};
ChunkShard LocateChunk(const ShardingSpec& spec, std::uint64_t chunk_id);

// "<hex>.shard", e.g. "0a3.shard" for shard 0xa3 with shard_bits 12; "0.shard"
// when shard_bits is 0.
std::string ShardFileName(const ShardingSpec& spec, std::uint64_t shard);

// [start, end) of one minishard index in the shard file, absolute offsets.
struct MinishardSpan {
  std::uint64_t start = 0;
  std::uint64_t end = 0;
  bool empty() const { return start == end; }
};

// Parses the shard index (spec.shard_index_size() bytes) of a shard of
// `shard_size` bytes. Corruption naming `name` if the index is short, or a
// minishard's start passes its end or its end passes the shard.
Result<std::vector<MinishardSpan>> ParseShardIndex(ByteView index, const ShardingSpec& spec,
                                                   std::uint64_t shard_size, std::string_view name);

// One chunk a minishard index lists: its id and absolute byte range.
struct MinishardEntry {
  std::uint64_t chunk_id = 0;
  std::uint64_t offset = 0;
  std::uint64_t size = 0;
  bool operator==(const MinishardEntry&) const = default;
};

// Parses a decoded minishard index (24·n bytes). Corruption naming `name`
// and the minishard if its length is not a multiple of 24, an id or offset
// overflows, a chunk's range passes the end of the `shard_size`-byte shard,
// or a chunk id hashes to another minishard.
Result<std::vector<MinishardEntry>> ParseMinishardIndex(ByteView decoded, const ShardingSpec& spec,
                                                        std::uint64_t shard_size,
                                                        std::uint64_t minishard,
                                                        std::string_view name);

// Decodes (gunzips, when so encoded) and parses the stored minishard index
// `stored`, with the errors of ParseMinishardIndex and Corruption for bad
// gzip data or a decoded index larger than the shard could describe.
Result<std::vector<MinishardEntry>> DecodeMinishardIndex(ByteView stored, const ShardingSpec& spec,
                                                         std::uint64_t shard_size,
                                                         std::uint64_t minishard,
                                                         std::string_view name);

// A chunk to place in a shard: its id and its bytes as stored (already
// data-encoded).
struct ShardChunk {
  std::uint64_t chunk_id = 0;
  ByteView data;
};

// A shard file as the parts Store::SetParts writes one after another: the
// shard index, then per non-empty minishard its chunks (in id order) and its
// minishard index. `parts` point into `chunks`' data and into the buffers
// this value owns, so both must outlive the parts.
struct ShardImage {
  std::vector<ByteView> parts;
  std::uint64_t size = 0;
  std::vector<Bytes> owned;  // The shard index and the minishard indexes.
};

// Lays out a shard of `chunks` (any order). InvalidArgument if two chunks
// share an id or a chunk belongs to another shard than the first one's.
Result<ShardImage> BuildShard(std::vector<ShardChunk> chunks, const ShardingSpec& spec);

}  // namespace chunkwise::formats::precomputed

#endif  // CHUNKWISE_FORMATS_PRECOMPUTED_SHARDING_H_
