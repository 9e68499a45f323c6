#include "chunkwise/formats/zarr/shard_store.h"

#include <algorithm>
#include <charconv>
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
      inner_grid_(codec.InnerGrid(shard_spec.shape)),
      n_(static_cast<std::size_t>(inner_grid_.num_chunks())) {}

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
  return store::UpdateObject(
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
}

Status ShardStore::Write(const ShardWriteSource& write, bool replaces,
                         const ShardCallContext& context) {
  // A whole shard replaces what is there, unread; only a partial write
  // merges, keeping the inner chunks it does not touch.
  return store::UpdateObject(
      parent_, key_, replaces ? store::UpdateMode::kReplace : store::UpdateMode::kMerge,
      [&](const std::optional<Bytes>& old, const store::WriteMerged& put) -> Status {
        ShardByteReader read_old;
        CHUNKWISE_ASSIGN_OR_RETURN(const std::optional<ShardIndex> old_index,
                                   IndexOf(old, read_old));
        CHUNKWISE_ASSIGN_OR_RETURN(
            const std::optional<EncodedShard> shard,
            codec_.EncodeMerged(spec_, write, old_index, read_old, where_, context));
        if (!shard) return put(std::nullopt);  // All fill now: no shard.
        return put(std::span<const ByteView>(shard->parts));
      });
}

}  // namespace chunkwise::formats::zarr
