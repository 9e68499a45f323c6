#include "formats/zarr/array.h"

#include <algorithm>
#include <cstdint>
#include <functional>
#include <set>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "array_cache.h"
#include "chunkwise/core/check.h"
#include "core/memory_limit.h"
#include "core/ravel.h"
#include "grid_objects.h"
#include "string_array.h"

namespace chunkwise::formats::zarr {
namespace {

using core::ChunkOverlap;
using core::Region;

// Reads of at least this many bytes write the caller's buffer with streaming
// stores (core::StridedDestination::streaming): no cache holds that much for
// the caller to read back, and stores that skip reading each line first
// scatter chunks many times faster on some CPUs.
constexpr std::uint64_t kStreamingReadBytes = std::uint64_t{64} << 20;

std::string NormalizePrefix(std::string prefix) {
  if (!prefix.empty() && prefix.back() != '/') prefix += '/';
  return prefix;
}

// The ReadAll (GridObjects) of each overlap's box into the buffer `out` of
// `shape`, whose keys are `keys`; stored[i] says whether overlap i's object
// is stored, and `done(i)` runs after it; `cancellation` ends requests on
// the wire.
Status ReadOverlapsBatched(const GridObjects& objects, std::span<const ChunkOverlap> overlaps,
                           std::span<const std::string> keys, void* out, const core::Shape& shape,
                           bool streaming, const ShardCallContext& context,
                           std::span<std::uint8_t> stored,
                           const std::function<Status(std::size_t)>& done,
                           const core::Cancellation* cancellation = nullptr) {
  std::vector<GridObjects::ObjectRead> reads;
  reads.reserve(overlaps.size());
  for (std::size_t i = 0; i < overlaps.size(); ++i) {
    const ChunkOverlap& overlap = overlaps[i];
    reads.push_back(
        {keys[i], overlap.chunk_local,
         core::StridedDestination{out, shape, overlap.region_local.start(), streaming}});
  }
  return objects.ReadAll(reads, context, stored, done, cancellation);
}

// The WriteAll (GridObjects) of each overlap's box from the buffer `data` of
// `shape`, whose keys are `keys`; replaces[i] says overlap i covers its
// object's part of the array; `done(i)` runs once overlap i is stored.
Status WriteOverlapsBatched(const GridObjects& objects, std::span<const ChunkOverlap> overlaps,
                            std::span<const std::string> keys,
                            std::span<const std::uint8_t> replaces, const void* data,
                            const core::Shape& shape, const ShardCallContext& context,
                            const std::function<Status(std::size_t)>& done,
                            const core::Cancellation* cancellation = nullptr) {
  std::vector<GridObjects::ObjectWrite> writes;
  writes.reserve(overlaps.size());
  for (std::size_t i = 0; i < overlaps.size(); ++i) {
    writes.push_back({keys[i],
                      {core::StridedSource{data, shape, overlaps[i].region_local.start()},
                       overlaps[i].chunk_local},
                      replaces[i] != 0});
  }
  return objects.WriteAll(writes, context, done, cancellation);
}

Result<std::optional<std::string>> GetText(const store::Store& store, const std::string& key) {
  CHUNKWISE_ASSIGN_OR_RETURN(std::optional<Bytes> bytes, store.Get(key));
  if (!bytes) return std::optional<std::string>();
  return std::optional<std::string>(std::string(AsChars(*bytes)));
}

Status SetText(store::Store& store, const std::string& key, const std::string& text) {
  return store.Set(key, AsBytes(text));
}

Result<ArrayMetadata> ReadMetadata(const store::Store& store, const std::string& prefix) {
  const std::string v3_key = prefix + std::string(kZarrJsonKey);
  CHUNKWISE_ASSIGN_OR_RETURN(std::optional<std::string> v3, GetText(store, v3_key));
  if (v3) return ParseV3ArrayMetadata(*v3, store.Describe(v3_key));
  const std::string v2_key = prefix + std::string(kZarrayKey);
  CHUNKWISE_ASSIGN_OR_RETURN(std::optional<std::string> v2, GetText(store, v2_key));
  if (!v2) {
    // An unfinished write (Array::CreateUnpublished) is said to be one.
    const Result<bool> marked = store.Exists(prefix + std::string(kIncompleteMarkerKey));
    const std::string unfinished =
        marked.ok() && *marked
            ? "; what is there is a write not finished (" + std::string(kIncompleteMarkerKey) +
                  "): still running, or stopped before it published the array"
            : "";
    return Status::NotFound("no zarr array at " + DescribePrefix(store, prefix) +
                            " (neither zarr.json nor .zarray)" + unfinished);
  }
  CHUNKWISE_ASSIGN_OR_RETURN(std::optional<std::string> attributes,
                             GetText(store, prefix + std::string(kZattrsKey)));
  std::optional<std::string_view> attributes_view;
  if (attributes) attributes_view = *attributes;
  return ParseV2ArrayMetadata(*v2, attributes_view, store.Describe(v2_key));
}

Status WriteMetadata(store::Store& store, const std::string& prefix,
                     const ArrayMetadata& metadata) {
  if (metadata.zarr_format == 3) {
    return SetText(store, prefix + std::string(kZarrJsonKey), FormatV3ArrayMetadata(metadata));
  }
  CHUNKWISE_ASSIGN_OR_RETURN(std::string zarray, FormatV2Zarray(metadata));
  CHUNKWISE_RETURN_IF_ERROR(
      SetText(store, prefix + std::string(kZattrsKey), FormatV2Zattrs(metadata)));
  return SetText(store, prefix + std::string(kZarrayKey), zarray);
}

// The metadata as Publish writes it: zarr.json, or .zarray then .zattrs.
Result<std::string> MetadataText(const ArrayMetadata& metadata) {
  if (metadata.zarr_format == 3) return FormatV3ArrayMetadata(metadata);
  CHUNKWISE_ASSIGN_OR_RETURN(std::string zarray, FormatV2Zarray(metadata));
  return zarray + FormatV2Zattrs(metadata);
}

}  // namespace

Array::Array(std::shared_ptr<store::Store> store, std::string prefix, ArrayMetadata metadata,
             core::RegularChunkGrid grid, ArrayOptions options)
    : store_(std::move(store)),
      prefix_(std::move(prefix)),
      metadata_(std::move(metadata)),
      pool_(std::move(options.pool)),
      buffers_(std::move(options.buffers)),
      progress_(options.progress),
      coalescing_(options.coalescing),
      grid_(std::move(grid)) {}

Result<Array> Array::Make(std::shared_ptr<store::Store> store, std::string prefix,
                          ArrayMetadata metadata, ArrayOptions options) {
  if (StringArray::Holds(metadata)) {
    // Say what can read it: the elements have no fixed size for a chunk,
    // a .npy file or a raw buffer to hold.
    return Status::Unsupported(
        "data type " + metadata.unsupported_data_type +
        " (variable-length UTF-8 strings or bytes) has no fixed-size elements: it is "
        "read and written only as text or bytes (Python: chunkwise.open gives a StringArray, "
        "or a BytesArray)");
  }
  if (!metadata.unsupported_data_type.empty()) {
    return Status::Unsupported("data type " + metadata.unsupported_data_type +
                               " is not supported (numeric types, bool, datetime64, timedelta64, "
                               "and fixed-length S and U strings are)");
  }
  CHUNKWISE_RETURN_IF_ERROR(metadata.Validate());
  CHUNKWISE_ASSIGN_OR_RETURN(core::RegularChunkGrid grid,
                             core::RegularChunkGrid::Create(metadata.shape, metadata.chunk_shape));
  if (options.pool == nullptr) options.pool = std::make_shared<core::ThreadPool>();
  if (options.buffers == nullptr) {
    options.buffers = std::make_shared<core::BufferPool>(core::kDefaultPoolIdleBytes);
  }
  const codec::CodecBuildOptions build = options.codec_build;
  std::shared_ptr<core::ChunkCache> cache = std::move(options.cache);
  Array array(std::move(store), NormalizePrefix(std::move(prefix)), std::move(metadata),
              std::move(grid), std::move(options));
  const codec::CodecRegistry registry = ZarrCodecRegistry(build);
  CHUNKWISE_ASSIGN_OR_RETURN(codec::CodecChain chain,
                             codec::CodecChain::FromJson(array.metadata_.codecs, registry));
  array.chain_ = std::make_shared<const codec::CodecChain>(std::move(chain));
  array.chunk_spec_ = {array.metadata_.data_type, array.metadata_.chunk_shape,
                       array.metadata_.fill_value};
  array.cache_ = std::make_shared<const ArrayCache>(
      std::move(cache), array.store_,
      CacheVariant(array.metadata_.codecs.dump(), array.chunk_spec_,
                   array.metadata_.fill_value_null));
  // Codecs exactly [sharding_indexed]: the grid's objects are shards, read
  // and written through ShardStore inner chunk by inner chunk, with the
  // codec the chain already built (it shares the chain's lifetime).
  const auto* sharding = dynamic_cast<const ShardingCodec*>(array.chain_->array_to_bytes());
  if (array.metadata_.codecs.size() != 1 || sharding == nullptr) {
    array.objects_ = PlainChunks(array.store_, array.chain_, array.chunk_spec_,
                                 array.metadata_.fill_value_null, array.cache_);
    return array;
  }
  CHUNKWISE_RETURN_IF_ERROR(sharding->CheckShardShape(array.metadata_.chunk_shape));
  // Every read or write of a shard holds its whole index.
  const auto inner =
      static_cast<std::uint64_t>(sharding->InnerGrid(array.metadata_.chunk_shape).num_chunks());
  CHUNKWISE_RETURN_IF_ERROR(
      core::CheckAllocation(core::SaturatingProduct(inner, sizeof(ChunkLocation)),
                            "the index of a shard of " + std::to_string(inner) + " inner chunks"));
  array.sharding_ = std::shared_ptr<const ShardingCodec>(array.chain_, sharding);
  array.objects_ = Shards(array.store_, array.sharding_, array.chunk_spec_, array.cache_);
  return array;
}

Result<ArrayMetadata> ReadArrayMetadata(const store::Store& store, std::string prefix) {
  return ReadMetadata(store, NormalizePrefix(std::move(prefix)));
}

Result<Array> Array::Open(std::shared_ptr<store::Store> store, std::string prefix,
                          ArrayOptions options) {
  prefix = NormalizePrefix(std::move(prefix));
  CHUNKWISE_ASSIGN_OR_RETURN(ArrayMetadata metadata, ReadMetadata(*store, prefix));
  const std::string where =
      store->Describe(prefix + std::string(metadata.zarr_format == 3 ? kZarrJsonKey : kZarrayKey));
  Result<Array> array = Make(std::move(store), prefix, std::move(metadata), std::move(options));
  if (!array.ok()) return array.status().WithContext(where);
  return array;
}

Result<Array> Array::FromMetadata(std::shared_ptr<store::Store> store, std::string prefix,
                                  ArrayMetadata metadata, ArrayOptions options) {
  return Make(std::move(store), NormalizePrefix(std::move(prefix)), std::move(metadata),
              std::move(options));
}

Result<Array> Array::Create(std::shared_ptr<store::Store> store, std::string prefix,
                            ArrayMetadata metadata, bool overwrite, ArrayOptions options) {
  prefix = NormalizePrefix(std::move(prefix));
  CHUNKWISE_ASSIGN_OR_RETURN(
      Array array, Make(std::move(store), prefix, std::move(metadata), std::move(options)));
  if (array.metadata_.zarr_format == 2) {
    CHUNKWISE_RETURN_IF_ERROR(FormatV2Zarray(array.metadata_).status());
  }
  // A new array: whatever was cached under its prefix (an array erased or
  // overwritten here) is not its data.
  array.cache_->InvalidatePrefix(prefix);
  CHUNKWISE_RETURN_IF_ERROR(
      ClearForOverwrite(*array.store_, prefix, overwrite, DescribePrefix(*array.store_, prefix)));
  array.cache_->InvalidatePrefix(prefix);
  CHUNKWISE_RETURN_IF_ERROR(WriteMetadata(*array.store_, prefix, array.metadata_));
  return array;
}

Result<Array> Array::CreateUnpublished(std::shared_ptr<store::Store> store, std::string prefix,
                                       ArrayMetadata metadata, bool overwrite,
                                       ArrayOptions options) {
  prefix = NormalizePrefix(std::move(prefix));
  CHUNKWISE_ASSIGN_OR_RETURN(
      Array array, Make(std::move(store), prefix, std::move(metadata), std::move(options)));
  if (array.metadata_.zarr_format == 2) {
    CHUNKWISE_RETURN_IF_ERROR(FormatV2Zarray(array.metadata_).status());
  }
  array.cache_->InvalidatePrefix(prefix);
  CHUNKWISE_RETURN_IF_ERROR(
      ClearForOverwrite(*array.store_, prefix, overwrite, DescribePrefix(*array.store_, prefix)));
  array.cache_->InvalidatePrefix(prefix);
  // The marker holds the metadata text, so that a resumed writer can tell
  // that it finishes the same array (ResumeUnpublished).
  CHUNKWISE_ASSIGN_OR_RETURN(const std::string text, MetadataText(array.metadata_));
  CHUNKWISE_RETURN_IF_ERROR(
      array.store_->Set(prefix + std::string(kIncompleteMarkerKey), AsBytes(text)));
  return array;
}

Result<Array> Array::ResumeUnpublished(std::shared_ptr<store::Store> store, std::string prefix,
                                       ArrayMetadata metadata, ArrayOptions options) {
  prefix = NormalizePrefix(std::move(prefix));
  CHUNKWISE_ASSIGN_OR_RETURN(const std::string text, MetadataText(metadata));
  const std::string marker = prefix + std::string(kIncompleteMarkerKey);
  CHUNKWISE_ASSIGN_OR_RETURN(const std::optional<std::string> begun, GetText(*store, marker));
  if (begun.has_value()) {
    if (*begun != text) {
      return Status::InvalidArgument(store->Describe(marker) +
                                     ": the unfinished array there was begun with other metadata "
                                     "(another input or layout), so it cannot be resumed");
    }
    return Make(std::move(store), prefix, std::move(metadata), std::move(options));
  }
  Result<ArrayMetadata> published = ReadMetadata(*store, prefix);
  if (published.ok()) {
    CHUNKWISE_ASSIGN_OR_RETURN(const std::string published_text, MetadataText(*published));
    if (published_text != text) {
      return Status::InvalidArgument(DescribePrefix(*store, prefix) +
                                     " holds an array with other metadata (another input or "
                                     "layout), so it cannot be resumed");
    }
    return Make(std::move(store), prefix, std::move(metadata), std::move(options));
  }
  if (published.status().code() != StatusCode::kNotFound) return published.status();
  return CreateUnpublished(std::move(store), std::move(prefix), std::move(metadata),
                           /*overwrite=*/false, std::move(options));
}

Result<Array> Array::JoinUnpublished(std::shared_ptr<store::Store> store, std::string prefix,
                                     ArrayMetadata metadata, ArrayOptions options) {
  prefix = NormalizePrefix(std::move(prefix));
  const std::string marker = prefix + std::string(kIncompleteMarkerKey);
  CHUNKWISE_ASSIGN_OR_RETURN(const bool marked, store->Exists(marker));
  if (!marked) return Status::NotFound(store->Describe(marker) + ": no unpublished array to join");
  return Make(std::move(store), prefix, std::move(metadata), std::move(options));
}

Status Array::Publish() {
  CHUNKWISE_RETURN_IF_ERROR(WriteMetadata(*store_, prefix_, metadata_));
  return store_->Erase(prefix_ + std::string(kIncompleteMarkerKey));
}

Status Array::SetAttributes(nlohmann::json attributes) {
  if (!attributes.is_object()) {
    return Status::InvalidArgument(Describe() + ": attributes must be a JSON object, not " +
                                   std::string(attributes.type_name()));
  }
  ArrayMetadata changed = metadata_;
  changed.attributes = std::move(attributes);
  if (changed.zarr_format == 2) {
    CHUNKWISE_RETURN_IF_ERROR(
        SetText(*store_, prefix_ + std::string(kZattrsKey), FormatV2Zattrs(changed)));
  } else {
    CHUNKWISE_RETURN_IF_ERROR(WriteMetadata(*store_, prefix_, changed));
  }
  metadata_ = std::move(changed);
  return Status::Ok();
}

Status Array::Resize(const core::Shape& shape) {
  const std::string shape_text = "[" + core::FormatShape(shape) + "]";
  if (shape.size() != metadata_.shape.size()) {
    return Status::InvalidArgument(Describe() + ": the new shape " + shape_text +
                                   " has another rank than the array's [" +
                                   core::FormatShape(metadata_.shape) + "]")
        .WithField("shape");
  }
  for (core::Index extent : shape) {
    if (extent < 0) {
      return Status::InvalidArgument(Describe() + ": the new shape " + shape_text +
                                     " has a negative extent")
          .WithField("shape");
    }
  }
  CHUNKWISE_ASSIGN_OR_RETURN(core::RegularChunkGrid grid,
                             core::RegularChunkGrid::Create(shape, metadata_.chunk_shape));
  // The objects of the old grid that the new one lacks: listed when the store
  // lists every key, else every old grid position.
  CHUNKWISE_ASSIGN_OR_RETURN(const std::optional<std::vector<core::Index>> listed,
                             ListStoredObjects());
  const core::Index count = listed ? static_cast<core::Index>(listed->size()) : grid_.num_chunks();
  for (core::Index i = 0; i < count; ++i) {
    const core::Coord coord =
        core::Unravel(listed ? (*listed)[static_cast<std::size_t>(i)] : i, grid_.grid_shape());
    if (grid.ContainsChunk(coord)) continue;
    const Status erased = store_->Erase(ChunkKey(coord));
    cache_->Invalidate(ChunkKey(coord));
    CHUNKWISE_RETURN_IF_ERROR(erased);
  }
  ArrayMetadata changed = metadata_;
  changed.shape = shape;
  CHUNKWISE_RETURN_IF_ERROR(WriteMetadata(*store_, prefix_, changed));
  metadata_ = std::move(changed);
  grid_ = std::move(grid);
  return Status::Ok();
}

std::string Array::ChunkKey(std::span<const core::Index> coord) const {
  return prefix_ + metadata_.chunk_key_encoding.Key(coord);
}

Status Array::CheckRegion(const Region& region) const {
  if (region.rank() != grid_.rank() || !Region::Full(metadata_.shape).Covers(region)) {
    return Status::InvalidArgument("region [" + region.ToString() +
                                   "] is not inside the array of shape [" +
                                   core::FormatShape(metadata_.shape) + "]");
  }
  return Status::Ok();
}

Result<Bytes> Array::Read(const Region& region) const {
  CHUNKWISE_RETURN_IF_ERROR(CheckRegion(region));
  const std::uint64_t bytes = core::SaturatingProduct(
      static_cast<std::uint64_t>(region.num_elements()), metadata_.data_type.size());
  CHUNKWISE_RETURN_IF_ERROR(core::CheckAllocation(
      bytes, DescribePrefix(*store_, prefix_) + ": reading region [" + region.ToString() + "]"));
  Bytes out(static_cast<std::size_t>(bytes));
  CHUNKWISE_RETURN_IF_ERROR(ReadInto(region, out.data()));
  return out;
}

Status Array::ReadInto(const Region& region, void* out) const {
  return ReadInto(region, out, ArrayCallHooks{progress_, nullptr});
}

Status Array::ReadInto(const Region& region, void* out, const ArrayCallHooks& hooks) const {
  CHUNKWISE_RETURN_IF_ERROR(CheckRegion(region));
  if (region.IsEmpty()) return Status::Ok();
  const core::Shape shape = region.shape();
  const std::vector<core::Coord> chunks = grid_.ChunksIntersecting(region);
  const bool streaming =
      static_cast<std::uint64_t>(region.num_elements()) * metadata_.data_type.size() >=
      kStreamingReadBytes;
  if (objects_->batches_reads()) {
    // Chunks over a remote store: requests in batches, decoding on the pool.
    std::vector<ChunkOverlap> overlaps;
    std::vector<std::string> keys;
    overlaps.reserve(chunks.size());
    keys.reserve(chunks.size());
    for (const core::Coord& chunk : chunks) {
      overlaps.push_back(*grid_.Overlap(chunk, region));
      keys.push_back(ChunkKey(chunk));
    }
    std::vector<std::uint8_t> stored(chunks.size(), 0);
    CHUNKWISE_RETURN_IF_ERROR(hooks.cancellation == nullptr
                                  ? Status::Ok()
                                  : hooks.cancellation->Check(DescribePrefix(*store_, prefix_)));
    return ReadOverlapsBatched(
        *objects_, overlaps, keys, out, shape, streaming, ShardContext(), stored,
        [&](std::size_t i) -> Status {
          if (hooks.progress != nullptr) {
            hooks.progress->Add(overlaps[i].array.num_elements() * metadata_.data_type.size());
          }
          if (hooks.cancellation == nullptr) return Status::Ok();
          return hooks.cancellation->Check(DescribePrefix(*store_, prefix_));
        },
        hooks.cancellation);
  }
  // With the cache on, the objects whose every needed chunk it holds are
  // copied out here first, and only the others go to the pool: a box over
  // several cached shards (a viewer's warm read) then wakes no thread, and
  // on a loaded machine does not wait for one to be scheduled.
  std::vector<std::size_t> pending(chunks.size());
  for (std::size_t i = 0; i < chunks.size(); ++i) pending[i] = i;
  if (cache_->enabled() && chunks.size() > 1) {
    std::erase_if(pending, [&](std::size_t i) {
      const ChunkOverlap overlap = *grid_.Overlap(chunks[i], region);
      const core::StridedDestination target{out, shape, overlap.region_local.start(), streaming};
      if (!objects_->ReadIfCached(ChunkKey(overlap.chunk), overlap.chunk_local, target)) {
        return false;
      }
      if (hooks.progress != nullptr) {
        hooks.progress->Add(overlap.array.num_elements() * metadata_.data_type.size());
      }
      return true;
    });
  }
  return pool_->ParallelFor(pending.size(), [&](std::size_t j) -> Status {
    const ChunkOverlap overlap = *grid_.Overlap(chunks[pending[j]], region);
    if (hooks.cancellation != nullptr && hooks.cancellation->cancelled()) {
      return hooks.cancellation->Check(DescribePrefix(*store_, prefix_));
    }
    const core::StridedDestination target{out, shape, overlap.region_local.start(), streaming};
    CHUNKWISE_RETURN_IF_ERROR(ReadObject(overlap, target).status());
    if (hooks.progress != nullptr) {
      hooks.progress->Add(overlap.array.num_elements() * metadata_.data_type.size());
    }
    return Status::Ok();
  });
}

Result<bool> Array::ReadObject(const ChunkOverlap& overlap,
                               const core::StridedDestination& target) const {
  return objects_->Read(ChunkKey(overlap.chunk), overlap.chunk_local, target, ShardContext());
}

Result<std::vector<ShardIndexRead>> Array::ReadShardIndexes(
    std::span<const core::Coord> coords) const {
  std::vector<std::string> keys;
  keys.reserve(coords.size());
  for (const core::Coord& coord : coords) keys.push_back(ChunkKey(coord));
  return zarr::ReadShardIndexes(*store_, keys, *sharding_, chunk_spec_, cache_.get(), pool_.get());
}

bool Array::batches_reads() const { return objects_->batches_reads(); }

bool Array::batches_writes() const { return objects_->batches_writes(); }

Status Array::WriteObject(const ChunkOverlap& overlap, const core::StridedSource& source) {
  // A box covering the object's part of the array replaces it unread.
  const bool replaces = overlap.array == grid_.ChunkRegion(overlap.chunk);
  return objects_->Write(ChunkKey(overlap.chunk), {source, overlap.chunk_local}, replaces,
                         ShardContext());
}

ShardStore Array::Shard(std::span<const core::Index> coord) const {
  return ShardStore(*store_, ChunkKey(coord), *sharding_, chunk_spec_, cache_.get());
}

Status Array::Write(const Region& region, ByteView data) {
  return Write(region, data, ArrayCallHooks{progress_, nullptr});
}

Status Array::Write(const Region& region, ByteView data, const ArrayCallHooks& hooks) {
  CHUNKWISE_RETURN_IF_ERROR(CheckRegion(region));
  const std::size_t expected =
      static_cast<std::size_t>(region.num_elements()) * metadata_.data_type.size();
  if (data.size() != expected) {
    return Status::InvalidArgument("data for region [" + region.ToString() + "] has " +
                                   std::to_string(data.size()) + " bytes, expected " +
                                   std::to_string(expected));
  }
  if (region.IsEmpty()) return Status::Ok();
  const core::Shape shape = region.shape();
  const std::vector<core::Coord> chunks = grid_.ChunksIntersecting(region);
  if (objects_->batches_writes()) {
    // Chunks over a remote store: encoding on the pool, requests in batches.
    std::vector<ChunkOverlap> overlaps;
    std::vector<std::string> keys;
    std::vector<std::uint8_t> replaces;
    for (const core::Coord& chunk : chunks) {
      overlaps.push_back(*grid_.Overlap(chunk, region));
      keys.push_back(ChunkKey(chunk));
      // A box covering the object's part of the array replaces it unread.
      replaces.push_back(overlaps.back().array == grid_.ChunkRegion(chunk));
    }
    CHUNKWISE_RETURN_IF_ERROR(hooks.cancellation == nullptr
                                  ? Status::Ok()
                                  : hooks.cancellation->Check(DescribePrefix(*store_, prefix_)));
    return WriteOverlapsBatched(
        *objects_, overlaps, keys, replaces, data.data(), shape, ShardContext(),
        [&](std::size_t i) -> Status {
          if (hooks.progress != nullptr) {
            hooks.progress->Add(overlaps[i].array.num_elements() * metadata_.data_type.size());
          }
          if (hooks.cancellation == nullptr) return Status::Ok();
          return hooks.cancellation->Check(DescribePrefix(*store_, prefix_));
        },
        hooks.cancellation);
  }
  return pool_->ParallelFor(chunks.size(), [&](std::size_t i) -> Status {
    const ChunkOverlap overlap = *grid_.Overlap(chunks[i], region);
    if (hooks.cancellation != nullptr && hooks.cancellation->cancelled()) {
      return hooks.cancellation->Check(DescribePrefix(*store_, prefix_));
    }
    const core::StridedSource source{data.data(), shape, overlap.region_local.start()};
    CHUNKWISE_RETURN_IF_ERROR(WriteObject(overlap, source));
    if (hooks.progress != nullptr) {
      hooks.progress->Add(overlap.array.num_elements() * metadata_.data_type.size());
    }
    return Status::Ok();
  });
}

Status Array::CheckBufferShape(const core::Shape& shape) const {
  const bool negative =
      std::any_of(shape.begin(), shape.end(), [](core::Index n) { return n < 0; });
  if (shape.size() != static_cast<std::size_t>(grid_.rank()) || negative) {
    return Status::InvalidArgument("a chunk batch's buffer of shape [" + core::FormatShape(shape) +
                                   "] for an array of rank " + std::to_string(grid_.rank()));
  }
  return Status::Ok();
}

Result<ChunkOverlap> Array::TransferOverlap(const ChunkTransfer& transfer, std::size_t i,
                                            const core::Shape& buffer_shape) const {
  const auto refuse = [&](const std::string& what) {
    return Status::InvalidArgument("chunk transfer " + std::to_string(i) + ": " + what);
  };
  const std::size_t rank = grid_.rank();
  if (transfer.chunk.size() != rank || transfer.box.rank() != static_cast<int>(rank) ||
      transfer.buffer_origin.size() != rank || buffer_shape.size() != rank) {
    return refuse("its chunk, box, origin and buffer must have the array's rank " +
                  std::to_string(rank));
  }
  for (std::size_t d = 0; d < rank; ++d) {
    if (transfer.chunk[d] < 0 || transfer.chunk[d] >= grid_.grid_shape()[d]) {
      return refuse("chunk [" + core::FormatShape(transfer.chunk) +
                    "] is outside the grid of shape [" + core::FormatShape(grid_.grid_shape()) +
                    "]");
    }
  }
  const Region chunk_region = grid_.ChunkRegion(transfer.chunk);
  if (!Region::Full(chunk_region.shape()).Covers(transfer.box)) {
    return refuse("box [" + transfer.box.ToString() + "] leaves the part [" +
                  Region::Full(chunk_region.shape()).ToString() + "] of chunk [" +
                  core::FormatShape(transfer.chunk) + "] inside the array");
  }
  const core::Shape extent = transfer.box.shape();
  for (std::size_t d = 0; d < rank; ++d) {
    if (transfer.buffer_origin[d] < 0 || transfer.buffer_origin[d] > buffer_shape[d] - extent[d]) {
      return refuse("box [" + transfer.box.ToString() + "] at [" +
                    core::FormatShape(transfer.buffer_origin) + "] leaves the buffer of shape [" +
                    core::FormatShape(buffer_shape) + "]");
    }
  }
  ChunkOverlap overlap;
  overlap.chunk = transfer.chunk;
  overlap.chunk_local = transfer.box;
  core::Coord start = transfer.box.start(), stop = transfer.box.stop();
  for (std::size_t d = 0; d < rank; ++d) {
    start[d] += chunk_region.start()[d];
    stop[d] += chunk_region.start()[d];
  }
  overlap.array = Region(std::move(start), std::move(stop));
  overlap.region_local = Region::FromOriginAndShape(transfer.buffer_origin, extent);
  return overlap;
}

Result<std::vector<bool>> Array::ReadChunks(std::span<const ChunkTransfer> transfers, void* out,
                                            const core::Shape& out_shape) const {
  CHUNKWISE_RETURN_IF_ERROR(CheckBufferShape(out_shape));
  std::vector<ChunkOverlap> overlaps;
  overlaps.reserve(transfers.size());
  for (std::size_t i = 0; i < transfers.size(); ++i) {
    CHUNKWISE_ASSIGN_OR_RETURN(ChunkOverlap overlap, TransferOverlap(transfers[i], i, out_shape));
    overlaps.push_back(std::move(overlap));
  }
  const std::uint64_t out_bytes =
      static_cast<std::uint64_t>(Region::Full(out_shape).num_elements()) *
      metadata_.data_type.size();
  const bool streaming = out_bytes >= kStreamingReadBytes;
  // Not vector<bool>: its elements share bytes, and the pool writes them at once.
  std::vector<std::uint8_t> stored(transfers.size(), 0);
  const auto add_progress = [&](const ChunkOverlap& overlap) {
    if (progress_ != nullptr) {
      progress_->Add(overlap.array.num_elements() * metadata_.data_type.size());
    }
  };
  // The transfers left to read. With the cache on, those whose every
  // needed chunk it holds are copied out here first, before any store
  // request and with no thread woken, as ReadInto does: a pipeline's batch
  // over chunks a viewer or a training loop read before costs no wait.
  std::vector<std::size_t> pending;
  pending.reserve(overlaps.size());
  for (std::size_t i = 0; i < overlaps.size(); ++i) {
    const ChunkOverlap& overlap = overlaps[i];
    if (overlap.array.IsEmpty()) continue;
    if (cache_->enabled()) {
      const core::StridedDestination target{out, out_shape, overlap.region_local.start(),
                                            streaming};
      if (objects_->ReadIfCached(ChunkKey(overlap.chunk), overlap.chunk_local, target)) {
        stored[i] = 1;  // Only stored chunks are kept.
        add_progress(overlap);
        continue;
      }
    }
    pending.push_back(i);
  }
  if (objects_->batches_reads()) {
    // Chunks over a remote store: requests in batches, decoding on the pool.
    std::vector<ChunkOverlap> nonempty;
    std::vector<std::string> keys;
    std::vector<std::size_t> index;  // The transfer of each of `nonempty`.
    for (const std::size_t i : pending) {
      nonempty.push_back(overlaps[i]);
      keys.push_back(ChunkKey(overlaps[i].chunk));
      index.push_back(i);
    }
    std::vector<std::uint8_t> found(nonempty.size(), 0);
    CHUNKWISE_RETURN_IF_ERROR(ReadOverlapsBatched(*objects_, nonempty, keys, out, out_shape,
                                                  streaming, ShardContext(), found,
                                                  [&](std::size_t j) -> Status {
                                                    add_progress(nonempty[j]);
                                                    return Status::Ok();
                                                  }));
    for (std::size_t j = 0; j < index.size(); ++j) stored[index[j]] = found[j];
    return std::vector<bool>(stored.begin(), stored.end());
  }
  CHUNKWISE_RETURN_IF_ERROR(pool_->ParallelFor(pending.size(), [&](std::size_t j) -> Status {
    const std::size_t i = pending[j];
    const ChunkOverlap& overlap = overlaps[i];
    const core::StridedDestination target{out, out_shape, overlap.region_local.start(), streaming};
    CHUNKWISE_ASSIGN_OR_RETURN(const bool present, ReadObject(overlap, target));
    stored[i] = present;
    add_progress(overlap);
    return Status::Ok();
  }));
  return std::vector<bool>(stored.begin(), stored.end());
}

Status Array::WriteChunks(std::span<const ChunkTransfer> transfers, ByteView data,
                          const core::Shape& data_shape) {
  CHUNKWISE_RETURN_IF_ERROR(CheckBufferShape(data_shape));
  if (data.size() != static_cast<std::size_t>(Region::Full(data_shape).num_elements()) *
                         metadata_.data_type.size()) {
    return Status::InvalidArgument("a chunk batch's data has " + std::to_string(data.size()) +
                                   " bytes, not those of shape [" + core::FormatShape(data_shape) +
                                   "] of the array's type");
  }
  std::vector<ChunkOverlap> overlaps;
  overlaps.reserve(transfers.size());
  std::set<core::Coord> chunks;
  for (std::size_t i = 0; i < transfers.size(); ++i) {
    CHUNKWISE_ASSIGN_OR_RETURN(ChunkOverlap overlap, TransferOverlap(transfers[i], i, data_shape));
    // Two writers of one chunk in parallel would each merge over the old value.
    if (!chunks.insert(overlap.chunk).second) {
      return Status::InvalidArgument("chunk transfer " + std::to_string(i) + ": chunk [" +
                                     core::FormatShape(overlap.chunk) +
                                     "] is named twice in one batch");
    }
    overlaps.push_back(std::move(overlap));
  }
  if (objects_->batches_writes()) {
    std::erase_if(overlaps, [](const ChunkOverlap& overlap) { return overlap.array.IsEmpty(); });
    std::vector<std::string> keys;
    std::vector<std::uint8_t> replaces;
    for (const ChunkOverlap& overlap : overlaps) {
      keys.push_back(ChunkKey(overlap.chunk));
      replaces.push_back(overlap.array == grid_.ChunkRegion(overlap.chunk));
    }
    return WriteOverlapsBatched(
        *objects_, overlaps, keys, replaces, data.data(), data_shape, ShardContext(),
        [&](std::size_t i) -> Status {
          if (progress_ != nullptr) {
            progress_->Add(overlaps[i].array.num_elements() * metadata_.data_type.size());
          }
          return Status::Ok();
        });
  }
  return pool_->ParallelFor(overlaps.size(), [&](std::size_t i) -> Status {
    const ChunkOverlap& overlap = overlaps[i];
    if (overlap.array.IsEmpty()) return Status::Ok();
    const core::StridedSource source{data.data(), data_shape, overlap.region_local.start()};
    CHUNKWISE_RETURN_IF_ERROR(WriteObject(overlap, source));
    if (progress_ != nullptr) {
      progress_->Add(overlap.array.num_elements() * metadata_.data_type.size());
    }
    return Status::Ok();
  });
}

namespace {

// Objects counted per GridObjects::CountAll: each costs a request or two
// (its size, a shard's index), round trips on object storage, so a batch
// has them in flight together (plain chunks of a remote store: from the
// calling thread; else on the pool, as reads).
constexpr std::size_t kCountBatch = 1024;

}  // namespace

Result<std::shared_ptr<const Bytes>> Array::ReadChunk(std::span<const core::Index> chunk) const {
  const core::Shape& chunk_shape =
      sharding_ != nullptr ? sharding_->chunk_shape() : metadata_.chunk_shape;
  CHUNKWISE_ASSIGN_OR_RETURN(const core::RegularChunkGrid chunks,
                             core::RegularChunkGrid::Create(metadata_.shape, chunk_shape));
  if (static_cast<int>(chunk.size()) != chunks.rank() || !chunks.ContainsChunk(chunk)) {
    return Status::InvalidArgument(
        Describe() + ": chunk [" + core::FormatShape(chunk) + "] is outside the grid of chunks [" +
        core::FormatShape(chunks.grid_shape()) + "] (shape [" + core::FormatShape(metadata_.shape) +
        "], chunks [" + core::FormatShape(chunk_shape) + "])");
  }
  // The grid object (shard) that holds it, and its place there.
  core::Coord object(chunk.size()), inner(chunk.size());
  for (std::size_t d = 0; d < chunk.size(); ++d) {
    const core::Index per_object = metadata_.chunk_shape[d] / chunk_shape[d];
    object[d] = chunk[d] / per_object;
    inner[d] = chunk[d] % per_object;
  }
  return objects_->ReadChunk(ChunkKey(object), inner, ShardContext());
}

Result<std::optional<std::vector<core::Index>>> Array::ListStoredObjects() const {
  if (!store_->capabilities().lists_every_key) return std::optional<std::vector<core::Index>>();
  const ChunkKeyEncoding& encoding = metadata_.chunk_key_encoding;
  CHUNKWISE_ASSIGN_OR_RETURN(const std::vector<std::string> keys,
                             store_->List(prefix_ + std::string(encoding.KeyPrefix())));
  std::vector<core::Index> objects;
  for (const std::string& key : keys) {
    const std::optional<core::Coord> coord =
        encoding.ParseKey(std::string_view(key).substr(prefix_.size()), grid_.grid_shape());
    if (coord) objects.push_back(core::Ravel(*coord, grid_.grid_shape()));
  }
  // Keys sort as text ("c/10" before "c/9"); a walk goes in grid order.
  std::sort(objects.begin(), objects.end());
  return std::optional<std::vector<core::Index>>(std::move(objects));
}

Result<ArrayStorageStats> Array::Stats() const {
  ArrayStorageStats stats;
  stats.grid_chunks = static_cast<std::uint64_t>(grid_.num_chunks());
  stats.logical_bytes = static_cast<std::uint64_t>(Region::Full(metadata_.shape).num_elements()) *
                        metadata_.data_type.size();
  stats.grid_inner_chunks = stats.grid_chunks * objects_->inner_chunks_per_object();
  CHUNKWISE_ASSIGN_OR_RETURN(const std::optional<std::vector<core::Index>> listed,
                             ListStoredObjects());
  if (listed) {
    CHUNKWISE_RETURN_IF_ERROR(CountStored(
        listed->size(),
        [&](std::size_t i) { return core::Unravel((*listed)[i], grid_.grid_shape()); }, stats));
    return stats;
  }
  // A store that cannot list every key: each grid key is asked for, refused
  // up front when the grid's coordinates alone would not fit in memory.
  const auto chunk_count = static_cast<std::uint64_t>(grid_.num_chunks());
  CHUNKWISE_RETURN_IF_ERROR(core::CheckAllocation(
      core::SaturatingProduct(chunk_count, sizeof(core::Coord) +
                                               metadata_.shape.size() * sizeof(core::Index) +
                                               sizeof(ArrayStorageStats)),
      DescribePrefix(*store_, prefix_) + ": walking its " + std::to_string(chunk_count) +
          " grid chunks"));
  std::vector<core::Coord> coords;
  if (grid_.num_chunks() > 0) coords = grid_.ChunksIntersecting(Region::Full(metadata_.shape));
  CHUNKWISE_RETURN_IF_ERROR(CountStored(
      coords.size(), [&](std::size_t i) { return coords[i]; }, stats));
  return stats;
}

Status Array::CountStored(std::size_t count, const std::function<core::Coord(std::size_t)>& coord,
                          ArrayStorageStats& stats) const {
  std::vector<std::string> keys;
  for (std::size_t first = 0; first < count; first += kCountBatch) {
    keys.clear();
    for (std::size_t i = first; i < std::min(count, first + kCountBatch); ++i) {
      keys.push_back(ChunkKey(coord(i)));
    }
    CHUNKWISE_RETURN_IF_ERROR(objects_->CountAll(keys, ShardContext(), stats));
  }
  return Status::Ok();
}

Status CreateGroup(store::Store& store, const std::string& prefix, int zarr_format,
                   const nlohmann::json& attributes) {
  const std::string normalized = NormalizePrefix(prefix);
  if (zarr_format == 3) {
    return SetText(store, normalized + std::string(kZarrJsonKey), FormatV3Group(attributes));
  }
  if (attributes.is_object() && !attributes.empty()) {
    CHUNKWISE_RETURN_IF_ERROR(
        SetText(store, normalized + std::string(kZattrsKey), attributes.dump(4) + "\n"));
  }
  return SetText(store, normalized + std::string(kZgroupKey), FormatV2Group());
}

Status CreateUnpublishedGroup(store::Store& store, const std::string& prefix, bool overwrite) {
  const std::string normalized = NormalizePrefix(prefix);
  CHUNKWISE_RETURN_IF_ERROR(
      ClearForOverwrite(store, normalized, overwrite, DescribePrefix(store, normalized)));
  return store.Set(normalized + std::string(kIncompleteMarkerKey), ByteView());
}

Status PublishGroup(store::Store& store, const std::string& prefix, int zarr_format,
                    const nlohmann::json& attributes) {
  CHUNKWISE_RETURN_IF_ERROR(CreateGroup(store, prefix, zarr_format, attributes));
  return store.Erase(NormalizePrefix(prefix) + std::string(kIncompleteMarkerKey));
}

}  // namespace chunkwise::formats::zarr
