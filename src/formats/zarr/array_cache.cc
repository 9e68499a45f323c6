#include "array_cache.h"

#include <utility>

#include "chunkwise/core/index.h"
#include "core/fresh_pages.h"

namespace chunkwise::formats::zarr {
namespace {

// The scope of a store's keys in the cache (see array_cache.h).
std::string ScopeOf(core::ChunkCache& cache, const std::shared_ptr<store::Store>& store) {
  // Only a store written through may be written through another handle: a
  // read-only one (a reference set, http) keeps the instance, so that two of
  // them that describe themselves alike (a reference set's name is as given)
  // never share entries.
  const store::StoreCapabilities capabilities = store->capabilities();
  if (capabilities.writable && (capabilities.durable || !capabilities.local)) {
    // The description of a key is the store's location followed by the key.
    constexpr std::string_view kProbe = "chunkwise-cache-probe";
    std::string where = store->Describe(kProbe);
    if (where.size() > kProbe.size() && where.ends_with(kProbe)) {
      where.resize(where.size() - kProbe.size());
      return "@" + where;
    }
  }
  return "#" + std::to_string(cache.InstanceId(store)) + ":";
}

}  // namespace

ArrayCache::ArrayCache(std::shared_ptr<core::ChunkCache> cache,
                       const std::shared_ptr<store::Store>& store, std::string variant)
    : cache_(std::move(cache)), variant_(std::move(variant)) {
  if (cache_ != nullptr) scope_ = ScopeOf(*cache_, store);
}

void ArrayCache::Invalidate(std::string_view key) const {
  if (cache_ != nullptr) cache_->Invalidate(Object(key));
}

void ArrayCache::InvalidatePrefix(std::string_view prefix) const {
  if (cache_ != nullptr) cache_->InvalidatePrefix(Object(prefix));
}

std::string CacheVariant(std::string_view codecs, const codec::ChunkSpec& spec,
                         bool fill_value_null) {
  std::string variant = std::string(spec.dtype.zarr_name()) + "|" + core::FormatShape(spec.shape) +
                        "|" + (fill_value_null ? "null" : "");
  for (const std::uint8_t byte : spec.fill_value) variant += std::to_string(byte) + ",";
  variant += "|";
  variant += codecs;
  return variant;
}

Result<Bytes> DecodeForCache(const codec::CodecChain& chain, const codec::ChunkSpec& spec,
                             ByteView encoded) {
  Bytes decoded(spec.num_bytes());
  core::MapPagesForWrite(decoded);
  CHUNKWISE_RETURN_IF_ERROR(chain.DecodeInto(spec, encoded, decoded));
  return decoded;
}

}  // namespace chunkwise::formats::zarr
