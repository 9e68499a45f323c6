// Array: a zarr v3 or v2 array in a store, read and written by region.
//
// Spec: docs/formats/zarr.md, "Node metadata" to "Zarr v2 metadata". An Array
// is a view over a Store and a key prefix: metadata at "<prefix>zarr.json" (v3)
// or "<prefix>.zarray" (v2), chunks at "<prefix><chunk key>". Reads and writes
// take any box of the array, not only chunk-aligned ones, and run in parallel
// across chunks (and, when sharded, across a shard's inner chunks) on the
// array's thread pool.
//
// Writes: a chunk (or shard) the box covers entirely is encoded without
// reading; one it cuts is read, merged and rewritten. For a sharded array
// (codecs exactly [sharding_indexed]) only the inner chunks a write touches
// are re-encoded, and reads fetch only the index and the inner chunks a box
// touches. A chunk equal to the fill value is not stored (its key, or its
// index entry, is removed), and a shard left with no chunks is deleted.
//
// Thread safety: concurrent reads are safe; a write must not run concurrently
// with another write or read of the same chunks.
#ifndef CHUNKWISE_FORMATS_ZARR_ARRAY_H_
#define CHUNKWISE_FORMATS_ZARR_ARRAY_H_

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "chunkwise/core/buffer_pool.h"
#include "chunkwise/core/cancellation.h"
#include "chunkwise/core/progress.h"
#include "chunkwise/core/region.h"
#include "chunkwise/core/thread_pool.h"
#include "chunkwise/store/store.h"
#include "codec/codec_chain.h"
#include "core/chunk_grid.h"
#include "formats/zarr/array_metadata.h"
#include "formats/zarr/shard_scratch.h"
#include "formats/zarr/shard_store.h"
#include "formats/zarr/sharding_codec.h"

namespace chunkwise::core {
class ChunkCache;  // src/core/chunk_cache.h
}  // namespace chunkwise::core

namespace chunkwise::formats::zarr {

class GridObjects;  // src/formats/zarr/grid_objects.h
class ArrayCache;   // src/formats/zarr/array_cache.h

// One chunk (or shard) of a batch read or write (Array::ReadChunks,
// Array::WriteChunks): the grid chunk `chunk`, the box `box` of it in the
// chunk's own coordinates, and where the box's first element lies in the
// caller's buffer. A codec pipeline plugged into zarr-python gets its work
// in this form: chunk by chunk, each with its selection and its place in
// the output.
struct ChunkTransfer {
  core::Coord chunk;
  core::Region box;
  core::Coord buffer_origin;
};

struct ArrayOptions {
  // Runs encoding and decoding; null means a new pool with one thread per core.
  std::shared_ptr<core::ThreadPool> pool = nullptr;
  // Lends shard-sized buffers, so that reads and writes reuse memory already
  // touched (core/buffer_pool.h); null: a pool of the array's own. The
  // facade's Context shares one among the arrays it opens.
  std::shared_ptr<core::BufferPool> buffers = nullptr;
  // Keeps decoded chunks (inner chunks, when sharded) and shard indexes
  // that reads found, for later reads of them; null, or a cache whose limit
  // is 0, keeps nothing. Every write through the array (and its Shard
  // stores), Resize and Create drop the entries they make stale. The
  // facade's Context shares one among the arrays it opens.
  std::shared_ptr<core::ChunkCache> cache = nullptr;
  // Counts bytes of array data read or written; may be null. Not owned.
  core::ProgressReporter* progress = nullptr;
  // How chunks are encoded (e.g. the deterministic blosc-lz4 encoder); the
  // metadata is the same whichever. Open/Create fail, naming the codec field,
  // if a chosen encoder cannot write the array's codecs.
  codec::CodecBuildOptions codec_build = {};
  // How reads of a sharded array fetch the inner chunks one shard holds of
  // a box: joined into few requests on remote stores, one per inner chunk
  // on local ones (store/byte_range.h; docs/formats/zarr.md, "Coalesced reads").
  store::ReadCoalescing coalescing = {};
};

// What one read or write reports to and is stopped by; both may be null.
// Per call, so that threads sharing an Array each keep their own.
struct ArrayCallHooks {
  core::ProgressReporter* progress = nullptr;        // Counts the bytes done. Not owned.
  const core::Cancellation* cancellation = nullptr;  // Checked before each chunk. Not owned.
};

// What an array holds in its store, for `zarr info`.
struct ArrayStorageStats {
  std::uint64_t stored_keys = 0;          // Chunk (or shard) objects present.
  std::uint64_t stored_bytes = 0;         // Their total size.
  std::uint64_t grid_chunks = 0;          // Chunks (or shards) the grid has.
  std::uint64_t stored_inner_chunks = 0;  // Non-empty index entries (sharded arrays).
  std::uint64_t grid_inner_chunks = 0;    // Inner chunks the grid of shards has.
  std::uint64_t logical_bytes = 0;        // Elements × element size.
};

// The metadata of the array at `prefix` as Array::Open reads it, without
// building its codecs: what `zarr info` shows of an array whose codecs or
// data type this library cannot read. NotFound as Open.
Result<ArrayMetadata> ReadArrayMetadata(const store::Store& store, std::string prefix);

class Array {
 public:
  // Opens the array at `prefix` ("" or ending in "/"): NotFound if neither
  // zarr.json nor .zarray is there; the metadata parsers' errors otherwise,
  // with the metadata key named.
  static Result<Array> Open(std::shared_ptr<store::Store> store, std::string prefix,
                            ArrayOptions options = {});
  // The array at `prefix` as `metadata` describes it, which the caller has
  // already read (zarr-python, for instance, hands its pipeline the parsed
  // metadata): neither reads nor writes the store's metadata. The codecs
  // and grid are checked as Open checks them.
  static Result<Array> FromMetadata(std::shared_ptr<store::Store> store, std::string prefix,
                                    ArrayMetadata metadata, ArrayOptions options = {});
  // Writes the metadata of a new array after checking it and its codecs. An
  // existing array or group at `prefix` is refused (InvalidArgument) unless
  // `overwrite`, which first erases every key under `prefix`.
  static Result<Array> Create(std::shared_ptr<store::Store> store, std::string prefix,
                              ArrayMetadata metadata, bool overwrite, ArrayOptions options = {});
  // As Create, but the metadata is written only by Publish: until then no
  // reader (ours, zarr-python, TensorStore) sees an array at `prefix`, so a
  // writer killed or failing half-way leaves nothing that reads as a partly
  // filled array. A marker key (kIncompleteMarkerKey) says the keys there are
  // ours, so that a later Create with `overwrite` replaces them.
  static Result<Array> CreateUnpublished(std::shared_ptr<store::Store> store, std::string prefix,
                                         ArrayMetadata metadata, bool overwrite,
                                         ArrayOptions options = {});
  // The same array for another writer of it (a rank of a job) once
  // CreateUnpublished has run elsewhere: nothing is written. NotFound if the
  // marker is not there (no unpublished array at `prefix`).
  static Result<Array> JoinUnpublished(std::shared_ptr<store::Store> store, std::string prefix,
                                       ArrayMetadata metadata, ArrayOptions options = {});
  // The array that CreateUnpublished began at `prefix` with this same
  // `metadata` (its marker holds the metadata text), for a resumed writer to
  // finish: nothing is erased. A published array with this metadata is
  // returned as it is (Publish rewrites the same metadata); with nothing at
  // `prefix`, CreateUnpublished starts it. InvalidArgument naming the key when
  // the array there was begun or published with other metadata.
  static Result<Array> ResumeUnpublished(std::shared_ptr<store::Store> store, std::string prefix,
                                         ArrayMetadata metadata, ArrayOptions options = {});
  // Writes the metadata of an array made by CreateUnpublished, then removes
  // its marker. Call it once every chunk is written.
  Status Publish();
  // Replaces the attributes with `attributes` (a JSON object) and writes the
  // metadata again (v2: its .zattrs). InvalidArgument when not an object.
  Status SetAttributes(nlohmann::json attributes);
  // Gives the array `shape` (same rank) and writes the metadata again, after
  // erasing the chunks (shards) wholly outside it; chunks it cuts keep their
  // elements, so growing again shows them, as in zarr-python. InvalidArgument
  // naming the shape for another rank or a negative extent.
  Status Resize(const core::Shape& shape);

  const ArrayMetadata& metadata() const { return metadata_; }
  // The grid of stored objects: shards when sharded, else chunks.
  const core::RegularChunkGrid& grid() const { return grid_; }
  // The array for messages: its store's description of its prefix (a path or URL).
  std::string Describe() const { return DescribePrefix(*store_, prefix_); }
  // The sharding codec when the codecs are exactly [sharding_indexed], else null.
  const ShardingCodec* sharding() const { return sharding_.get(); }
  // The shard `coord` of the grid as a store of inner chunks. REQUIRES: sharding().
  ShardStore Shard(std::span<const core::Index> coord) const;
  // The store key of grid chunk `coord`.
  std::string ChunkKey(std::span<const core::Index> coord) const;
  // The index and size of each shard `coords`[i] (ReadShardIndexes: in
  // batches of requests on a remote store). REQUIRES: sharding().
  Result<std::vector<ShardIndexRead>> ReadShardIndexes(std::span<const core::Coord> coords) const;
  // Makes reads and writes count their bytes on `progress` (may be null; not owned).
  void set_progress(core::ProgressReporter* progress) { progress_ = progress; }
  // The array's dtype, outer chunk shape and fill value, as codecs see them.
  const codec::ChunkSpec& chunk_spec() const { return chunk_spec_; }
  // Whether ReadChunks (and reads of regions) fetch many objects as one
  // batch of requests from the calling thread, and WriteChunks (and writes
  // of regions) send them so: objects on a remote store (GridObjects).
  bool batches_reads() const;
  bool batches_writes() const;

  // The elements of `region` in C order. InvalidArgument if the region is
  // not inside the array; Corruption naming the key for damaged chunks.
  Result<Bytes> Read(const core::Region& region) const;
  // As Read, into `out`, which holds region.num_elements() elements.
  Status ReadInto(const core::Region& region, void* out) const;
  // As ReadInto, reporting to `hooks` (not to set_progress's reporter).
  // Cancelled once hooks.cancellation is set: the chunks not yet started are
  // not read, and `out` is left partly filled.
  Status ReadInto(const core::Region& region, void* out, const ArrayCallHooks& hooks) const;
  // Writes `data` (C order, host byte order) over `region`.
  // InvalidArgument if the region is outside the array or data has the wrong size.
  Status Write(const core::Region& region, ByteView data);
  // As Write, reporting to `hooks`. Cancelled once hooks.cancellation is set:
  // the chunks (or shards) not yet started are not written; every one that
  // was is whole.
  Status Write(const core::Region& region, ByteView data, const ArrayCallHooks& hooks);

  // The whole decoded chunk `chunk` (coordinates in the grid of chunks: of
  // inner chunks when sharded) in C order and host byte order, of the
  // (inner) chunk shape; at the array's edge it reaches past the array, as
  // it is encoded. Shared and immutable: with the cache on, the cache's own
  // buffer when it holds the chunk (no copy, counted as a hit), else
  // decoded and kept there; with it off (or a chunk larger than the cache),
  // a buffer of its own. A chunk not stored is the fill value, not kept.
  // InvalidArgument naming the coordinates and the grid when outside it;
  // Corruption naming the key for a damaged chunk.
  Result<std::shared_ptr<const Bytes>> ReadChunk(std::span<const core::Index> chunk) const;

  // Reads each transfer's box of its chunk into `out`, a C-order buffer of
  // `out_shape` elements of the array's type, in parallel across the
  // transfers (and a shard's inner chunks): sharded arrays fetch only the
  // index and the inner chunks a box meets. Boxes of chunks not stored get
  // the fill value. Returns, per transfer, whether its chunk (or shard) is
  // stored. InvalidArgument naming the transfer when a chunk is outside the
  // grid, its box leaves the chunk's part of the array, or the box placed at
  // its origin leaves the buffer.
  Result<std::vector<bool>> ReadChunks(std::span<const ChunkTransfer> transfers, void* out,
                                       const core::Shape& out_shape) const;
  // Writes each transfer's box of `data` (C order, `data_shape`) into its
  // chunk as Write does: chunks (shards) a box covers are encoded without
  // reading, others merged; fill-valued ones are removed. InvalidArgument as
  // ReadChunks, and when two transfers name the same chunk.
  Status WriteChunks(std::span<const ChunkTransfer> transfers, ByteView data,
                     const core::Shape& data_shape);

  // The C-order indices in grid() of the stored objects (shards, else
  // chunks), ascending, from one listing of the array's chunk keys; keys
  // there that are not chunk keys of the grid (metadata, markers, a key
  // outside the grid) are passed over. Nullopt when the store's listing may
  // miss keys (capabilities().lists_every_key is false): walk the grid then.
  Result<std::optional<std::vector<core::Index>>> ListStoredObjects() const;

  // Counts what is stored: the objects ListStoredObjects finds (or, from a
  // store that cannot list them all, every grid key), their sizes and, when
  // sharded, their indexes' entries.
  Result<ArrayStorageStats> Stats() const;

 private:
  Array(std::shared_ptr<store::Store> store, std::string prefix, ArrayMetadata metadata,
        core::RegularChunkGrid grid, ArrayOptions options);
  // Builds an Array for checked metadata: the codec chain, the grid, the chunk spec.
  static Result<Array> Make(std::shared_ptr<store::Store> store, std::string prefix,
                            ArrayMetadata metadata, ArrayOptions options);

  Status CheckRegion(const core::Region& region) const;
  // Reads the overlap's box of its grid object into `target`; returns
  // whether the object is stored.
  Result<bool> ReadObject(const core::ChunkOverlap& overlap,
                          const core::StridedDestination& target) const;
  // Writes the overlap's box of its grid object from `source`.
  Status WriteObject(const core::ChunkOverlap& overlap, const core::StridedSource& source);
  // InvalidArgument unless `shape` (a chunk batch's buffer) has the array's
  // rank and no negative extent.
  Status CheckBufferShape(const core::Shape& shape) const;
  // The overlap `transfer` stands for, checked against the grid and against a
  // buffer of `buffer_shape`; InvalidArgument naming transfer `i` otherwise.
  Result<core::ChunkOverlap> TransferOverlap(const ChunkTransfer& transfer, std::size_t i,
                                             const core::Shape& buffer_shape) const;
  // Where shard calls run: the array's pool and scratch buffers.
  ShardCallContext ShardContext() const {
    return {pool_.get(), scratch_.get(), buffers_.get(), coalescing_};
  }
  // Adds the stored objects coord(i), i < count (those stored), to `stats`,
  // in batches (GridObjects::CountAll).
  Status CountStored(std::size_t count, const std::function<core::Coord(std::size_t)>& coord,
                     ArrayStorageStats& stats) const;

  std::shared_ptr<store::Store> store_;
  std::string prefix_;
  ArrayMetadata metadata_;
  std::shared_ptr<core::ThreadPool> pool_;
  std::shared_ptr<core::BufferPool> buffers_;
  // The array's view of the cache (never null; off when no cache was given).
  std::shared_ptr<const ArrayCache> cache_;
  core::ProgressReporter* progress_;
  store::ReadCoalescing coalescing_;
  std::shared_ptr<const codec::CodecChain> chain_;
  // The chain's codec when the codecs are exactly [sharding_indexed].
  std::shared_ptr<const ShardingCodec> sharding_;
  // Plain chunks or shards: the one choice Make makes between the two.
  std::shared_ptr<const GridObjects> objects_;
  // The buffers that shard calls borrow, kept for the array's life (copies
  // of the array share them).
  std::shared_ptr<ShardScratch> scratch_ = std::make_shared<ShardScratch>();
  core::RegularChunkGrid grid_;
  codec::ChunkSpec chunk_spec_;
};

// Writes group metadata (zarr.json, or .zgroup for v2) at `prefix`.
Status CreateGroup(store::Store& store, const std::string& prefix, int zarr_format,
                   const nlohmann::json& attributes);
// For a group whose members are written before it appears (as
// Array::CreateUnpublished for an array): clears `prefix` as Array::Create's
// `overwrite` does, then sets the incomplete marker there, so that a writer
// killed half-way leaves no group a reader opens and a later overwrite
// replaces what it left.
Status CreateUnpublishedGroup(store::Store& store, const std::string& prefix, bool overwrite);
// Writes the group metadata (CreateGroup), then removes the marker. Call it
// once every member is published.
Status PublishGroup(store::Store& store, const std::string& prefix, int zarr_format,
                    const nlohmann::json& attributes);

}  // namespace chunkwise::formats::zarr

#endif  // CHUNKWISE_FORMATS_ZARR_ARRAY_H_
