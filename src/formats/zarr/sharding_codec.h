// The `sharding_indexed` codec: a shard is a grid of inner chunks, each encoded
// by an inner codec chain, packed one after another, plus an index.
//
// Spec: docs/formats/zarr.md, "Sharding codec". The index layout is in
// shard_index.h; this file is the codec around it. As an ordinary array→bytes
// codec it encodes and decodes whole shards, so shards nest. ShardStore
// (shard_store.h) also uses the pieces below to read only the inner chunks a
// region touches and to rewrite only those of a shard that a write changes. Inner
// chunks equal to the fill value are left out (empty index entries).
//
// The codec holds no execution state: the thread pool and the scratch
// buffers come with each call (ShardCallContext). Through the plain codec
// interface (Encode, Decode: a nested shard, or sharding followed by other
// codecs), a shard is coded on the calling thread, which a caller already
// running one task per shard or per outer inner chunk keeps busy. Nesting
// depth is bounded where inner chains are built (the registry). Immutable and
// thread-safe.
#ifndef CHUNKWISE_FORMATS_ZARR_SHARDING_CODEC_H_
#define CHUNKWISE_FORMATS_ZARR_SHARDING_CODEC_H_

#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "chunkwise/core/buffer_pool.h"
#include "chunkwise/core/region.h"
#include "chunkwise/core/thread_pool.h"
#include "chunkwise/store/byte_range.h"
#include "codec/codec.h"
#include "codec/codec_chain.h"
#include "codec/codec_registry.h"
#include "core/chunk_grid.h"
#include "core/ravel.h"
#include "formats/zarr/shard_index.h"
#include "formats/zarr/shard_scratch.h"

namespace chunkwise::formats::zarr {

inline constexpr std::string_view kShardingCodecName = "sharding_indexed";

// Fetches `nbytes` bytes at `offset` of a shard. It may return a view into a
// buffer it holds or fill `scratch` and return a view of that.
using ShardByteReader =
    std::function<Result<ByteView>(std::uint64_t offset, std::uint64_t nbytes, Bytes& scratch)>;

// Where a shard call runs, given per call rather than kept in the codec: the
// inner chunks are encoded and decoded on `pool` (null: on the calling
// thread), in buffers borrowed from `scratch` (null: the call's own, which
// last that call; pass one that outlives many calls to reuse its memory).
struct ShardCallContext {
  core::ThreadPool* pool = nullptr;
  ShardScratch* scratch = nullptr;
  // Lends shard-sized buffers (fetched chunks, freshly encoded slots); null:
  // the call allocates its own.
  core::BufferPool* buffers = nullptr;
  // How a read that needs several inner chunks of one shard asks the store
  // for them: their byte ranges joined into as few requests as the limits
  // allow, fetched in one batch and then decoded on the pool; or, where
  // the store's kind is not coalesced, one request per inner chunk, made by
  // the thread that decodes it just before it does.
  store::ReadCoalescing coalescing = {};
};

// The index codecs chunkwise reads and writes: [bytes little, crc32c].
const nlohmann::json& ShardIndexCodecs();

// Reads from a whole shard already in memory; `shard` must outlive the reader.
// Offsets are trusted: ShardIndex::Decode has bounded every entry by the shard size.
ShardByteReader MemoryShardReader(ByteView shard);

// The part of a shard a write supplies: the shard-local box `box` comes from
// the dense buffer `source`, whose element at box.start is at source.origin.
struct ShardWriteSource {
  core::StridedSource source;
  core::Region box;
};

// An encoded shard as the pieces of its object in order (the index first or
// last): a store can write them one after another without joining them. The
// views point into heap memory the members own, so moving keeps them valid.
struct EncodedShard {
  std::vector<ByteView> parts;
  core::BufferPool::Lease slots;  // Freshly encoded inner chunks, one slot each.
  // Inner chunks in buffers of their own: carried over from the old shard, or
  // encoded so when the shard has too many chunks for slots.
  std::vector<Bytes> owned;
  Bytes index;

  // The whole object in one buffer.
  Bytes Join() const;
};

class ShardingCodec final : public codec::ArrayToBytesCodec {
 public:
  // Parses the configuration; inner and index chains come from `registry`.
  // InvalidArgument for malformed fields, Unsupported for index codecs other
  // than [bytes little, crc32c].
  static Result<std::shared_ptr<const ShardingCodec>> FromJson(
      const nlohmann::json& configuration, const codec::CodecRegistry& registry);

  std::string_view name() const override { return kShardingCodecName; }
  nlohmann::json ToJson() const override;
  // Encodes a whole shard of `spec` (its shape is the shard shape), on the
  // calling thread.
  Result<Bytes> Encode(const codec::ChunkSpec& spec, ByteView data) const override;
  Result<Bytes> Decode(const codec::ChunkSpec& spec, ByteView encoded) const override;
  // Every inner chunk at its inner chain's bound, plus the index.
  std::size_t MaxEncodedSize(const codec::ChunkSpec& spec) const override;

  const core::Shape& chunk_shape() const { return chunk_shape_; }
  const codec::CodecChain& inner_codecs() const { return inner_codecs_; }
  IndexLocation index_location() const { return index_location_; }

  // InvalidArgument unless `shard_shape` has the inner chunks' rank and each
  // extent is a positive multiple of the inner chunk's.
  Status CheckShardShape(const core::Shape& shard_shape) const;
  // The inner chunk spec and grid of a shard of `shard_spec`. REQUIRES: CheckShardShape passed.
  codec::ChunkSpec InnerSpec(const codec::ChunkSpec& shard_spec) const;
  core::RegularChunkGrid InnerGrid(const core::Shape& shard_shape) const;

  // Reads and checks the index of a shard of `shard_size` bytes stored under `key`.
  Result<ShardIndex> ReadIndex(const ShardByteReader& read, std::uint64_t shard_size, std::size_t n,
                               std::string_view key) const;

  // Decodes the inner chunks meeting the shard-local box `box` and copies that
  // box to `destination` (the element at box.start goes to destination.origin);
  // empty chunks give the fill value. Corruption names `key` and the chunk.
  Status DecodeRegion(const codec::ChunkSpec& shard_spec, const ShardIndex& index,
                      const ShardByteReader& read, const core::Region& box,
                      const core::StridedDestination& destination, std::string_view key,
                      const ShardCallContext& context = {}) const;

  // Encodes a shard from `write` merged over an existing shard (`old_index`
  // and `read_old`, or nullopt for none): inner chunks the box misses keep
  // their old bytes, chunks it covers are encoded afresh, chunks it cuts are
  // decoded, overlaid and re-encoded. Returns nullopt when every inner chunk
  // is empty (the shard should not be stored). Inner chunks are encoded as
  // `context` says, as DecodeRegion decodes them.
  Result<std::optional<EncodedShard>> EncodeMerged(const codec::ChunkSpec& shard_spec,
                                                   const ShardWriteSource& write,
                                                   const std::optional<ShardIndex>& old_index,
                                                   const ShardByteReader& read_old,
                                                   std::string_view key,
                                                   const ShardCallContext& context = {}) const;

  // A shard of already encoded inner chunks (`chunks[k]` for row-major
  // position k; an empty view: not stored), laid out in order with its
  // index, as EncodeMerged lays them out. The parts point into `chunks`'
  // memory, which must outlive the result. Nullopt when every chunk is empty.
  std::optional<EncodedShard> Pack(std::span<const ByteView> chunks) const;

 private:
  ShardingCodec(core::Shape chunk_shape, codec::CodecChain inner_codecs,
                nlohmann::json index_codecs, IndexLocation index_location);

  static Status ForEachInner(core::ThreadPool* pool, std::size_t n,
                             const std::function<Status(std::size_t)>& body);
  // Lays out the stored inner chunks (sizes[k] > 0; owned[k] when not empty,
  // else slot k) and the index.
  void Assemble(EncodedShard& shard, std::span<const std::size_t> sizes,
                std::size_t slot_size) const;
  // Lays out `chunks` (empty: not stored) and their index as shard.parts.
  void LayOut(EncodedShard& shard, std::span<const ByteView> chunks) const;

  core::Shape chunk_shape_;
  codec::CodecChain inner_codecs_;
  nlohmann::json index_codecs_;
  IndexLocation index_location_;
};

// The builtin codecs plus `sharding_indexed`: the registry zarr arrays use.
// The sharding codec's inner chains resolve through a registry of the
// builtins (with the encoders `build` chooses) plus sharding again, so shards
// nest (deeper than 8: InvalidArgument).
codec::CodecRegistry ZarrCodecRegistry(const codec::CodecBuildOptions& build = {});

}  // namespace chunkwise::formats::zarr

#endif  // CHUNKWISE_FORMATS_ZARR_SHARDING_CODEC_H_
