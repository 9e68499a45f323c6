// ShardStore: one shard of a sharded zarr array as a store of inner chunks.
//
// Spec: docs/formats/zarr.md, "Sharding codec"; the byte layout is in
// shard_index.h. A ShardStore is a view over one key of its parent Store: it
// reads the shard's index, gets one inner chunk or many (the ranges of many
// are read as one coalesced batch), decodes a box of the shard, and writes a
// whole shard or merges a partial write into the stored one. The sharding
// codec (sharding_codec.h) encodes and decodes; this class does the I/O.
// Array, and through it the reference builder, reach shards only this way.
//
// The execution context (thread pool, scratch buffers) is given per call
// (ShardCallContext, sharding_codec.h), not kept in the codec or the store.
// A ShardStore is cheap to build, holds references only (the parent store,
// codec and spec must outlive it) and is as thread-safe as its parent
// store: concurrent reads are safe.
#ifndef CHUNKWISE_FORMATS_ZARR_SHARD_STORE_H_
#define CHUNKWISE_FORMATS_ZARR_SHARD_STORE_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "chunkwise/codec/codec.h"
#include "chunkwise/core/bytes.h"
#include "chunkwise/core/region.h"
#include "chunkwise/core/result.h"
#include "chunkwise/core/thread_pool.h"
#include "chunkwise/formats/zarr/shard_index.h"
#include "chunkwise/formats/zarr/sharding_codec.h"
#include "chunkwise/store/store.h"

namespace chunkwise::formats::zarr {

class ShardStore {
 public:
  // The shard of `shard_spec` (its shape is the shard shape) stored under
  // `key` of `parent`. REQUIRES: codec.CheckShardShape(shard_spec.shape) passed.
  ShardStore(store::Store& parent, std::string key, const ShardingCodec& codec,
             const codec::ChunkSpec& shard_spec);

  const std::string& key() const { return key_; }
  // The number of inner chunks, n: the size of the index.
  std::size_t num_inner_chunks() const { return n_; }

  // The shard's index, or nullopt when no shard is stored. Corruption, naming
  // the key, for a shard shorter than its index or an index that fails its
  // checks. `shard_bytes` (may be null) gets the stored shard's size, known
  // from the same request.
  Result<std::optional<ShardIndex>> ReadIndex(std::uint64_t* shard_bytes = nullptr) const;

  // The encoded bytes of inner chunk `k` (row-major position in the shard),
  // or nullopt when it is empty or no shard is stored. InvalidArgument for k >= n.
  Result<std::optional<Bytes>> GetInner(std::size_t k) const;
  // GetInner for each of `ks`, in order; the stored ones are read in one batch
  // of byte ranges, adjacent ranges joined into one.
  Result<std::vector<std::optional<Bytes>>> GetInners(std::span<const std::size_t> ks) const;

  // Decodes the shard-local box `box` into `destination` (the element at
  // box.start goes to destination.origin); empty chunks, or a missing shard,
  // give the fill value. Returns whether a shard is stored.
  Result<bool> ReadRegion(const core::Region& box, const core::StridedDestination& destination,
                          const ShardCallContext& context) const;

  // Writes the shard-local box `write.box` from `write.source`. `replaces`
  // says the box covers every element of the shard inside the array (at the
  // array's edge, less than the shard shape): the shard is then encoded
  // without reading the stored one. A partial write merges over the
  // stored shard (through store::UpdateObject where the parent has
  // conditional writes, so concurrent writers of one shard lose nothing). A
  // shard left all fill value is erased.
  Status Write(const ShardWriteSource& write, bool replaces, const ShardCallContext& context);

  // Writes an already encoded whole shard as the pieces of its object.
  Status Put(const EncodedShard& shard);

 private:
  Result<std::optional<EncodedShard>> Merge(const ShardWriteSource& write,
                                            const std::optional<Bytes>& old,
                                            const ShardCallContext& context) const;
  Status WriteConditionally(const ShardWriteSource& write, const ShardCallContext& context);

  store::Store& parent_;
  std::string key_;
  std::string where_;  // The key as messages name it.
  const ShardingCodec& codec_;
  codec::ChunkSpec spec_;
  std::size_t n_;
};

}  // namespace chunkwise::formats::zarr

#endif  // CHUNKWISE_FORMATS_ZARR_SHARD_STORE_H_
