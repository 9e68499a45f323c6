#include "formats/zarr/shard_store.h"

#include <algorithm>
#include <atomic>
#include <charconv>
#include <functional>
#include <future>
#include <map>
#include <utility>

#include "array_cache.h"
#include "chunkwise/core/buffer_pool.h"
#include "core/ravel.h"
#include "store/batched_gets.h"
#include "store/range_coalescing.h"
#include "store/reader_of_version.h"
#include "store/update_object.h"

namespace chunkwise::formats::zarr {
namespace {

// Reads each range of a shard into `scratch`, a buffer its caller may
// reuse: the index, and, from a local store, one inner chunk at a time just
// before it is decoded, so that its bytes go from the store into a buffer
// still in cache and never through a shard-sized buffer in memory.
ShardByteReader RangeReader(const store::ValueReader& reader) {
  return [&reader](std::uint64_t offset, std::uint64_t nbytes, Bytes& scratch) -> Result<ByteView> {
    scratch.resize(nbytes);
    const store::ByteRange range = store::ByteRange::Span(offset, nbytes);
    CHUNKWISE_RETURN_IF_ERROR(reader.ReadInto(std::span(&range, 1), scratch));
    return ByteView(scratch);
  };
}

// Shard byte ranges (offset, size), each mapped to a view of its bytes.
using FetchedRanges = std::map<std::pair<std::uint64_t, std::uint64_t>, ByteView>;

// The requests that read a set of shard byte ranges: `needed` (the ranges,
// in the order of FetchedRanges' keys) joined into `groups` as the limits
// allow (store/range_coalescing.h), `total` bytes in all.
struct RangePlan {
  std::vector<store::ByteRange> needed;
  std::vector<store::CoalescedRange> groups;
  std::uint64_t total = 0;
};

// Plans the reads of `ranges` (each inside the shard: its index was
// checked) under `limits`. Should the requests add up to more than the span
// the ranges cover (a hostile index pointing many entries at the same
// bytes), that span is one request instead, so that what is read never
// outgrows the shard.
RangePlan PlanRanges(const FetchedRanges& ranges, const store::RangeCoalescing& limits) {
  RangePlan plan;
  plan.needed.reserve(ranges.size());
  std::uint64_t low = UINT64_MAX, high = 0;
  for (const auto& [range, view] : ranges) {
    plan.needed.push_back(store::ByteRange::Span(range.first, range.second));
    low = std::min(low, range.first);
    high = std::max(high, range.first + range.second);
  }
  if (ranges.empty()) return plan;
  plan.groups = store::CoalesceRanges(plan.needed, limits);
  for (const store::CoalescedRange& group : plan.groups) plan.total += group.length;
  if (plan.total > high - low) {
    std::vector<std::size_t> all(plan.needed.size());
    for (std::size_t i = 0; i < all.size(); ++i) all[i] = i;
    plan.groups = {store::CoalescedRange{low, high - low, std::move(all)}};
    plan.total = high - low;
  }
  return plan;
}

// Points each range's view in `ranges` at its bytes, group g of `plan`
// having been read into `group_bytes(g)`.
void PointViews(const RangePlan& plan,
                const std::function<const std::uint8_t*(std::size_t)>& group_bytes,
                FetchedRanges& ranges) {
  // The views, in the map's order, which is the order `needed` was built in.
  std::vector<ByteView> views(plan.needed.size());
  for (std::size_t g = 0; g < plan.groups.size(); ++g) {
    const store::CoalescedRange& group = plan.groups[g];
    for (const std::size_t member : group.members) {
      views[member] = ByteView(group_bytes(g) + (plan.needed[member].offset - group.offset),
                               plan.needed[member].length);
    }
  }
  std::size_t i = 0;
  for (auto& [range, view] : ranges) view = views[i++];
}

// Reads the ranges of a shard into one pooled buffer and points each
// range's view at them: the ranges planned as PlanRanges does, all asked of
// the reader in one batch.
Result<core::BufferPool::Lease> FetchRanges(const store::ValueReader& reader, FetchedRanges& ranges,
                                            core::BufferPool* buffers,
                                            const store::RangeCoalescing& limits) {
  if (ranges.empty()) return core::BufferPool::Lease();
  const RangePlan plan = PlanRanges(ranges, limits);
  std::vector<store::ByteRange> reads;
  reads.reserve(plan.groups.size());
  std::vector<std::uint64_t> at;  // Where each group starts in the buffer.
  std::uint64_t next = 0;
  for (const store::CoalescedRange& group : plan.groups) {
    reads.push_back(store::ByteRange::Span(group.offset, group.length));
    at.push_back(next);
    next += group.length;
  }
  core::BufferPool::Lease buffer = core::BufferPool::TakeFrom(buffers, plan.total);
  CHUNKWISE_RETURN_IF_ERROR(reader.ReadInto(reads, buffer.view()));
  PointViews(
      plan, [&](std::size_t g) { return buffer.data() + at[g]; }, ranges);
  return buffer;
}

// Whether a read of several inner chunks from `store` joins their ranges
// into few requests (store::ReadCoalescing).
bool Coalesces(const store::Store& store, const store::ReadCoalescing& coalescing) {
  return store.capabilities().local ? coalescing.local : coalescing.remote;
}

// The limits a read of `store` plans its requests under: Off where it does
// not coalesce.
store::RangeCoalescing LimitsFor(const store::Store& store,
                                 const store::ReadCoalescing& coalescing) {
  return Coalesces(store, coalescing) ? coalescing.limits : store::RangeCoalescing::Off();
}

// Runs body(i) for i < n on `pool`, or on this thread when it is null.
Status ForEach(core::ThreadPool* pool, std::size_t n,
               const std::function<Status(std::size_t)>& body) {
  if (pool != nullptr) return pool->ParallelFor(n, body);
  for (std::size_t i = 0; i < n; ++i) CHUNKWISE_RETURN_IF_ERROR(body(i));
  return Status::Ok();
}

// Numbers the readings of shard indexes (CachedIndex::serial).
std::atomic<std::uint64_t> index_serials{0};

// The index of the shard `reader` reads, as the cache keeps it
// (`Indexed`: ShardStore::CachedIndex, private to it).
template <typename Indexed>
Result<std::shared_ptr<const Indexed>> IndexThrough(const store::ValueReader& reader,
                                                    const ShardingCodec& codec, std::size_t n,
                                                    const std::string& where) {
  CHUNKWISE_ASSIGN_OR_RETURN(ShardIndex index,
                             codec.ReadIndex(RangeReader(reader), reader.size(), n, where));
  return std::make_shared<const Indexed>(
      Indexed{std::move(index), reader.size(), ++index_serials, reader.generation()});
}

}  // namespace

// A decoded inner chunk as the cache keeps it, with the reading of the
// index it was found by (CachedIndex::serial).
struct ShardStore::CachedInner {
  Bytes elements;
  std::uint64_t index_serial = 0;
};

struct ShardStore::CachedIndex {
  ShardIndex index;
  std::uint64_t shard_bytes = 0;
  // Names this reading of the index among all others, so that an inner
  // chunk kept in the cache is used only with the index it was read by: a
  // read must not join chunks of the shard before and after a write.
  std::uint64_t serial = 0;
  // The version the index was read from, where the store's reader tells.
  std::optional<store::Generation> generation;

  // Whether `reader` reads the version this index describes, as far as it
  // can tell: the same size, and the same generation where both are known.
  bool Describes(const store::ValueReader& reader) const {
    const std::optional<store::Generation> other = reader.generation();
    return reader.size() == shard_bytes && (!generation || !other || *generation == *other);
  }
};

ShardStore::ShardStore(store::Store& parent, std::string key, const ShardingCodec& codec,
                       const codec::ChunkSpec& shard_spec, const ArrayCache* cache)
    : parent_(parent),
      key_(std::move(key)),
      where_(parent.Describe(key_)),
      codec_(codec),
      spec_(shard_spec),
      inner_grid_(codec.InnerGrid(shard_spec.shape)),
      n_(static_cast<std::size_t>(inner_grid_.num_chunks())),
      cache_(cache) {}

std::string ShardStore::InnerKey(std::size_t k) const {
  const core::Coord coord = core::Unravel(static_cast<core::Index>(k), inner_grid_.grid_shape());
  std::string key;
  for (std::size_t d = 0; d < coord.size(); ++d) {
    if (d > 0) key += '/';
    key += std::to_string(coord[d]);
  }
  return key;
}

Result<std::size_t> ShardStore::InnerPosition(std::string_view inner_key) const {
  const core::Shape& grid = inner_grid_.grid_shape();
  core::Coord coord;
  bool ok = true;
  std::size_t from = 0;
  while (ok && from <= inner_key.size()) {
    const std::size_t slash = std::min(inner_key.find('/', from), inner_key.size());
    const std::string_view part = inner_key.substr(from, slash - from);
    core::Index value = -1;
    const auto [end, error] = std::from_chars(part.data(), part.data() + part.size(), value);
    ok = !part.empty() && error == std::errc() && end == part.data() + part.size() &&
         coord.size() < grid.size() && value >= 0 && value < grid[coord.size()];
    coord.push_back(value);
    from = slash + 1;
  }
  if (!ok || coord.size() != grid.size()) {
    return Status::InvalidArgument(where_ + ": \"" + std::string(inner_key) +
                                   "\" names no inner chunk of a shard of [" +
                                   core::FormatShape(grid) + "] inner chunks");
  }
  return static_cast<std::size_t>(core::Ravel(coord, grid));
}

Result<std::optional<Bytes>> ShardStore::Get(std::string_view inner_key) const {
  CHUNKWISE_ASSIGN_OR_RETURN(const std::size_t k, InnerPosition(inner_key));
  return GetInner(k);
}

Result<std::optional<Bytes>> ShardStore::GetRange(std::string_view inner_key,
                                                  store::ByteRange range) const {
  CHUNKWISE_ASSIGN_OR_RETURN(std::optional<Bytes> value, Get(inner_key));
  if (!value) return value;
  CHUNKWISE_ASSIGN_OR_RETURN(const store::ByteRange span,
                             range.Resolve(value->size(), Describe(inner_key)));
  return std::optional<Bytes>(CopyToBytes(ByteView(*value).subspan(span.offset, span.length)));
}

Status ShardStore::Set(std::string_view inner_key, ByteView value) {
  CHUNKWISE_ASSIGN_OR_RETURN(const std::size_t k, InnerPosition(inner_key));
  const InnerValue one{k, value};
  return SetInners(std::span<const InnerValue>(&one, 1));
}

Status ShardStore::Erase(std::string_view inner_key) {
  CHUNKWISE_ASSIGN_OR_RETURN(const std::size_t k, InnerPosition(inner_key));
  const InnerValue one{k, std::nullopt};
  return SetInners(std::span<const InnerValue>(&one, 1));
}

Result<std::vector<std::string>> ShardStore::List(std::string_view prefix) const {
  CHUNKWISE_ASSIGN_OR_RETURN(const std::optional<ShardIndex> index, ReadIndex());
  std::vector<std::string> keys;
  if (!index) return keys;
  for (std::size_t k = 0; k < n_; ++k) {
    if (index->at(k).empty()) continue;
    std::string key = InnerKey(k);
    if (key.starts_with(prefix)) keys.push_back(std::move(key));
  }
  std::sort(keys.begin(), keys.end());  // Text order: "10/0" before "9/0".
  return keys;
}

Result<std::optional<std::uint64_t>> ShardStore::Size(std::string_view inner_key) const {
  CHUNKWISE_ASSIGN_OR_RETURN(const std::size_t k, InnerPosition(inner_key));
  CHUNKWISE_ASSIGN_OR_RETURN(const std::optional<ShardIndex> index, ReadIndex());
  if (!index || index->at(k).empty()) return std::optional<std::uint64_t>();
  return std::optional<std::uint64_t>(index->at(k).nbytes);
}

store::StoreCapabilities ShardStore::capabilities() const {
  store::StoreCapabilities capabilities = parent_.capabilities();
  capabilities.listable = true;  // The index names every stored inner chunk.
  capabilities.lists_every_key = true;
  capabilities.conditional_writes = false;
  return capabilities;
}

std::string ShardStore::Describe(std::string_view inner_key) const {
  return where_ + " inner chunk " + std::string(inner_key);
}

Result<std::shared_ptr<const ShardStore::CachedIndex>> ShardStore::LoadIndex() const {
  CHUNKWISE_ASSIGN_OR_RETURN(std::unique_ptr<store::ValueReader> reader, parent_.OpenReader(key_));
  if (reader == nullptr) return std::shared_ptr<const CachedIndex>();
  return IndexThrough<CachedIndex>(*reader, codec_, n_, where_);
}

Result<std::shared_ptr<const ShardStore::CachedIndex>> ShardStore::IndexThroughCache(
    std::uint64_t ticket) const {
  const core::ChunkCacheKey key = cache_->Key(key_, core::ChunkCacheKey::kShardIndex);
  std::shared_ptr<const CachedIndex> index = cache_->cache().FindAs<CachedIndex>(key);
  if (index != nullptr) return index;
  CHUNKWISE_ASSIGN_OR_RETURN(index, LoadIndex());
  // An absent shard is not kept: a writer outside the array (a pipeline)
  // may add it, and only the arrays' own writes drop entries.
  if (index != nullptr) {
    cache_->cache().Insert(key, index, ShardIndex::EncodedSize(n_) + sizeof(CachedIndex), ticket);
  }
  return index;
}

Result<std::optional<ShardIndex>> ShardStore::ReadIndex(std::uint64_t* shard_bytes) const {
  std::shared_ptr<const CachedIndex> index;
  if (cache_ != nullptr && cache_->enabled()) {
    CHUNKWISE_ASSIGN_OR_RETURN(index,
                               IndexThroughCache(cache_->cache().Ticket(cache_->Object(key_))));
  } else {
    CHUNKWISE_ASSIGN_OR_RETURN(index, LoadIndex());
  }
  if (index == nullptr) return std::optional<ShardIndex>();
  if (shard_bytes != nullptr) *shard_bytes = index->shard_bytes;
  return std::optional<ShardIndex>(index->index);
}

Result<std::optional<Bytes>> ShardStore::GetInner(std::size_t k) const {
  CHUNKWISE_ASSIGN_OR_RETURN(std::vector<std::optional<Bytes>> one,
                             GetInners(std::span<const std::size_t>(&k, 1)));
  return std::move(one[0]);
}

Result<std::vector<std::optional<Bytes>>> ShardStore::GetInners(
    std::span<const std::size_t> ks) const {
  for (const std::size_t k : ks) {
    if (k >= n_) {
      return Status::InvalidArgument(where_ + ": inner chunk " + std::to_string(k) +
                                     " of a shard of " + std::to_string(n_));
    }
  }
  std::vector<std::optional<Bytes>> chunks(ks.size());
  CHUNKWISE_ASSIGN_OR_RETURN(std::unique_ptr<store::ValueReader> reader, parent_.OpenReader(key_));
  if (reader == nullptr) return chunks;
  CHUNKWISE_ASSIGN_OR_RETURN(ShardIndex index,
                             codec_.ReadIndex(RangeReader(*reader), reader->size(), n_, where_));
  FetchedRanges fetched_at;
  for (const std::size_t k : ks) {
    const ChunkLocation& location = index.at(k);
    if (!location.empty()) fetched_at[{location.offset, location.nbytes}] = {};
  }
  CHUNKWISE_ASSIGN_OR_RETURN(core::BufferPool::Lease fetched,
                             FetchRanges(*reader, fetched_at, nullptr, store::RangeCoalescing{}));
  for (std::size_t i = 0; i < ks.size(); ++i) {
    const ChunkLocation& location = index.at(ks[i]);
    if (!location.empty())
      chunks[i] = CopyToBytes(fetched_at.at({location.offset, location.nbytes}));
  }
  return chunks;
}

Result<bool> ShardStore::ReadRegion(const core::Region& box,
                                    const core::StridedDestination& destination,
                                    const ShardCallContext& context) const {
  if (cache_ != nullptr && cache_->enabled())
    return ReadRegionThroughCache(box, destination, context);
  return ReadRegionFromStore(box, destination, context);
}

bool ShardStore::ReadRegionIfCached(const core::Region& box,
                                    const core::StridedDestination& destination) const {
  if (cache_ == nullptr || !cache_->enabled()) return false;
  const std::vector<core::Coord> chunks = inner_grid_.ChunksIntersecting(box);
  std::vector<std::size_t> ks(chunks.size());
  for (std::size_t i = 0; i < chunks.size(); ++i)
    ks[i] = static_cast<std::size_t>(core::Ravel(chunks[i], inner_grid_.grid_shape()));
  const std::optional<std::vector<std::shared_ptr<const CachedInner>>> decoded =
      KeptInners(ks, true);
  if (!decoded) return false;
  const codec::ChunkSpec inner_spec = codec_.InnerSpec(spec_);
  const std::size_t element_size = spec_.dtype.size();
  const std::vector<std::uint8_t> fill =
      spec_.fill_value.empty() ? std::vector<std::uint8_t>(element_size, 0) : spec_.fill_value;
  for (std::size_t i = 0; i < chunks.size(); ++i) {
    const core::ChunkOverlap overlap = *inner_grid_.Overlap(chunks[i], box);
    core::Coord origin(destination.origin.begin(), destination.origin.end());
    for (std::size_t d = 0; d < origin.size(); ++d) origin[d] += overlap.region_local.start()[d];
    const core::StridedDestination target{destination.data, destination.shape, origin,
                                          destination.streaming};
    if ((*decoded)[i] == nullptr) {  // Empty in the index.
      core::FillStridedRegion(target, overlap.array.shape(), fill);
      continue;
    }
    core::CopyStridedRegion(
        {(*decoded)[i]->elements.data(), inner_spec.shape, overlap.chunk_local.start()}, target,
        overlap.array.shape(), element_size);
  }
  return true;
}

auto ShardStore::KeptInners(std::span<const std::size_t> ks, bool counted) const
    -> std::optional<std::vector<std::shared_ptr<const CachedInner>>> {
  core::ChunkCache& cache = cache_->cache();
  const core::ChunkCacheKey index_key = cache_->Key(key_, core::ChunkCacheKey::kShardIndex);
  std::vector<std::shared_ptr<const CachedInner>> decoded(ks.size());
  for (const bool count : {false, true}) {
    if (count && !counted) break;
    const std::shared_ptr<const CachedIndex> indexed =
        count ? cache.FindAs<CachedIndex>(index_key) : cache.PeekAs<CachedIndex>(index_key);
    if (indexed == nullptr) return std::nullopt;
    for (std::size_t i = 0; i < ks.size(); ++i) {
      if (indexed->index.at(ks[i]).empty()) continue;
      const core::ChunkCacheKey key = cache_->Key(key_, static_cast<std::int64_t>(ks[i]));
      decoded[i] = count ? cache.FindAs<CachedInner>(key) : cache.PeekAs<CachedInner>(key);
      if (decoded[i] == nullptr || decoded[i]->index_serial != indexed->serial) return std::nullopt;
    }
  }
  return decoded;
}

Result<std::shared_ptr<const Bytes>> ShardStore::ReadInner(std::span<const core::Index> inner,
                                                           const ShardCallContext& context) const {
  if (static_cast<int>(inner.size()) != inner_grid_.rank() || !inner_grid_.ContainsChunk(inner)) {
    return Status::InvalidArgument(where_ + ": inner chunk [" + core::FormatShape(inner) +
                                   "] is outside the shard's grid of inner chunks [" +
                                   core::FormatShape(inner_grid_.grid_shape()) + "]");
  }
  const auto k = static_cast<std::size_t>(core::Ravel(inner, inner_grid_.grid_shape()));
  // The cache's decoding of the chunk as its elements, sharing the entry's
  // ownership (alive as long as either is); null when not kept.
  const auto kept = [&](bool counted) -> std::shared_ptr<const Bytes> {
    if (cache_ == nullptr || !cache_->enabled()) return nullptr;
    const auto found = KeptInners({&k, 1}, counted);
    if (!found || found->front() == nullptr) return nullptr;
    return {found->front(), &found->front()->elements};
  };
  if (std::shared_ptr<const Bytes> chunk = kept(true)) return chunk;
  // Decoded as a read of its box decodes it: through the cache, which then
  // keeps it (and its index), or straight from the store. The one copy out
  // of the kept buffer into this one is a miss's only extra cost.
  const codec::ChunkSpec inner_spec = codec_.InnerSpec(spec_);
  auto fresh = std::make_shared<Bytes>(static_cast<std::size_t>(inner_spec.num_bytes()));
  const core::Coord zero(inner.size(), 0);
  CHUNKWISE_RETURN_IF_ERROR(ReadRegion(inner_grid_.UnclippedChunkRegion(inner),
                                       {fresh->data(), inner_spec.shape, zero, false}, context)
                                .status());
  if (std::shared_ptr<const Bytes> chunk = kept(false)) return chunk;
  return std::shared_ptr<const Bytes>(std::move(fresh));
}

Result<bool> ShardStore::ReadRegionThroughCache(const core::Region& box,
                                                const core::StridedDestination& destination,
                                                const ShardCallContext& context) const {
  core::ChunkCache& cache = cache_->cache();
  // Taken before the index or any chunk is read: a write of the shard from
  // now on keeps what this read decodes out of the cache.
  const std::uint64_t ticket = cache.Ticket(cache_->Object(key_));
  // The index as IndexThroughCache finds it, but when it is not kept, the
  // chunks are read through the reader it was read through: a first read
  // of a shard opens it once (over HTTP, one request fewer).
  const core::ChunkCacheKey index_key = cache_->Key(key_, core::ChunkCacheKey::kShardIndex);
  std::shared_ptr<const CachedIndex> indexed = cache.FindAs<CachedIndex>(index_key);
  std::unique_ptr<store::ValueReader> reader;
  if (indexed == nullptr) {
    CHUNKWISE_ASSIGN_OR_RETURN(reader, parent_.OpenReader(key_));
    // No shard: not kept, as in IndexThroughCache.
    if (reader == nullptr) return ReadRegionFromStore(box, destination, context);
    CHUNKWISE_ASSIGN_OR_RETURN(indexed, IndexThrough<CachedIndex>(*reader, codec_, n_, where_));
    cache.Insert(index_key, indexed, ShardIndex::EncodedSize(n_) + sizeof(CachedIndex), ticket);
  }
  const ShardIndex& index = indexed->index;
  const codec::ChunkSpec inner_spec = codec_.InnerSpec(spec_);
  const std::vector<core::Coord> chunks = inner_grid_.ChunksIntersecting(box);
  // The decoded inner chunks the cache holds; the others (`misses`, by
  // position in `chunks`) are fetched in one batch.
  std::vector<std::shared_ptr<const CachedInner>> decoded(chunks.size());
  std::vector<std::size_t> misses;
  FetchedRanges fetched_at;
  for (std::size_t i = 0; i < chunks.size(); ++i) {
    const std::size_t k =
        static_cast<std::size_t>(core::Ravel(chunks[i], inner_grid_.grid_shape()));
    const ChunkLocation& location = index.at(k);
    if (location.empty()) continue;
    decoded[i] = cache.FindAs<CachedInner>(cache_->Key(key_, static_cast<std::int64_t>(k)));
    // One kept under another reading of the index may be of another version.
    if (decoded[i] != nullptr && decoded[i]->index_serial != indexed->serial) decoded[i] = nullptr;
    if (decoded[i] == nullptr) {
      misses.push_back(i);
      fetched_at[{location.offset, location.nbytes}] = {};
    }
  }
  std::optional<Bytes> whole;
  core::BufferPool::Lease fetched;
  if (!fetched_at.empty()) {
    if (parent_.capabilities().efficient_ranges) {
      const bool index_was_kept = reader == nullptr;
      if (index_was_kept) {
        // A reader of the version the kept index describes: over HTTP made
        // without a request (no GET of the tail to learn the size and ETag
        // again), its reads pinned to the ETag; a file is opened and compared.
        CHUNKWISE_ASSIGN_OR_RETURN(
            reader,
            store::OpenReaderOfVersion(parent_, key_, indexed->shard_bytes, indexed->generation));
      }
      // Another version than the index's: a write raced this read (ours
      // drops the index once done). Read it as without a cache, index and
      // chunks from the one version the reader holds.
      if (reader == nullptr || !indexed->Describes(*reader)) {
        return ReadRegionFromStore(box, destination, context);
      }
      Result<core::BufferPool::Lease> ranges =
          FetchRanges(*reader, fetched_at, context.buffers, LimitsFor(parent_, context.coalescing));
      if (index_was_kept && !ranges.ok() && ranges.status().code() == StatusCode::kNotFound) {
        // The pinned version is gone (another writer's change, which the
        // cache does not see): what it kept of the shard is stale.
        cache_->Invalidate(key_);
        return ReadRegionFromStore(box, destination, context);
      }
      CHUNKWISE_ASSIGN_OR_RETURN(fetched, std::move(ranges));
    } else {  // One request for the whole shard, as without a cache.
      CHUNKWISE_ASSIGN_OR_RETURN(whole, parent_.Get(key_));
      if (!whole) return ReadRegionFromStore(box, destination, context);
      for (auto& [range, view] : fetched_at) {
        // The kept index is of the shard some write of ours left; one
        // written since by another process may be shorter.
        if (range.first > whole->size() || range.second > whole->size() - range.first) {
          return Status::Corruption(where_ +
                                    " changed since its index was cached: an inner "
                                    "chunk lies past its end");
        }
        view = ByteView(*whole).subspan(range.first, range.second);
      }
    }
  }
  const std::size_t element_size = spec_.dtype.size();
  const std::vector<std::uint8_t> fill =
      spec_.fill_value.empty() ? std::vector<std::uint8_t>(element_size, 0) : spec_.fill_value;
  // Copies chunks[i]'s part of the box out of its decoded chunk, or fills it.
  const auto copy_out = [&](std::size_t i) {
    const core::ChunkOverlap overlap = *inner_grid_.Overlap(chunks[i], box);
    core::Coord origin(destination.origin.begin(), destination.origin.end());
    for (std::size_t d = 0; d < origin.size(); ++d) origin[d] += overlap.region_local.start()[d];
    const core::StridedDestination target{destination.data, destination.shape, origin,
                                          destination.streaming};
    if (decoded[i] == nullptr) {  // Not stored.
      core::FillStridedRegion(target, overlap.array.shape(), fill);
      return;
    }
    core::CopyStridedRegion(
        {decoded[i]->elements.data(), inner_spec.shape, overlap.chunk_local.start()}, target,
        overlap.array.shape(), element_size);
  };
  // Only the decodes go to the pool: a read that misses one chunk decodes
  // it on this thread, with no thread to wake and wait for (on a loaded
  // machine, the wait can outlast the decode), and the copies out of chunks
  // the cache held, which cost less than waking a thread, are done here.
  CHUNKWISE_RETURN_IF_ERROR(ForEach(context.pool, misses.size(), [&](std::size_t j) -> Status {
    const std::size_t i = misses[j];
    const std::size_t k =
        static_cast<std::size_t>(core::Ravel(chunks[i], inner_grid_.grid_shape()));
    const ChunkLocation& location = index.at(k);
    Result<Bytes> chunk = DecodeForCache(codec_.inner_codecs(), inner_spec,
                                         fetched_at.at({location.offset, location.nbytes}));
    if (!chunk.ok()) {
      return chunk.status().WithContext(where_ + " inner chunk [" + core::FormatShape(chunks[i]) +
                                        "]");
    }
    auto value =
        std::make_shared<const CachedInner>(CachedInner{std::move(chunk).value(), indexed->serial});
    cache.Insert(cache_->Key(key_, static_cast<std::int64_t>(k)), value,
                 value->elements.size() + sizeof(CachedInner), ticket);
    decoded[i] = std::move(value);
    copy_out(i);
    return Status::Ok();
  }));
  for (std::size_t i = 0; i < chunks.size(); ++i) {
    if (std::find(misses.begin(), misses.end(), i) == misses.end()) copy_out(i);
  }
  return true;
}

Result<bool> ShardStore::ReadRegionFromStore(const core::Region& box,
                                             const core::StridedDestination& destination,
                                             const ShardCallContext& context) const {
  const auto fill = [&]() -> Result<bool> {  // No shard: all fill value.
    core::FillStridedRegion(destination, box.shape(), spec_.fill_value);
    return false;
  };
  // Stores without cheap ranges (object stores) get one request per shard.
  // Others are read by range, the index first and then only the chunks the
  // box needs.
  if (!parent_.capabilities().efficient_ranges) {
    CHUNKWISE_ASSIGN_OR_RETURN(std::optional<Bytes> whole, parent_.Get(key_));
    if (!whole) return fill();
    const ShardByteReader read = MemoryShardReader(*whole);
    CHUNKWISE_ASSIGN_OR_RETURN(ShardIndex index, codec_.ReadIndex(read, whole->size(), n_, where_));
    CHUNKWISE_RETURN_IF_ERROR(
        codec_.DecodeRegion(spec_, index, read, box, destination, where_, context));
    return true;
  }
  // One reader for the index and the chunks: from a store that pins it (files,
  // memory), both come from one version of the shard, whatever a concurrent
  // writer does, and a file is opened once.
  CHUNKWISE_ASSIGN_OR_RETURN(std::unique_ptr<store::ValueReader> reader, parent_.OpenReader(key_));
  if (reader == nullptr) return fill();
  CHUNKWISE_ASSIGN_OR_RETURN(ShardIndex index,
                             codec_.ReadIndex(RangeReader(*reader), reader->size(), n_, where_));
  // Uncoalesced: each inner chunk read by the thread that decodes it, just
  // before it does (one request per chunk).
  if (!Coalesces(parent_, context.coalescing)) {
    CHUNKWISE_RETURN_IF_ERROR(
        codec_.DecodeRegion(spec_, index, RangeReader(*reader), box, destination, where_, context));
    return true;
  }
  // The chunks the box needs, keyed by offset and size (nothing forbids two
  // entries sharing bytes), fetched in coalesced requests of one batch into
  // one pooled buffer.
  const core::RegularChunkGrid inner = codec_.InnerGrid(spec_.shape);
  FetchedRanges fetched_at;
  for (const core::Coord& chunk : inner.ChunksIntersecting(box)) {
    const ChunkLocation& location = index.at(core::Ravel(chunk, inner.grid_shape()));
    if (!location.empty()) fetched_at[{location.offset, location.nbytes}] = {};
  }
  CHUNKWISE_ASSIGN_OR_RETURN(
      core::BufferPool::Lease fetched,
      FetchRanges(*reader, fetched_at, context.buffers, context.coalescing.limits));
  const ShardByteReader read = [&](std::uint64_t offset, std::uint64_t nbytes,
                                   Bytes&) -> Result<ByteView> {
    return fetched_at.at({offset, nbytes});
  };
  CHUNKWISE_RETURN_IF_ERROR(
      codec_.DecodeRegion(spec_, index, read, box, destination, where_, context));
  return true;
}

Result<std::optional<ShardIndex>> ShardStore::IndexOf(const std::optional<Bytes>& old,
                                                      ShardByteReader& read) const {
  if (!old) return std::optional<ShardIndex>();
  read = MemoryShardReader(*old);
  CHUNKWISE_ASSIGN_OR_RETURN(ShardIndex index, codec_.ReadIndex(read, old->size(), n_, where_));
  return std::optional<ShardIndex>(std::move(index));
}

Status ShardStore::SetInners(std::span<const InnerValue> values) {
  std::vector<bool> named(n_, false);
  for (const InnerValue& value : values) {
    if (value.k >= n_ || named[value.k] || (value.value && value.value->empty())) {
      return Status::InvalidArgument(where_ + ": inner chunk " + std::to_string(value.k) +
                                     " of a shard of " + std::to_string(n_) +
                                     (value.k >= n_    ? " does not exist"
                                      : named[value.k] ? " is named twice in one batch"
                                                       : " cannot be stored empty"));
    }
    named[value.k] = true;
  }
  const Status status = store::UpdateObject(
      parent_, key_, store::UpdateMode::kMerge,
      [&](const std::optional<Bytes>& old, const store::WriteMerged& write) -> Status {
        ShardByteReader read_old;
        CHUNKWISE_ASSIGN_OR_RETURN(const std::optional<ShardIndex> old_index,
                                   IndexOf(old, read_old));
        std::vector<ByteView> chunks(n_);
        Bytes scratch;  // Unused: a memory reader returns views of the shard.
        for (std::size_t k = 0; old_index && k < n_; ++k) {
          const ChunkLocation& location = old_index->at(k);
          if (location.empty() || named[k]) continue;
          CHUNKWISE_ASSIGN_OR_RETURN(chunks[k],
                                     read_old(location.offset, location.nbytes, scratch));
        }
        for (const InnerValue& value : values) chunks[value.k] = value.value.value_or(ByteView());
        const std::optional<EncodedShard> shard = codec_.Pack(chunks);
        if (!shard) return write(std::nullopt);  // No inner chunk left: no shard.
        return write(std::span<const ByteView>(shard->parts));
      });
  Invalidate();  // Whether or not it failed, the shard may have changed.
  return status;
}

void ShardStore::Invalidate() const {
  if (cache_ != nullptr) cache_->Invalidate(key_);
}

Status ShardStore::Write(const ShardWriteSource& write, bool replaces,
                         const ShardCallContext& context) {
  // A whole shard replaces what is there, unread; only a partial write
  // merges, keeping the inner chunks it does not touch.
  const Status status = store::UpdateObject(
      parent_, key_, replaces ? store::UpdateMode::kReplace : store::UpdateMode::kMerge,
      [&](const std::optional<Bytes>& old, const store::WriteMerged& put) -> Status {
        return Merge(write, old, put, context);
      });
  Invalidate();
  return status;
}

Status ShardStore::Merge(const ShardWriteSource& write, const std::optional<Bytes>& old,
                         const store::WriteMerged& put, const ShardCallContext& context) const {
  ShardByteReader read_old;
  CHUNKWISE_ASSIGN_OR_RETURN(const std::optional<ShardIndex> old_index, IndexOf(old, read_old));
  CHUNKWISE_ASSIGN_OR_RETURN(
      const std::optional<EncodedShard> shard,
      codec_.EncodeMerged(spec_, write, old_index, read_old, where_, context));
  if (!shard) return put(std::nullopt);  // All fill now: no shard.
  return put(std::span<const ByteView>(shard->parts));
}

Result<std::vector<ShardIndexRead>> ReadShardIndexes(
    store::Store& parent, std::span<const std::string> keys, const ShardingCodec& codec,
    const codec::ChunkSpec& shard_spec, const ArrayCache* cache, core::ThreadPool* pool) {
  std::vector<ShardIndexRead> reads(keys.size());
  const auto read_alone = [&](std::size_t i) -> Status {
    const ShardStore shard(parent, keys[i], codec, shard_spec, cache);
    CHUNKWISE_ASSIGN_OR_RETURN(reads[i].index, shard.ReadIndex(&reads[i].shard_bytes));
    return Status::Ok();
  };
  const auto read_each = [&](std::span<const std::size_t> which) -> Status {
    const auto one = [&](std::size_t j) { return read_alone(which[j]); };
    if (pool != nullptr) return pool->ParallelFor(which.size(), one);
    for (std::size_t j = 0; j < which.size(); ++j) CHUNKWISE_RETURN_IF_ERROR(one(j));
    return Status::Ok();
  };
  std::vector<std::size_t> alone;
  if (!store::BatchesGets(parent)) {
    for (std::size_t i = 0; i < keys.size(); ++i) alone.push_back(i);
    CHUNKWISE_RETURN_IF_ERROR(read_each(alone));
    return reads;
  }
  const auto n = static_cast<std::size_t>(codec.InnerGrid(shard_spec.shape).num_chunks());
  const std::uint64_t index_size = ShardIndex::EncodedSize(n);
  // The index from its bytes, of a shard of `size` bytes; false (the shard
  // read alone) if they do not make one.
  const auto index_from = [&](std::size_t i, const Bytes& bytes, std::uint64_t size) {
    const ShardByteReader read = [&](std::uint64_t, std::uint64_t, Bytes&) -> Result<ByteView> {
      return ByteView(bytes);  // ReadIndex reads the index's range, the one fetched.
    };
    Result<ShardIndex> index = codec.ReadIndex(read, size, n, parent.Describe(keys[i]));
    if (!index.ok()) return false;
    reads[i].index = std::move(index).value();
    reads[i].shard_bytes = size;
    return true;
  };
  // One request per shard where the store can: the index's range (a suffix
  // for an index at the end) with the shard's size and ETag in the reply.
  std::vector<store::RangedKey> indexes;
  indexes.reserve(keys.size());
  for (const std::string& key : keys) {
    indexes.push_back({key,
                       codec.index_location() == IndexLocation::kStart
                           ? store::ByteRange::Span(0, index_size)
                           : store::ByteRange::Suffix(index_size),
                       std::nullopt});
  }
  if (std::optional<std::vector<Result<std::optional<store::RangeAtVersion>>>> got =
          store::GetRangeAtVersionMany(parent, indexes)) {
    for (std::size_t i = 0; i < keys.size(); ++i) {
      Result<std::optional<store::RangeAtVersion>>& one = (*got)[i];
      if (one.ok() && !one->has_value()) continue;  // No shard.
      if (!one.ok() || (*one)->size < index_size || (*one)->bytes.size() != index_size ||
          !index_from(i, (*one)->bytes, (*one)->size)) {
        alone.push_back(i);  // ReadIndex says what is wrong, or reads it as it is now.
        continue;
      }
      reads[i].generation = std::move((*one)->generation);
    }
    CHUNKWISE_RETURN_IF_ERROR(read_each(alone));
    for (std::size_t i : alone) reads[i].generation = store::Generation::Absent();
    return reads;
  }
  std::vector<Result<std::optional<std::uint64_t>>> sizes = store::SizeMany(parent, keys);
  std::vector<store::RangedKey> ranges;
  std::vector<std::size_t> ranged;  // The key of each range.
  for (std::size_t i = 0; i < keys.size(); ++i) {
    CHUNKWISE_RETURN_IF_ERROR(sizes[i].status());
    if (!sizes[i]->has_value()) continue;  // No shard.
    const std::uint64_t size = **sizes[i];
    if (size < index_size) {
      alone.push_back(i);  // Too short for its index: ReadIndex says so.
      continue;
    }
    const std::uint64_t offset =
        codec.index_location() == IndexLocation::kStart ? 0 : size - index_size;
    ranges.push_back({keys[i], store::ByteRange::Span(offset, index_size), std::nullopt});
    ranged.push_back(i);
  }
  std::vector<Result<std::optional<Bytes>>> got = store::GetRangeMany(parent, ranges);
  for (std::size_t r = 0; r < ranged.size(); ++r) {
    const std::size_t i = ranged[r];
    if (!got[r].ok() || !got[r]->has_value()) {
      alone.push_back(i);
      continue;
    }
    if (!index_from(i, **got[r], **sizes[i])) alone.push_back(i);
  }
  std::sort(alone.begin(), alone.end());
  CHUNKWISE_RETURN_IF_ERROR(read_each(alone));
  return reads;
}

namespace {

// ReadShardRegions' plan for one shard: its index, and the inner chunks its
// box needs (their views set once fetched), planned as requests.
struct ShardPlan {
  std::optional<ShardIndex> index;  // Nullopt: no shard stored (all fill).
  // The version the chunks' requests are pinned to (If-Match), the index's.
  std::optional<store::Generation> pin;
  FetchedRanges chunks;
  RangePlan requests;
  bool alone = false;  // To be read again alone (ShardStore::ReadRegion).
};

// The plans of reads [first, end): their indexes as ReadShardIndexes reads
// them (one batch of requests on http(s) and S3, else two), and their inner
// chunks' ranges joined under `limits`. Where the store named versions, the
// chunks are to be read at the index's version; a shard whose version is
// not known is read alone (its reader pins its reads to one version).
Result<std::vector<ShardPlan>> PlanShards(store::Store& parent,
                                          std::span<const ShardRegionRead> reads,
                                          const ShardingCodec& codec,
                                          const codec::ChunkSpec& shard_spec,
                                          const store::RangeCoalescing& limits) {
  std::vector<std::string> keys;
  keys.reserve(reads.size());
  for (const ShardRegionRead& read : reads) keys.push_back(read.key);
  CHUNKWISE_ASSIGN_OR_RETURN(std::vector<ShardIndexRead> indexes,
                             ReadShardIndexes(parent, keys, codec, shard_spec, nullptr, nullptr));
  const core::RegularChunkGrid inner = codec.InnerGrid(shard_spec.shape);
  std::vector<ShardPlan> plans(reads.size());
  for (std::size_t j = 0; j < reads.size(); ++j) {
    plans[j].index = std::move(indexes[j].index);
    if (!plans[j].index) continue;
    if (indexes[j].generation) {
      if (indexes[j].generation->absent()) {
        plans[j].alone = true;
        continue;
      }
      plans[j].pin = std::move(indexes[j].generation);
    }
    for (const core::Coord& chunk : inner.ChunksIntersecting(reads[j].box)) {
      const ChunkLocation& location = plans[j].index->at(core::Ravel(chunk, inner.grid_shape()));
      if (!location.empty()) plans[j].chunks[{location.offset, location.nbytes}] = {};
    }
    plans[j].requests = PlanRanges(plans[j].chunks, limits);
  }
  return plans;
}

// Fetches the inner chunks of plans [first, end) of `plans` (ranges of
// `reads`' shards) in one batch of requests and points their views at the
// replies it returns; a shard whose bytes do not all come back whole (a
// 412: rewritten since its index was read) is marked to be read alone.
std::vector<Result<std::optional<Bytes>>> FetchPlanned(store::Store& parent,
                                                       std::span<const ShardRegionRead> reads,
                                                       std::span<ShardPlan> plans,
                                                       std::size_t first, std::size_t end,
                                                       const core::Cancellation* cancellation) {
  std::vector<store::RangedKey> requests;
  for (std::size_t j = first; j < end; ++j) {
    for (const store::CoalescedRange& group : plans[j].requests.groups) {
      requests.push_back(
          {reads[j].key, store::ByteRange::Span(group.offset, group.length), plans[j].pin});
    }
  }
  std::vector<Result<std::optional<Bytes>>> replies =
      store::GetRangeMany(parent, requests, cancellation);
  std::size_t at = 0;
  for (std::size_t j = first; j < end; ++j) {
    const std::span<const Result<std::optional<Bytes>>> mine(replies.data() + at,
                                                             plans[j].requests.groups.size());
    at += mine.size();
    for (std::size_t g = 0; g < mine.size(); ++g) {
      if (!mine[g].ok() || !mine[g]->has_value() ||
          (*mine[g])->size() != plans[j].requests.groups[g].length) {
        plans[j].alone = true;
      }
    }
    if (plans[j].alone) continue;
    PointViews(
        plans[j].requests, [&](std::size_t g) { return (*mine[g])->data(); }, plans[j].chunks);
  }
  return replies;
}

// Decodes reads [first, end) as `plans` say, on context.pool.
Status DecodePlanned(store::Store& parent, std::span<const ShardRegionRead> reads,
                     std::span<const ShardPlan> plans, std::size_t first, std::size_t end,
                     const ShardingCodec& codec, const codec::ChunkSpec& shard_spec,
                     const ShardCallContext& context, std::span<std::uint8_t> stored,
                     const std::function<Status(std::size_t)>& done,
                     const core::Cancellation* cancellation) {
  return ForEach(context.pool, end - first, [&](std::size_t k) -> Status {
    const std::size_t j = first + k;
    const ShardRegionRead& read = reads[j];
    if (cancellation != nullptr && cancellation->cancelled()) {
      return cancellation->Check(parent.Describe(read.key));
    }
    if (plans[j].alone) {
      const ShardStore shard(parent, read.key, codec, shard_spec);
      CHUNKWISE_ASSIGN_OR_RETURN(const bool present,
                                 shard.ReadRegion(read.box, read.destination, context));
      stored[j] = present;
      return done(j);
    }
    if (!plans[j].index) {
      core::FillStridedRegion(read.destination, read.box.shape(), shard_spec.fill_value);
      stored[j] = 0;
      return done(j);
    }
    const FetchedRanges& chunks = plans[j].chunks;
    const ShardByteReader bytes = [&](std::uint64_t offset, std::uint64_t nbytes,
                                      Bytes&) -> Result<ByteView> {
      return chunks.at({offset, nbytes});
    };
    CHUNKWISE_RETURN_IF_ERROR(codec.DecodeRegion(shard_spec, *plans[j].index, bytes, read.box,
                                                 read.destination, parent.Describe(read.key),
                                                 context));
    stored[j] = 1;
    return done(j);
  });
}

// ReadShardRegions for reads whose indexes are read as one batch.
Status ReadPlannedShards(store::Store& parent, std::span<const ShardRegionRead> reads,
                         const ShardingCodec& codec, const codec::ChunkSpec& shard_spec,
                         std::uint64_t batch_bytes, const ShardCallContext& context,
                         std::span<std::uint8_t> stored,
                         const std::function<Status(std::size_t)>& done,
                         const core::Cancellation* cancellation) {
  CHUNKWISE_ASSIGN_OR_RETURN(
      std::vector<ShardPlan> plans,
      PlanShards(parent, reads, codec, shard_spec, LimitsFor(parent, context.coalescing)));
  // The end of the batch of fetches that starts at `first`: about
  // `batch_bytes` of requested bytes, at least one shard.
  const auto batch_end = [&](std::size_t first) {
    std::uint64_t bytes = plans[first].requests.total;
    std::size_t end = first + 1;
    while (end < plans.size() && bytes + plans[end].requests.total <= batch_bytes) {
      bytes += plans[end].requests.total;
      ++end;
    }
    return end;
  };
  struct Fetched {
    std::size_t first = 0, end = 0;
    std::vector<Result<std::optional<Bytes>>> replies;  // What the views point into.
  };
  const auto fetch = [&](std::size_t first) {
    const std::size_t end = batch_end(first);
    return Fetched{first, end, FetchPlanned(parent, reads, plans, first, end, cancellation)};
  };
  // The next batch's requests go (from a thread of their own) while the
  // pool decodes this one's, so that the network and the decoding overlap;
  // each writes only its own plans.
  Fetched current = fetch(0);
  for (;;) {
    std::future<Fetched> next;
    if (current.end < plans.size()) next = std::async(std::launch::async, fetch, current.end);
    const Status decoded = DecodePlanned(parent, reads, plans, current.first, current.end, codec,
                                         shard_spec, context, stored, done, cancellation);
    if (!next.valid()) return decoded;
    current = next.get();  // Waited for even after an error: it writes `plans`.
    CHUNKWISE_RETURN_IF_ERROR(decoded);
  }
}

}  // namespace

Status ReadShardRegions(store::Store& parent, std::span<const ShardRegionRead> reads,
                        const ShardingCodec& codec, const codec::ChunkSpec& shard_spec,
                        std::uint64_t batch_bytes, const ShardCallContext& context,
                        std::span<std::uint8_t> stored,
                        const std::function<Status(std::size_t)>& done,
                        const core::Cancellation* cancellation) {
  for (std::size_t first = 0; first < reads.size(); first += kIndexesPerBatch) {
    const std::size_t count = std::min(kIndexesPerBatch, reads.size() - first);
    if (cancellation != nullptr && cancellation->cancelled()) {
      return cancellation->Check(parent.Describe(reads[first].key));
    }
    CHUNKWISE_RETURN_IF_ERROR(ReadPlannedShards(
        parent, reads.subspan(first, count), codec, shard_spec, batch_bytes, context,
        stored.subspan(first, count), [&](std::size_t j) { return done(first + j); },
        cancellation));
  }
  return Status::Ok();
}

}  // namespace chunkwise::formats::zarr
