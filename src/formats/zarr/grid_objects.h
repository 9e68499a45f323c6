// GridObjects: how an Array reads, writes and counts the objects of its grid
// (private to formats/zarr).
//
// An array stores one object per cell of its grid: a plain chunk (one value
// of the store, coded whole by the array's codec chain) or, when the codecs
// are exactly [sharding_indexed], a shard (a ShardStore of inner chunks,
// read and written inner chunk by inner chunk). Array::Make chooses which
// once; the rest of Array has one path for both. Boxes are in the object's
// own coordinates; `replaces` says a write covers every element of the
// object inside the array, so it is encoded without reading the stored one.
// Partial writes merge through store::UpdateObject. Immutable and
// thread-safe; the execution context comes per call.
#ifndef CHUNKWISE_SRC_FORMATS_ZARR_GRID_OBJECTS_H_
#define CHUNKWISE_SRC_FORMATS_ZARR_GRID_OBJECTS_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>

#include "array_cache.h"
#include "chunkwise/core/cancellation.h"
#include "chunkwise/core/region.h"
#include "chunkwise/store/store.h"
#include "codec/codec_chain.h"
#include "formats/zarr/array.h"
#include "formats/zarr/sharding_codec.h"

namespace chunkwise::formats::zarr {

class GridObjects {
 public:
  virtual ~GridObjects() = default;

  // Decodes `box` of the object under `key` into `target` (the element at
  // box.start goes to target.origin); the fill value where nothing is
  // stored. Returns whether the object is stored.
  virtual Result<bool> Read(const std::string& key, const core::Region& box,
                            const core::StridedDestination& target,
                            const ShardCallContext& context) const = 0;
  // Read, when the chunk cache holds all of it that `box` needs: copies it
  // out on this thread, reading nothing and handing nothing to a pool, and
  // returns true. False, with `target` untouched, otherwise (or with no cache).
  virtual bool ReadIfCached(const std::string& key, const core::Region& box,
                            const core::StridedDestination& target) const = 0;

  // The whole decoded chunk `inner` (its coordinates in the object's grid of
  // inner chunks; all 0 for a plain chunk) of the object under `key`, as
  // Array::ReadChunk gives it: the cache's buffer when it holds it, else
  // decoded (and kept when caching); the fill value when not stored.
  virtual Result<std::shared_ptr<const Bytes>> ReadChunk(const std::string& key,
                                                         std::span<const core::Index> inner,
                                                         const ShardCallContext& context) const = 0;

  // One object's part of a ReadAll: Read's arguments.
  struct ObjectRead {
    std::string key;
    core::Region box;
    core::StridedDestination target;
  };
  // True if ReadAll fetches objects in batches (plain chunks of a store
  // whose gets are batched, store/batched_gets.h); Read one object per
  // pool task is as good otherwise.
  virtual bool batches_reads() const { return false; }
  // Reads every object as Read does: stored[i] says whether reads[i]'s
  // object is stored, and `done(i)` runs once read i is in place (progress;
  // an error, such as a cancellation, ends the call). The objects are
  // fetched in batches, each batch's requests in flight together from the
  // calling thread, and decoded on context.pool: many requests on the wire
  // without a thread each; a `cancellation` (may be null) ends the
  // requests on the wire too. Only where batches_reads().
  virtual Status ReadAll(std::span<const ObjectRead> reads, const ShardCallContext& context,
                         std::span<std::uint8_t> stored,
                         const std::function<Status(std::size_t)>& done,
                         const core::Cancellation* cancellation) const;
  // Writes `write.box` of the object under `key` from `write.source`; an
  // object left all fill value is removed.
  virtual Status Write(const std::string& key, const ShardWriteSource& write, bool replaces,
                       const ShardCallContext& context) const = 0;
  // One object's part of a WriteAll: Write's arguments.
  struct ObjectWrite {
    std::string key;
    ShardWriteSource write;
    bool replaces = false;
  };
  // True if WriteAll sends objects in batches (plain chunks of a store whose
  // puts are batched, store/batched_puts.h); Write one object per pool task
  // is as good otherwise.
  virtual bool batches_writes() const { return false; }
  // Writes every object as Write does, `done(i)` running once write i is
  // stored (progress; an error, such as a cancellation, ends the call). The
  // objects each write replaces are encoded on context.pool and sent in
  // batches, each batch's requests in flight together from a thread of the
  // call's own (at most the transport's max_in_flight on the wire), the
  // next batch encoding meanwhile: many requests on the wire without a pool
  // thread each; a `cancellation` (may be null) ends the requests on the
  // wire too. Writes of part of an object merge into the stored one as
  // Write does, one per pool task. The first failure (in the order of
  // `writes`) is returned. Only where batches_writes().
  virtual Status WriteAll(std::span<const ObjectWrite> writes, const ShardCallContext& context,
                          const std::function<Status(std::size_t)>& done,
                          const core::Cancellation* cancellation) const;
  // Adds the object under `key`, if stored, to `stats`: one request.
  virtual Status Count(const std::string& key, ArrayStorageStats& stats) const = 0;
  // Count for each of `keys`, on context.pool; plain chunks of a store whose
  // gets are batched ask all their sizes at once from the calling thread
  // (store::SizeMany) instead.
  virtual Status CountAll(std::span<const std::string> keys, const ShardCallContext& context,
                          ArrayStorageStats& stats) const;
  // The inner chunks each object holds (0: objects are plain chunks).
  virtual std::uint64_t inner_chunks_per_object() const = 0;
};

// Plain chunks of `store`, each coded by `chain` as `spec` says.
// `fill_value_null`: the metadata's fill value is null, so a chunk of zeros
// is stored rather than left out. Reads keep decoded chunks in `cache` when
// it is on (a chunk is then decoded whole); writes drop them.
std::shared_ptr<const GridObjects> PlainChunks(std::shared_ptr<store::Store> store,
                                               std::shared_ptr<const codec::CodecChain> chain,
                                               const codec::ChunkSpec& spec, bool fill_value_null,
                                               std::shared_ptr<const ArrayCache> cache);
// Shards of `store` (ShardStore), coded by `sharding`; `spec` is the shard's.
// Their indexes and decoded inner chunks go through `cache` (ShardStore).
std::shared_ptr<const GridObjects> Shards(std::shared_ptr<store::Store> store,
                                          std::shared_ptr<const ShardingCodec> sharding,
                                          const codec::ChunkSpec& spec,
                                          std::shared_ptr<const ArrayCache> cache);

}  // namespace chunkwise::formats::zarr

#endif  // CHUNKWISE_SRC_FORMATS_ZARR_GRID_OBJECTS_H_
