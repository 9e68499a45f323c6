#include "grid_objects.h"

#include <optional>
#include <span>
#include <utility>

#include "chunkwise/core/ravel.h"
#include "chunkwise/formats/zarr/fill_value.h"
#include "chunkwise/formats/zarr/shard_store.h"
#include "chunkwise/store/update_object.h"

namespace chunkwise::formats::zarr {
namespace {

using core::Region;

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
    // A chunk larger than the whole cache is read as without one: decoding
    // only the box may be cheaper, and it would not be kept anyway.
    if (cache_->enabled() && spec_.num_bytes() < cache_->cache().limit_bytes()) {
      return ReadThroughCache(key, box, target);
    }
    CHUNKWISE_ASSIGN_OR_RETURN(std::optional<Bytes> encoded, store_->Get(key));
    if (!encoded) {
      core::FillStridedRegion(target, box.shape(), spec_.fill_value);
      return false;
    }
    Bytes decoded;
    const Status status = chain_->DecodeRegion(spec_, *encoded, box, target, decoded);
    if (!status.ok()) return status.WithContext(store_->Describe(key));
    return true;
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

  Status Count(const std::string& key, ArrayStorageStats& stats) const override {
    CHUNKWISE_ASSIGN_OR_RETURN(std::optional<std::uint64_t> size, store_->Size(key));
    stats.stored_keys += size.has_value();
    stats.stored_bytes += size.value_or(0);
    return Status::Ok();
  }

  std::uint64_t inner_chunks_per_object() const override { return 0; }

 private:
  // Read with the cache on: the decoded chunk kept there, else the stored
  // one decoded whole and kept.
  Result<bool> ReadThroughCache(const std::string& key, const Region& box,
                                const core::StridedDestination& target) const {
    core::ChunkCache& cache = cache_->cache();
    const core::ChunkCacheKey cache_key = cache_->Key(key, core::ChunkCacheKey::kWhole);
    std::shared_ptr<const Bytes> chunk = cache.FindAs<Bytes>(cache_key);
    if (chunk == nullptr) {
      const std::uint64_t ticket = cache.Ticket(cache_key.object);
      CHUNKWISE_ASSIGN_OR_RETURN(std::optional<Bytes> encoded, store_->Get(key));
      if (!encoded) {  // Not kept: a writer outside the array may add it.
        core::FillStridedRegion(target, box.shape(), spec_.fill_value);
        return false;
      }
      Result<Bytes> decoded = chain_->Decode(spec_, *encoded);
      if (!decoded.ok()) return decoded.status().WithContext(store_->Describe(key));
      chunk = std::make_shared<const Bytes>(std::move(decoded).value());
      cache.Insert(cache_key, chunk, chunk->size(), ticket);
    }
    core::CopyStridedRegion({chunk->data(), spec_.shape, box.start()}, target, box.shape(),
                            spec_.dtype.size());
    return true;
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

  Status Write(const std::string& key, const ShardWriteSource& write, bool replaces,
               const ShardCallContext& context) const override {
    return Shard(key).Write(write, replaces, context);
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
