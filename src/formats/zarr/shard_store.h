// ShardStore: one shard of a sharded zarr array as a store of inner chunks.
//
// Spec: docs/formats/zarr.md, "Sharding codec"; the byte layout is in
// shard_index.h. A ShardStore is a store::Store over one key of its parent
// store (TensorStore's sharding key-value adapter is the model): its keys are
// the inner chunks' coordinates in the shard ("i/j/k", InnerKey), its values
// their encoded bytes, which it finds through the shard's index. Writes come
// in batches, so that a shard is written once however many inner chunks
// change: SetInners (encoded inner chunks) and Write (a box of elements,
// encoded through the sharding codec, only the touched inner chunks
// re-encoded) read the stored shard, merge and write it back through
// store::UpdateObject, the one read-merge-conditional-write loop; Set and
// Erase are batches of one. The sharding codec (sharding_codec.h) encodes
// and decodes; this class does the I/O. Array, and through it the reference
// builder, reach shards only this way.
//
// The execution context (thread pool, scratch buffers) is given per call
// (ShardCallContext, sharding_codec.h), not kept in the codec or the store.
// A ShardStore is cheap to build, holds references only (the parent store,
// codec and spec must outlive it) and is as thread-safe as its parent
// store: concurrent reads are safe, and concurrent writes lose nothing
// where the parent has conditional writes.
#ifndef CHUNKWISE_FORMATS_ZARR_SHARD_STORE_H_
#define CHUNKWISE_FORMATS_ZARR_SHARD_STORE_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "chunkwise/core/bytes.h"
#include "chunkwise/core/cancellation.h"
#include "chunkwise/core/region.h"
#include "chunkwise/core/result.h"
#include "chunkwise/core/thread_pool.h"
#include "chunkwise/store/generation.h"
#include "chunkwise/store/store.h"
#include "codec/codec.h"
#include "core/chunk_grid.h"
#include "formats/zarr/shard_index.h"
#include "formats/zarr/sharding_codec.h"
#include "store/update_object.h"

namespace chunkwise::formats::zarr {

class ArrayCache;  // src/formats/zarr/array_cache.h

// One inner chunk of a batch written with ShardStore::SetInners: its
// row-major position in the shard and its new encoded bytes (nullopt: it
// becomes empty). The bytes must outlive the call.
struct InnerValue {
  std::size_t k = 0;
  std::optional<ByteView> value;
};

class ShardStore final : public store::Store {
 public:
  // The shard of `shard_spec` (its shape is the shard shape) stored under
  // `key` of `parent`. REQUIRES: codec.CheckShardShape(shard_spec.shape) passed.
  // `cache` (may be null; not owned, and must outlive the ShardStore): the
  // index and the decoded inner chunks that ReadIndex and ReadRegion look up
  // and keep there, and whose entries every write of the shard drops.
  ShardStore(store::Store& parent, std::string key, const ShardingCodec& codec,
             const codec::ChunkSpec& shard_spec, const ArrayCache* cache = nullptr);

  const std::string& key() const { return key_; }
  // The number of inner chunks, n: the size of the index.
  std::size_t num_inner_chunks() const { return n_; }
  // The key of inner chunk `k` (row-major position, k < n): its coordinates
  // in the shard's grid of inner chunks joined by "/", e.g. "0/1/2".
  std::string InnerKey(std::size_t k) const;
  // The position of the inner chunk `inner_key` names; InvalidArgument,
  // naming the shard, for a key that names none.
  Result<std::size_t> InnerPosition(std::string_view inner_key) const;

  // store::Store over the inner-chunk keys. Set and Erase write the shard
  // (SetInners with one chunk); List reads the index and gives the keys of
  // the stored inner chunks. No conditional writes of inner chunks: the
  // shard's own are what SetInners and Write use.
  Result<std::optional<Bytes>> Get(std::string_view inner_key) const override;
  Result<std::optional<Bytes>> GetRange(std::string_view inner_key,
                                        store::ByteRange range) const override;
  Status Set(std::string_view inner_key, ByteView value) override;
  Status Erase(std::string_view inner_key) override;
  Result<std::vector<std::string>> List(std::string_view prefix) const override;
  Result<std::optional<std::uint64_t>> Size(std::string_view inner_key) const override;
  store::StoreCapabilities capabilities() const override;
  // "<the shard's description> inner chunk <inner_key>".
  std::string Describe(std::string_view inner_key) const override;

  // The shard's index, or nullopt when no shard is stored. Corruption, naming
  // the key, for a shard shorter than its index or an index that fails its
  // checks. `shard_bytes` (may be null) gets the stored shard's size, known
  // from the same request. With a cache, an index kept there is not read again.
  Result<std::optional<ShardIndex>> ReadIndex(std::uint64_t* shard_bytes = nullptr) const;

  // The encoded bytes of inner chunk `k` (row-major position in the shard),
  // or nullopt when it is empty or no shard is stored. InvalidArgument for k >= n.
  Result<std::optional<Bytes>> GetInner(std::size_t k) const;
  // GetInner for each of `ks`, in order; the stored ones are read in one batch
  // of byte ranges, coalesced under store::RangeCoalescing's defaults.
  Result<std::vector<std::optional<Bytes>>> GetInners(std::span<const std::size_t> ks) const;

  // Writes a batch of encoded inner chunks as one write of the shard: the
  // inner chunks it does not name keep their bytes. InvalidArgument for a
  // position past n, a position named twice or an empty value (an inner
  // chunk is stored as at least one byte). A shard left with no inner
  // chunks is erased.
  Status SetInners(std::span<const InnerValue> values);

  // Decodes the shard-local box `box` into `destination` (the element at
  // box.start goes to destination.origin); empty chunks, or a missing shard,
  // give the fill value. Returns whether a shard is stored. With a cache,
  // inner chunks kept there are copied out without a read or a decode, and
  // the others are decoded whole and kept.
  Result<bool> ReadRegion(const core::Region& box, const core::StridedDestination& destination,
                          const ShardCallContext& context) const;
  // ReadRegion when the cache holds the index and every stored inner chunk
  // the box meets (read by that index): copies them out (and fills the
  // empty ones) on this thread and returns true. False, with `destination`
  // untouched, when anything is missing or there is no cache.
  bool ReadRegionIfCached(const core::Region& box,
                          const core::StridedDestination& destination) const;

  // The whole decoded inner chunk `inner` (its coordinates in the shard's
  // grid of inner chunks): with a cache, the cache's buffer when it holds
  // it (no copy; counted as a hit), else read as ReadRegion reads it, which
  // keeps it there, and then the kept buffer; without one (or when the
  // cache did not keep it), a buffer of its own. An empty chunk, or a
  // missing shard, gives the fill value. InvalidArgument, naming the
  // shard, for coordinates outside its grid.
  Result<std::shared_ptr<const Bytes>> ReadInner(std::span<const core::Index> inner,
                                                 const ShardCallContext& context) const;

  // Writes the shard-local box `write.box` from `write.source` as one write
  // of the shard, only the inner chunks it touches encoded. `replaces` says
  // the box covers every element of the shard inside the array (at the
  // array's edge, less than the shard shape): the shard is then encoded
  // without reading the stored one. A partial write merges over the stored
  // shard. A shard left all fill value is erased.
  Status Write(const ShardWriteSource& write, bool replaces, const ShardCallContext& context);
  // Write's merge: `write` merged into the stored shard `old` (nullopt: none,
  // or a write that replaces it) and handed to `put`, as a
  // store::MergeWrite's; for writers of many shards in one batch
  // (store::UpdateObjects), who drop the shard from the cache themselves.
  Status Merge(const ShardWriteSource& write, const std::optional<Bytes>& old,
               const store::WriteMerged& put, const ShardCallContext& context) const;

 private:
  struct CachedIndex;  // An index and its shard's size, as the cache keeps them.
  struct CachedInner;  // A decoded inner chunk, as the cache keeps it.

  // The stored shard `old` (nullopt: none) as its index and a reader of its bytes.
  Result<std::optional<ShardIndex>> IndexOf(const std::optional<Bytes>& old,
                                            ShardByteReader& read) const;
  // The index from the store, with the shard's size (null: no shard).
  Result<std::shared_ptr<const CachedIndex>> LoadIndex() const;
  // The index through the cache: kept there, or loaded and kept under
  // `ticket` (taken before anything of the shard was read).
  Result<std::shared_ptr<const CachedIndex>> IndexThroughCache(std::uint64_t ticket) const;
  // The cache's decoded inner chunks `ks` (row-major positions), found by
  // the index the cache holds: null for a chunk the index has empty; nullopt
  // when the index or a stored chunk is not kept. Looked at first without
  // counting (a read that goes on to the store looks them up again), then,
  // when `counted`, found (counted as hits, marked used).
  std::optional<std::vector<std::shared_ptr<const CachedInner>>> KeptInners(
      std::span<const std::size_t> ks, bool counted) const;
  // ReadRegion with a cache.
  Result<bool> ReadRegionThroughCache(const core::Region& box,
                                      const core::StridedDestination& destination,
                                      const ShardCallContext& context) const;
  // ReadRegion without one.
  Result<bool> ReadRegionFromStore(const core::Region& box,
                                   const core::StridedDestination& destination,
                                   const ShardCallContext& context) const;
  // Drops the cached entries of the shard after a write of it.
  void Invalidate() const;

  store::Store& parent_;
  std::string key_;
  std::string where_;  // The key as messages name it.
  const ShardingCodec& codec_;
  codec::ChunkSpec spec_;
  core::RegularChunkGrid inner_grid_;
  std::size_t n_;
  const ArrayCache* cache_;
};

// A shard's index and size, as ShardStore::ReadIndex gives them.
struct ShardIndexRead {
  std::optional<ShardIndex> index;  // Nullopt: no shard stored.
  std::uint64_t shard_bytes = 0;
  // The version the index was read at, where the indexes went as a batch
  // that names versions (store::GetRangeAtVersionMany): absent when it is
  // not known (the server named none, or the shard was read again alone).
  // Nullopt where the store names no versions in a batch.
  std::optional<store::Generation> generation;
};

// ShardStore::ReadIndex for the shard under each of `keys` of `parent`
// (result i is keys[i]'s), for readers of many indexes (`zarr info`, a
// copy's plan). On a store whose gets are batched (store/batched_gets.h)
// the shards' sizes are one batch of requests and their indexes' byte
// ranges a second one, both from the calling thread; a shard whose index
// does not read or check from them (changed or removed in between, or
// damaged) is read again alone, which reports what is wrong. Where the store
// names versions in a batch (http(s), S3: store::GetRangeAtVersionMany) the
// two batches are one: each index's range (a suffix for an index at the
// end) brings the shard's size and ETag in its reply. Elsewhere each
// is ReadIndex on `pool` (null: one after another), through `cache`.
Result<std::vector<ShardIndexRead>> ReadShardIndexes(
    store::Store& parent, std::span<const std::string> keys, const ShardingCodec& codec,
    const codec::ChunkSpec& shard_spec, const ArrayCache* cache, core::ThreadPool* pool);

// One shard's part of ReadShardRegions: ShardStore::ReadRegion's arguments
// for the shard under `key`.
struct ShardRegionRead {
  std::string key;
  core::Region box;
  core::StridedDestination destination;
};

// The shards ReadShardRegions reads the indexes of in one batch.
inline constexpr std::size_t kIndexesPerBatch = 1024;

// ShardStore::ReadRegion (without a cache) of each of `reads`, for a region
// that meets many shards of `parent`, a store whose gets are batched
// (store/batched_gets.h) and whose ranges are cheap. The indexes of up to
// kIndexesPerBatch shards are read as ReadShardIndexes reads them (on
// http(s) and S3 one batch: a suffix GET per shard naming its size and
// ETag); then the byte ranges of the inner chunks the boxes need, joined per
// shard under context.coalescing, go in batches of about `batch_bytes` (at
// least one shard), each one batch of requests (store::GetRangeMany, pinned
// by If-Match to the ETag each shard's index was read at) from a thread
// that is not a pool thread, while the pool decodes the batch before. So
// the requests in flight grow with the region, not with the pool's threads.
// stored[i] says whether reads[i]'s shard is stored, and `done(i)` runs
// once it is in place (an error ends the call); a `cancellation` (may be
// null) ends the requests on the wire too. A shard whose chunks do not come
// back whole (removed or rewritten since its index was read: a 412, or a
// request that failed), or whose index came with no ETag, is read again
// alone, which reports what is wrong.
Status ReadShardRegions(store::Store& parent, std::span<const ShardRegionRead> reads,
                        const ShardingCodec& codec, const codec::ChunkSpec& shard_spec,
                        std::uint64_t batch_bytes, const ShardCallContext& context,
                        std::span<std::uint8_t> stored,
                        const std::function<Status(std::size_t)>& done,
                        const core::Cancellation* cancellation);

}  // namespace chunkwise::formats::zarr

#endif  // CHUNKWISE_FORMATS_ZARR_SHARD_STORE_H_
