#include "grid_objects.h"

#include <algorithm>
#include <deque>
#include <future>
#include <optional>
#include <span>
#include <utility>

#include "core/ravel.h"
#include "formats/zarr/fill_value.h"
#include "formats/zarr/shard_store.h"
#include "store/batched_gets.h"
#include "store/batched_puts.h"
#include "store/update_object.h"

namespace chunkwise::formats::zarr {
namespace {

using core::Region;

// A batch of ReadAll fetches at most this many chunks, and at most about
// this many bytes of decoded chunks (the encoded ones it holds are rarely
// larger; two batches are held at once): enough requests to keep a
// transport's loop full, without holding a large region's every chunk.
constexpr std::size_t kBatchChunks = 1024;
constexpr std::uint64_t kBatchBytes = std::uint64_t{128} << 20;
// A batch of a sharded ReadAll fetches about this many encoded bytes: the
// pool decodes one batch while the next is on the wire.
constexpr std::uint64_t kFetchBytes = std::uint64_t{32} << 20;

// Runs task(i) for i < count on context.pool, or in turn without one.
Status RunOnPool(const ShardCallContext& context, std::size_t count,
                 const std::function<Status(std::size_t)>& task) {
  if (context.pool == nullptr) {
    for (std::size_t i = 0; i < count; ++i) CHUNKWISE_RETURN_IF_ERROR(task(i));
    return Status::Ok();
  }
  return context.pool->ParallelFor(count, task);
}

// How many objects of `object_bytes` (decoded) one batch holds: at most
// kBatchChunks, and about kBatchBytes of them.
std::size_t BatchObjects(std::uint64_t object_bytes) {
  return static_cast<std::size_t>(std::clamp<std::uint64_t>(
      kBatchBytes / std::max<std::uint64_t>(object_bytes, 1), 1, kBatchChunks));
}

// A plain-chunk ReadAll fetches in pieces, several on their way at once:
// at most kFetchWindow of them, and a piece holds at least kPieceChunks
// chunks where a batch holds that many (fewer, larger pieces where chunks
// are small: less waiting on a piece's slowest reply).
constexpr std::size_t kFetchWindow = 8;
constexpr std::size_t kPieceChunks = 16;

struct FetchPlan {
  std::size_t piece = 1;   // Chunks a piece fetches.
  std::size_t window = 2;  // Pieces on their way at once.
};

// The pieces of a plain-chunk ReadAll of chunks of `object_bytes`
// (decoded): together about one batch (BatchObjects), and never more than
// two batches, as two whole batches were held before pieces.
FetchPlan PlanFetches(std::uint64_t object_bytes) {
  const std::size_t batch = BatchObjects(object_bytes);
  FetchPlan plan;
  plan.piece = std::max(std::min(kPieceChunks, batch), batch / kFetchWindow);
  plan.window = std::clamp<std::size_t>(batch / plan.piece, 2, kFetchWindow);
  return plan;
}

// Merges GridObjects::WriteAll's `write` into the stored object `old`, as a
// store::MergeWrite does.
using MergeObjectWrite =
    std::function<Status(const GridObjects::ObjectWrite& write, const std::optional<Bytes>& old,
                         const store::WriteMerged& put)>;

// Writes `writes`[chosen] through store::UpdateObjects, `batch` objects at
// a time (a write covering its object whole replaces it unread, the others
// merge), merging on context.pool; the cache drops each object written.
// Two batches run at once, each from a thread of its own, so that one's
// requests are on the wire while the pool merges and encodes the other's
// (as SendReplacements overlaps them); at most two batches are held.
Status UpdateInBatches(store::Store& store, std::span<const GridObjects::ObjectWrite> writes,
                       std::span<const std::size_t> chosen, std::size_t batch,
                       const ShardCallContext& context, const MergeObjectWrite& merge,
                       const ArrayCache& cache, const std::function<Status(std::size_t)>& done,
                       const core::Cancellation* cancellation) {
  const store::RunTasks run = [&](std::size_t count,
                                  const std::function<Status(std::size_t)>& task) {
    return RunOnPool(context, count, task);
  };
  const auto update = [&](std::span<const std::size_t> part) -> Status {
    std::vector<store::ObjectUpdate> updates;
    updates.reserve(part.size());
    for (std::size_t i : part) {
      updates.push_back({writes[i].key, writes[i].replaces ? store::UpdateMode::kReplace
                                                           : store::UpdateMode::kMerge});
    }
    const Status status = store::UpdateObjects(
        store, updates,
        [&](std::size_t j, const std::optional<Bytes>& old, const store::WriteMerged& put) {
          return merge(writes[part[j]], old, put);
        },
        run, [&](std::size_t j) { return done(part[j]); }, cancellation);
    // Whether or not they failed, the objects may have changed.
    for (const store::ObjectUpdate& update : updates) cache.Invalidate(update.key);
    return status;
  };
  std::future<Status> previous;
  for (std::size_t first = 0; first < chosen.size(); first += batch) {
    const std::span<const std::size_t> part =
        chosen.subspan(first, std::min(batch, chosen.size() - first));
    if (first + part.size() == chosen.size() && !previous.valid()) return update(part);  // Alone.
    std::future<Status> next = std::async(std::launch::async, update, part);
    if (previous.valid()) {
      const Status status = previous.get();
      if (!status.ok()) {
        next.wait();  // It reads `writes`: waited for even after an error.
        return status;
      }
    }
    previous = std::move(next);
  }
  return previous.valid() ? previous.get() : Status::Ok();
}

class PlainChunkObjects final : public GridObjects {
 public:
  PlainChunkObjects(std::shared_ptr<store::Store> store,
                    std::shared_ptr<const codec::CodecChain> chain, codec::ChunkSpec spec,
                    bool fill_value_null, std::shared_ptr<const ArrayCache> cache)
      : store_(std::move(store)),
        chain_(std::move(chain)),
        spec_(std::move(spec)),
        fill_value_null_(fill_value_null),
        cache_(std::move(cache)) {}

  Result<bool> Read(const std::string& key, const Region& box,
                    const core::StridedDestination& target,
                    const ShardCallContext&) const override {
    std::optional<std::uint64_t> ticket;
    if (Caching()) {
      if (CopyCached(key, box, target)) return true;
      ticket = cache_->cache().Ticket(cache_->Key(key, core::ChunkCacheKey::kWhole).object);
    }
    return Decode(key, box, target, store_->Get(key), ticket);
  }

  bool ReadIfCached(const std::string& key, const Region& box,
                    const core::StridedDestination& target) const override {
    // Looked at first without counting: a miss here is looked up again by Read.
    return Caching() &&
           cache_->cache().Peek(cache_->Key(key, core::ChunkCacheKey::kWhole)) != nullptr &&
           CopyCached(key, box, target);
  }

  Result<std::shared_ptr<const Bytes>> ReadChunk(const std::string& key,
                                                 std::span<const core::Index>,
                                                 const ShardCallContext&) const override {
    std::optional<std::uint64_t> ticket;
    if (Caching()) {
      const core::ChunkCacheKey cached = cache_->Key(key, core::ChunkCacheKey::kWhole);
      if (std::shared_ptr<const Bytes> chunk = cache_->cache().FindAs<Bytes>(cached)) return chunk;
      ticket = cache_->cache().Ticket(cached.object);
    }
    CHUNKWISE_ASSIGN_OR_RETURN(const std::optional<Bytes> encoded, store_->Get(key));
    if (!encoded) {  // Not kept, as in Decode.
      auto fill = std::make_shared<Bytes>(static_cast<std::size_t>(spec_.num_bytes()));
      const core::Coord zero(spec_.shape.size(), 0);
      core::FillStridedRegion({fill->data(), spec_.shape, zero}, spec_.shape, spec_.fill_value);
      return std::shared_ptr<const Bytes>(std::move(fill));
    }
    Result<Bytes> decoded =
        ticket ? DecodeForCache(*chain_, spec_, *encoded) : chain_->Decode(spec_, *encoded);
    if (!decoded.ok()) return decoded.status().WithContext(store_->Describe(key));
    auto chunk = std::make_shared<const Bytes>(std::move(decoded).value());
    if (ticket) {
      cache_->cache().Insert(cache_->Key(key, core::ChunkCacheKey::kWhole), chunk, chunk->size(),
                             *ticket);
    }
    return chunk;
  }

  bool batches_reads() const override { return store::BatchesGets(*store_); }

  // The chunks go in pieces (PlanFetches), several on their way at once,
  // each fetched by one GetMany from a thread of its own: the transport's
  // queue does not run dry between pieces, and the pool decodes each piece
  // as soon as it is in (in order), not once a whole batch of up to 1024
  // chunks is, so that decoding and the requests overlap from the start.
  Status ReadAll(std::span<const ObjectRead> reads, const ShardCallContext& context,
                 std::span<std::uint8_t> stored, const std::function<Status(std::size_t)>& done,
                 const core::Cancellation* cancellation) const override {
    const FetchPlan plan = PlanFetches(spec_.num_bytes());
    const std::size_t piece = plan.piece;
    if (reads.size() <= piece) {  // One piece (a viewer's box): fetched from this thread.
      FetchedBatch only = Fetch(reads, 0, reads.size(), cancellation);
      return DecodeBatch(reads, only, context, stored, done);
    }
    std::deque<std::future<FetchedBatch>> fetching;
    std::size_t next = 0;  // The first read no piece has taken yet.
    const auto start_pieces = [&] {
      while (fetching.size() < plan.window && next < reads.size()) {
        const std::size_t first = next, end = std::min(reads.size(), first + piece);
        fetching.push_back(std::async(std::launch::async, [&, first, end] {
          return Fetch(reads, first, end, cancellation);
        }));
        next = end;
      }
    };
    start_pieces();
    Status status = Status::Ok();
    while (!fetching.empty()) {
      FetchedBatch current = fetching.front().get();
      fetching.pop_front();
      if (!status.ok()) continue;  // Waited for even after an error: they read `reads`.
      start_pieces();
      status = DecodeBatch(reads, current, context, stored, done);
    }
    return status;
  }

  Status Write(const std::string& key, const ShardWriteSource& write, bool replaces,
               const ShardCallContext&) const override {
    // A partial write merges into the stored chunk: conditionally where the
    // store can, so that writers of different parts of one chunk lose nothing.
    const Status status = store::UpdateObject(
        *store_, key, replaces ? store::UpdateMode::kReplace : store::UpdateMode::kMerge,
        [&](const std::optional<Bytes>& old, const store::WriteMerged& put) -> Status {
          CHUNKWISE_ASSIGN_OR_RETURN(const std::optional<Bytes> encoded, Merge(key, write, old));
          if (!encoded) return put(std::nullopt);  // All fill: no chunk.
          const ByteView part(*encoded);
          return put(std::span<const ByteView>(&part, 1));
        });
    cache_->Invalidate(key);  // Whether or not it failed, the chunk may have changed.
    return status;
  }

  bool batches_writes() const override { return store::BatchesPuts(*store_); }

  Status WriteAll(std::span<const ObjectWrite> writes, const ShardCallContext& context,
                  const std::function<Status(std::size_t)>& done,
                  const core::Cancellation* cancellation) const override {
    std::vector<std::size_t> replaced, merged;  // Indexes into `writes`.
    for (std::size_t i = 0; i < writes.size(); ++i) {
      (writes[i].replaces ? replaced : merged).push_back(i);
    }
    CHUNKWISE_RETURN_IF_ERROR(SendReplacements(writes, replaced, context, done, cancellation));
    // A part of a chunk merges into the stored one, conditionally where the
    // store can: the stored chunks read in one batch, merged on the pool,
    // written in one batch (store::UpdateObjects).
    return UpdateInBatches(
        *store_, writes, merged, BatchObjects(spec_.num_bytes()), context,
        [&](const ObjectWrite& write, const std::optional<Bytes>& old,
            const store::WriteMerged& put) -> Status {
          CHUNKWISE_ASSIGN_OR_RETURN(const std::optional<Bytes> encoded,
                                     Merge(write.key, write.write, old));
          if (!encoded) return put(std::nullopt);  // All fill: no chunk.
          const ByteView part(*encoded);
          return put(std::span<const ByteView>(&part, 1));
        },
        *cache_, done, cancellation);
  }

  Status Count(const std::string& key, ArrayStorageStats& stats) const override {
    CHUNKWISE_ASSIGN_OR_RETURN(std::optional<std::uint64_t> size, store_->Size(key));
    stats.stored_keys += size.has_value();
    stats.stored_bytes += size.value_or(0);
    return Status::Ok();
  }

  Status CountAll(std::span<const std::string> keys, const ShardCallContext& context,
                  ArrayStorageStats& stats) const override {
    if (!batches_reads()) return GridObjects::CountAll(keys, context, stats);
    for (Result<std::optional<std::uint64_t>>& size : store::SizeMany(*store_, keys)) {
      CHUNKWISE_RETURN_IF_ERROR(size.status());
      stats.stored_keys += size->has_value();
      stats.stored_bytes += size->value_or(0);
    }
    return Status::Ok();
  }

  std::uint64_t inner_chunks_per_object() const override { return 0; }

 private:
  // Whether reads look chunks up in the cache and keep them. A chunk larger
  // than the whole cache is read as without one: decoding only the box may
  // be cheaper, and it would not be kept anyway.
  bool Caching() const {
    return cache_->enabled() && spec_.num_bytes() < cache_->cache().limit_bytes();
  }

  // Copies `box` of the decoded chunk under `key` from the cache, if there.
  bool CopyCached(const std::string& key, const Region& box,
                  const core::StridedDestination& target) const {
    const std::shared_ptr<const Bytes> chunk =
        cache_->cache().FindAs<Bytes>(cache_->Key(key, core::ChunkCacheKey::kWhole));
    if (chunk == nullptr) return false;
    core::CopyStridedRegion({chunk->data(), spec_.shape, box.start()}, target, box.shape(),
                            spec_.dtype.size());
    return true;
  }

  // Decodes `box` of the stored chunk `encoded` (nullopt: none stored, so
  // the fill value) into `target`. With a `ticket` (taken before the chunk
  // was read) the chunk is decoded whole and kept in the cache.
  Result<bool> Decode(const std::string& key, const Region& box,
                      const core::StridedDestination& target, Result<std::optional<Bytes>> encoded,
                      std::optional<std::uint64_t> ticket) const {
    CHUNKWISE_RETURN_IF_ERROR(encoded.status());
    if (!encoded->has_value()) {  // Not kept: a writer outside the array may add it.
      core::FillStridedRegion(target, box.shape(), spec_.fill_value);
      return false;
    }
    const Bytes& bytes = **encoded;
    if (!ticket) {
      Bytes decoded;
      const Status status = chain_->DecodeRegion(spec_, bytes, box, target, decoded);
      if (!status.ok()) return status.WithContext(store_->Describe(key));
      return true;
    }
    Result<Bytes> decoded = DecodeForCache(*chain_, spec_, bytes);
    if (!decoded.ok()) return decoded.status().WithContext(store_->Describe(key));
    auto chunk = std::make_shared<const Bytes>(std::move(decoded).value());
    cache_->cache().Insert(cache_->Key(key, core::ChunkCacheKey::kWhole), chunk, chunk->size(),
                           *ticket);
    core::CopyStridedRegion({chunk->data(), spec_.shape, box.start()}, target, box.shape(),
                            spec_.dtype.size());
    return true;
  }

  // Reads [first, end) of ReadAll's reads as fetched: a cached chunk's
  // read is copied from the cache, the others' chunks are in `values`.
  struct FetchedBatch {
    std::size_t first = 0, end = 0;
    std::vector<std::uint8_t> cached;                   // Per read: found in the cache.
    std::vector<std::optional<std::uint64_t>> tickets;  // Per read, when caching.
    std::vector<std::size_t> fetched;                   // Per read: its index in `values`.
    std::vector<Result<std::optional<Bytes>>> values;
  };

  // The chunks of reads [first, end) the cache lacks, in one batch.
  FetchedBatch Fetch(std::span<const ObjectRead> reads, std::size_t first, std::size_t end,
                     const core::Cancellation* cancellation) const {
    FetchedBatch batch{first,
                       end,
                       std::vector<std::uint8_t>(end - first, 0),
                       std::vector<std::optional<std::uint64_t>>(end - first),
                       std::vector<std::size_t>(end - first, 0),
                       {}};
    const bool caching = Caching();
    std::vector<std::string> keys;
    for (std::size_t i = first; i < end; ++i) {
      if (caching) {
        const core::ChunkCacheKey key = cache_->Key(reads[i].key, core::ChunkCacheKey::kWhole);
        if (cache_->cache().FindAs<Bytes>(key) != nullptr) {
          batch.cached[i - first] = 1;
          continue;
        }
        batch.tickets[i - first] = cache_->cache().Ticket(key.object);
      }
      batch.fetched[i - first] = keys.size();
      keys.push_back(reads[i].key);
    }
    // Nothing to fetch (a warm read): no batch at all.
    if (!keys.empty()) batch.values = store::GetMany(*store_, keys, cancellation);
    return batch;
  }

  // Decodes the reads of `batch` on the pool. Those the cache holds are
  // copied out on this thread first, unless the read is large enough to
  // stream its output (then the pool copies too, as it does decodes): a box
  // whose every chunk is cached (a viewer's warm read) thus wakes no worker,
  // as over a local store (Array::ReadInto); on a loaded machine a woken
  // worker can wait longer to be scheduled than the copy takes.
  Status DecodeBatch(std::span<const ObjectRead> reads, FetchedBatch& batch,
                     const ShardCallContext& context, std::span<std::uint8_t> stored,
                     const std::function<Status(std::size_t)>& done) const {
    std::vector<std::size_t> pending;  // By position in the batch.
    for (std::size_t j = 0; j < batch.end - batch.first; ++j) {
      const std::size_t i = batch.first + j;
      if (!batch.cached[j] || reads[i].target.streaming ||
          !CopyCached(reads[i].key, reads[i].box, reads[i].target)) {
        pending.push_back(j);
        continue;
      }
      stored[i] = 1;
      CHUNKWISE_RETURN_IF_ERROR(done(i));
    }
    const auto read_one = [&](std::size_t p) -> Status {
      const std::size_t j = pending[p];
      const std::size_t i = batch.first + j;
      const ObjectRead& read = reads[i];
      Result<bool> present = true;
      if (!batch.cached[j]) {
        present = Decode(read.key, read.box, read.target, std::move(batch.values[batch.fetched[j]]),
                         batch.tickets[j]);
      } else if (!CopyCached(read.key, read.box, read.target)) {
        present = Read(read.key, read.box, read.target, context);  // Dropped since: read alone.
      }
      CHUNKWISE_RETURN_IF_ERROR(present.status());
      stored[i] = *present;
      return done(i);
    };
    if (context.pool == nullptr) {
      for (std::size_t p = 0; p < pending.size(); ++p) CHUNKWISE_RETURN_IF_ERROR(read_one(p));
      return Status::Ok();
    }
    return context.pool->ParallelFor(pending.size(), read_one);
  }

  // Chunks encoded for a batch of WriteAll's replacements: those of
  // `replaced`[first, end); nullopt for a chunk all fill (removed).
  struct EncodedBatch {
    std::size_t first = 0, end = 0;
    std::vector<std::optional<Bytes>> values;
    Status status;  // Of the encoding.
  };

  // The writes that replace whole chunks, encoded on the pool in batches of
  // as many chunks as ReadAll fetches at once, each batch sent by PutMany
  // from a thread of its own while the next one encodes.
  Status SendReplacements(std::span<const ObjectWrite> writes,
                          std::span<const std::size_t> replaced, const ShardCallContext& context,
                          const std::function<Status(std::size_t)>& done,
                          const core::Cancellation* cancellation) const {
    if (replaced.empty()) return Status::Ok();
    const std::size_t batch = BatchObjects(spec_.num_bytes());
    EncodedBatch current =
        Encode(writes, replaced, 0, std::min(replaced.size(), batch), context, cancellation);
    for (;;) {
      CHUNKWISE_RETURN_IF_ERROR(current.status);
      // The last batch (often the only one: a writer of one chunk per call)
      // goes from this thread, with nothing left to encode meanwhile.
      if (current.end == replaced.size()) {
        return Send(writes, replaced, current, done, cancellation);
      }
      std::future<Status> sent = std::async(
          std::launch::async, [&] { return Send(writes, replaced, current, done, cancellation); });
      EncodedBatch next =
          Encode(writes, replaced, current.end, std::min(replaced.size(), current.end + batch),
                 context, cancellation);
      CHUNKWISE_RETURN_IF_ERROR(sent.get());
      current = std::move(next);
    }
  }

  EncodedBatch Encode(std::span<const ObjectWrite> writes, std::span<const std::size_t> replaced,
                      std::size_t first, std::size_t end, const ShardCallContext& context,
                      const core::Cancellation* cancellation) const {
    EncodedBatch batch{first, end, std::vector<std::optional<Bytes>>(end - first), Status::Ok()};
    batch.status = RunOnPool(context, end - first, [&](std::size_t j) -> Status {
      const ObjectWrite& write = writes[replaced[first + j]];
      if (cancellation != nullptr && cancellation->cancelled()) {
        return cancellation->Check(store_->Describe(write.key));
      }
      CHUNKWISE_ASSIGN_OR_RETURN(batch.values[j], Merge(write.key, write.write, std::nullopt));
      return Status::Ok();
    });
    return batch;
  }

  // Writes `batch`'s chunks in one PutMany (a chunk all fill is removed, as
  // Write removes it), then runs `done` for each; the first failure.
  Status Send(std::span<const ObjectWrite> writes, std::span<const std::size_t> replaced,
              const EncodedBatch& batch, const std::function<Status(std::size_t)>& done,
              const core::Cancellation* cancellation) const {
    std::vector<store::PutItem> items;
    items.reserve(batch.values.size());
    for (std::size_t j = 0; j < batch.values.size(); ++j) {
      const std::optional<Bytes>& value = batch.values[j];
      items.push_back({writes[replaced[batch.first + j]].key,
                       value ? std::optional<ByteView>(*value) : std::nullopt, std::nullopt});
    }
    const std::vector<Status> statuses = store::PutMany(*store_, items, cancellation);
    // Whether or not they failed, the chunks may have changed.
    for (const store::PutItem& item : items) cache_->Invalidate(item.key);
    for (std::size_t j = 0; j < statuses.size(); ++j) {
      CHUNKWISE_RETURN_IF_ERROR(statuses[j]);
      CHUNKWISE_RETURN_IF_ERROR(done(replaced[batch.first + j]));
    }
    return Status::Ok();
  }

  // The chunk `old` (nullopt: none stored) with the write merged into it,
  // encoded; nullopt if the result is all fill.
  Result<std::optional<Bytes>> Merge(const std::string& key, const ShardWriteSource& write,
                                     const std::optional<Bytes>& old) const {
    Bytes chunk;
    if (old) {
      Result<Bytes> decoded = chain_->Decode(spec_, *old);
      if (!decoded.ok()) return decoded.status().WithContext(store_->Describe(key));
      chunk = std::move(decoded).value();
    } else {
      chunk.resize(spec_.num_bytes());
      if (write.box != Region::Full(spec_.shape)) {
        const core::Coord zero(spec_.shape.size(), 0);
        core::FillStridedRegion({chunk.data(), spec_.shape, zero}, spec_.shape, spec_.fill_value);
      }
    }
    core::CopyStridedRegion(write.source, {chunk.data(), spec_.shape, write.box.start()},
                            write.box.shape(), spec_.dtype.size());
    if (!fill_value_null_ && IsFilledWith(chunk, spec_.fill_value)) {
      return std::optional<Bytes>();
    }
    Result<Bytes> encoded = chain_->Encode(spec_, chunk);
    if (!encoded.ok()) return encoded.status().WithContext(store_->Describe(key));
    return std::optional<Bytes>(std::move(encoded).value());
  }

  std::shared_ptr<store::Store> store_;
  std::shared_ptr<const codec::CodecChain> chain_;
  codec::ChunkSpec spec_;
  bool fill_value_null_;
  std::shared_ptr<const ArrayCache> cache_;
};

class ShardObjects final : public GridObjects {
 public:
  ShardObjects(std::shared_ptr<store::Store> store, std::shared_ptr<const ShardingCodec> sharding,
               codec::ChunkSpec spec, std::shared_ptr<const ArrayCache> cache)
      : store_(std::move(store)),
        sharding_(std::move(sharding)),
        spec_(std::move(spec)),
        cache_(std::move(cache)) {}

  Result<bool> Read(const std::string& key, const Region& box,
                    const core::StridedDestination& target,
                    const ShardCallContext& context) const override {
    return Shard(key).ReadRegion(box, target, context);
  }

  bool ReadIfCached(const std::string& key, const Region& box,
                    const core::StridedDestination& target) const override {
    return Shard(key).ReadRegionIfCached(box, target);
  }

  Result<std::shared_ptr<const Bytes>> ReadChunk(const std::string& key,
                                                 std::span<const core::Index> inner,
                                                 const ShardCallContext& context) const override {
    return Shard(key).ReadInner(inner, context);
  }

  // Shards of a store whose gets are batched and whose ranges are cheap, with
  // the cache off (a viewer's reads with it on go shard by shard, so that
  // what the cache holds is copied out without a request).
  bool batches_reads() const override {
    return store::BatchesGets(*store_) && store_->capabilities().efficient_ranges &&
           !cache_->enabled();
  }

  // The shards' indexes, then the inner chunks their boxes need, in batches
  // of requests (ReadShardRegions) of about kFetchBytes, decoded on the
  // pool while the next batch is on the wire: two round trips (the
  // indexes' suffix GETs, then the chunks'). A region that meets no more
  // shards than the pool has threads (a viewer's box) is read a shard per
  // thread instead, each shard's reader finding the index in the one tail
  // GET that opens it: as many round trips, decoded as each shard arrives.
  Status ReadAll(std::span<const ObjectRead> reads, const ShardCallContext& context,
                 std::span<std::uint8_t> stored, const std::function<Status(std::size_t)>& done,
                 const core::Cancellation* cancellation) const override {
    const std::size_t threads = context.pool != nullptr ? context.pool->num_threads() : 1;
    if (reads.size() <= threads) {
      return GridObjects::ReadAll(reads, context, stored, done, cancellation);
    }
    std::vector<ShardRegionRead> shards;
    shards.reserve(reads.size());
    for (const ObjectRead& read : reads) shards.push_back({read.key, read.box, read.target});
    return ReadShardRegions(*store_, shards, *sharding_, spec_, kFetchBytes, context, stored, done,
                            cancellation);
  }

  Status Write(const std::string& key, const ShardWriteSource& write, bool replaces,
               const ShardCallContext& context) const override {
    return Shard(key).Write(write, replaces, context);
  }

  bool batches_writes() const override { return store::BatchesPuts(*store_); }

  // Every shard's read (of a shard written in part) in one batch, the
  // shards encoded on the pool, their PUTs in one batch
  // (store::UpdateObjects), a batch holding about kBatchBytes of shards, or
  // one shard per pool thread where that is more: as many as a thread per
  // shard held, so that large shards still keep the pool busy.
  Status WriteAll(std::span<const ObjectWrite> writes, const ShardCallContext& context,
                  const std::function<Status(std::size_t)>& done,
                  const core::Cancellation* cancellation) const override {
    std::vector<std::size_t> all(writes.size());
    for (std::size_t i = 0; i < all.size(); ++i) all[i] = i;
    const std::size_t threads = context.pool != nullptr ? context.pool->num_threads() : 1;
    return UpdateInBatches(
        *store_, writes, all, std::max(BatchObjects(spec_.num_bytes()), threads), context,
        [&](const ObjectWrite& write, const std::optional<Bytes>& old,
            const store::WriteMerged& put) {
          return Shard(write.key).Merge(write.write, old, put, context);
        },
        *cache_, done, cancellation);
  }

  Status Count(const std::string& key, ArrayStorageStats& stats) const override {
    // One request per shard: its reader gives the size and the index.
    std::uint64_t shard_bytes = 0;
    CHUNKWISE_ASSIGN_OR_RETURN(const std::optional<ShardIndex> index,
                               Shard(key).ReadIndex(&shard_bytes));
    if (!index) return Status::Ok();  // Removed since it was listed.
    ++stats.stored_keys;
    stats.stored_bytes += shard_bytes;
    for (std::size_t k = 0; k < index->size(); ++k)
      stats.stored_inner_chunks += !index->at(k).empty();
    return Status::Ok();
  }

  // The shards' indexes in batches of requests where the store batches
  // (ReadShardIndexes), each giving its shard's size too.
  Status CountAll(std::span<const std::string> keys, const ShardCallContext& context,
                  ArrayStorageStats& stats) const override {
    CHUNKWISE_ASSIGN_OR_RETURN(
        const std::vector<ShardIndexRead> reads,
        ReadShardIndexes(*store_, keys, *sharding_, spec_, cache_.get(), context.pool));
    for (const ShardIndexRead& read : reads) {
      if (!read.index) continue;  // Removed since it was listed.
      ++stats.stored_keys;
      stats.stored_bytes += read.shard_bytes;
      for (std::size_t k = 0; k < read.index->size(); ++k) {
        stats.stored_inner_chunks += !read.index->at(k).empty();
      }
    }
    return Status::Ok();
  }

  std::uint64_t inner_chunks_per_object() const override {
    return static_cast<std::uint64_t>(sharding_->InnerGrid(spec_.shape).num_chunks());
  }

 private:
  ShardStore Shard(const std::string& key) const {
    return ShardStore(*store_, key, *sharding_, spec_, cache_.get());
  }

  std::shared_ptr<store::Store> store_;
  std::shared_ptr<const ShardingCodec> sharding_;
  codec::ChunkSpec spec_;
  std::shared_ptr<const ArrayCache> cache_;
};

}  // namespace

Status GridObjects::ReadAll(std::span<const ObjectRead> reads, const ShardCallContext& context,
                            std::span<std::uint8_t> stored,
                            const std::function<Status(std::size_t)>& done,
                            const core::Cancellation*) const {
  const auto read_one = [&](std::size_t i) -> Status {
    CHUNKWISE_ASSIGN_OR_RETURN(const bool present,
                               Read(reads[i].key, reads[i].box, reads[i].target, context));
    stored[i] = present;
    return done(i);
  };
  if (context.pool == nullptr) {
    for (std::size_t i = 0; i < reads.size(); ++i) CHUNKWISE_RETURN_IF_ERROR(read_one(i));
    return Status::Ok();
  }
  return context.pool->ParallelFor(reads.size(), read_one);
}

Status GridObjects::CountAll(std::span<const std::string> keys, const ShardCallContext& context,
                             ArrayStorageStats& stats) const {
  std::vector<ArrayStorageStats> counted(keys.size());
  CHUNKWISE_RETURN_IF_ERROR(
      RunOnPool(context, keys.size(), [&](std::size_t i) { return Count(keys[i], counted[i]); }));
  for (const ArrayStorageStats& one : counted) {
    stats.stored_keys += one.stored_keys;
    stats.stored_bytes += one.stored_bytes;
    stats.stored_inner_chunks += one.stored_inner_chunks;
  }
  return Status::Ok();
}

Status GridObjects::WriteAll(std::span<const ObjectWrite> writes, const ShardCallContext& context,
                             const std::function<Status(std::size_t)>& done,
                             const core::Cancellation* cancellation) const {
  return RunOnPool(context, writes.size(), [&](std::size_t i) -> Status {
    if (cancellation != nullptr && cancellation->cancelled()) {
      return cancellation->Check(writes[i].key);
    }
    CHUNKWISE_RETURN_IF_ERROR(Write(writes[i].key, writes[i].write, writes[i].replaces, context));
    return done(i);
  });
}

std::shared_ptr<const GridObjects> PlainChunks(std::shared_ptr<store::Store> store,
                                               std::shared_ptr<const codec::CodecChain> chain,
                                               const codec::ChunkSpec& spec, bool fill_value_null,
                                               std::shared_ptr<const ArrayCache> cache) {
  return std::make_shared<const PlainChunkObjects>(std::move(store), std::move(chain), spec,
                                                   fill_value_null, std::move(cache));
}

std::shared_ptr<const GridObjects> Shards(std::shared_ptr<store::Store> store,
                                          std::shared_ptr<const ShardingCodec> sharding,
                                          const codec::ChunkSpec& spec,
                                          std::shared_ptr<const ArrayCache> cache) {
  return std::make_shared<const ShardObjects>(std::move(store), std::move(sharding), spec,
                                              std::move(cache));
}

}  // namespace chunkwise::formats::zarr
