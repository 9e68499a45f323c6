#include "chunkwise/formats/zarr/shard_store.h"

#include <algorithm>
#include <map>
#include <utility>

#include "chunkwise/core/buffer_pool.h"
#include "chunkwise/core/ravel.h"
#include "chunkwise/store/update_object.h"

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

// Reads the ranges of a shard (each inside the shard: its index was checked)
// into one pooled buffer and points each range's view at them. Ranges with
// no gaps between them are read as the one span they cover, which also
// bounds the buffer by the shard size when a hostile index points many
// entries at the same bytes.
Result<core::BufferPool::Lease> FetchRanges(const store::ValueReader& reader, FetchedRanges& ranges,
                                            core::BufferPool* buffers) {
  if (ranges.empty()) return core::BufferPool::Lease();
  std::uint64_t total = 0, low = UINT64_MAX, high = 0;
  for (const auto& [range, view] : ranges) {
    total += range.second;
    low = std::min(low, range.first);
    high = std::max(high, range.first + range.second);
  }
  const bool one_span = high - low <= total;
  std::vector<store::ByteRange> reads;
  if (one_span) {
    reads.push_back(store::ByteRange::Span(low, high - low));
  } else {
    for (const auto& [range, view] : ranges) {
      reads.push_back(store::ByteRange::Span(range.first, range.second));
    }
  }
  core::BufferPool::Lease buffer =
      core::BufferPool::TakeFrom(buffers, one_span ? high - low : total);
  CHUNKWISE_RETURN_IF_ERROR(reader.ReadInto(reads, buffer.view()));
  std::uint64_t at = 0;
  for (auto& [range, view] : ranges) {
    view = ByteView(buffer.data() + (one_span ? range.first - low : at), range.second);
    at += range.second;
  }
  return buffer;
}

}  // namespace

ShardStore::ShardStore(store::Store& parent, std::string key, const ShardingCodec& codec,
                       const codec::ChunkSpec& shard_spec)
    : parent_(parent),
      key_(std::move(key)),
      where_(parent.Describe(key_)),
      codec_(codec),
      spec_(shard_spec),
      n_(static_cast<std::size_t>(codec.InnerGrid(shard_spec.shape).num_chunks())) {}

Result<std::optional<ShardIndex>> ShardStore::ReadIndex(std::uint64_t* shard_bytes) const {
  CHUNKWISE_ASSIGN_OR_RETURN(std::unique_ptr<store::ValueReader> reader, parent_.OpenReader(key_));
  if (reader == nullptr) return std::optional<ShardIndex>();
  if (shard_bytes != nullptr) *shard_bytes = reader->size();
  CHUNKWISE_ASSIGN_OR_RETURN(ShardIndex index,
                             codec_.ReadIndex(RangeReader(*reader), reader->size(), n_, where_));
  return std::optional<ShardIndex>(std::move(index));
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
                             FetchRanges(*reader, fetched_at, nullptr));
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
  if (parent_.capabilities().local) {
    CHUNKWISE_RETURN_IF_ERROR(
        codec_.DecodeRegion(spec_, index, RangeReader(*reader), box, destination, where_, context));
    return true;
  }
  // The chunks the box needs, keyed by offset and size (nothing forbids two
  // entries sharing bytes), fetched in one batch into one pooled buffer.
  const core::RegularChunkGrid inner = codec_.InnerGrid(spec_.shape);
  FetchedRanges fetched_at;
  for (const core::Coord& chunk : inner.ChunksIntersecting(box)) {
    const ChunkLocation& location = index.at(core::Ravel(chunk, inner.grid_shape()));
    if (!location.empty()) fetched_at[{location.offset, location.nbytes}] = {};
  }
  CHUNKWISE_ASSIGN_OR_RETURN(core::BufferPool::Lease fetched,
                             FetchRanges(*reader, fetched_at, context.buffers));
  const ShardByteReader read = [&](std::uint64_t offset, std::uint64_t nbytes,
                                   Bytes&) -> Result<ByteView> {
    return fetched_at.at({offset, nbytes});
  };
  CHUNKWISE_RETURN_IF_ERROR(
      codec_.DecodeRegion(spec_, index, read, box, destination, where_, context));
  return true;
}

Status ShardStore::Write(const ShardWriteSource& write, bool replaces,
                         const ShardCallContext& context) {
  const bool whole = replaces;
  // A whole shard replaces what is there; only a partial write merges.
  if (!whole && parent_.capabilities().conditional_writes) {
    return WriteConditionally(write, context);
  }
  std::optional<Bytes> old;
  if (!whole) {  // Only a partial write reads: the untouched inner chunks are kept.
    CHUNKWISE_ASSIGN_OR_RETURN(old, parent_.Get(key_));
  }
  CHUNKWISE_ASSIGN_OR_RETURN(std::optional<EncodedShard> shard, Merge(write, old, context));
  if (shard) return Put(*shard);
  if (whole || old.has_value()) return parent_.Erase(key_);
  return Status::Ok();
}

Status ShardStore::Put(const EncodedShard& shard) { return parent_.SetParts(key_, shard.parts); }

Result<std::optional<EncodedShard>> ShardStore::Merge(const ShardWriteSource& write,
                                                      const std::optional<Bytes>& old,
                                                      const ShardCallContext& context) const {
  std::optional<ShardIndex> old_index;
  ShardByteReader read_old;
  if (old) {  // The inner chunks the write does not touch are kept.
    read_old = MemoryShardReader(*old);
    CHUNKWISE_ASSIGN_OR_RETURN(old_index, codec_.ReadIndex(read_old, old->size(), n_, where_));
  }
  return codec_.EncodeMerged(spec_, write, old_index, read_old, where_, context);
}

Status ShardStore::WriteConditionally(const ShardWriteSource& write,
                                      const ShardCallContext& context) {
  return store::UpdateObject(
      parent_, key_,
      [&](const std::optional<Bytes>& old, const store::Generation& read_at) -> Status {
        CHUNKWISE_ASSIGN_OR_RETURN(std::optional<EncodedShard> shard, Merge(write, old, context));
        if (shard) return parent_.SetPartsIf(key_, shard->parts, read_at).status();
        if (!read_at.absent()) return parent_.EraseIf(key_, read_at);  // All fill now: no shard.
        return Status::Ok();
      });
}

}  // namespace chunkwise::formats::zarr
