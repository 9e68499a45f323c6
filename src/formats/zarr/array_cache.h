// ArrayCache: an Array's view of the decoded-chunk cache its Context shares
// (core/chunk_cache.h), private to formats/zarr.
//
// It names the array's entries: the object is the store's scope plus the
// store key, so that every array over the same stored object finds (and a
// write through any of them drops) the same entries; the variant is how the
// array decodes the object (codecs, data type, chunk shape, fill value), so
// that two arrays reading one key with other metadata never share a decoding.
//
// A store's scope is where it keeps its values when it says so itself: a
// writable durable or remote store is named by its description of a key (a
// path, a URL), so two instances over one directory or bucket share entries
// and see each other's writes. Any other store (memory, a test double, a
// read-only reference set or http store) is named by the instance, which
// two stores of the same description may not share.
//
// Thread-safe; cheap to copy (Arrays share one through a shared_ptr).
#ifndef CHUNKWISE_SRC_FORMATS_ZARR_ARRAY_CACHE_H_
#define CHUNKWISE_SRC_FORMATS_ZARR_ARRAY_CACHE_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "chunkwise/core/bytes.h"
#include "chunkwise/core/result.h"
#include "chunkwise/store/store.h"
#include "codec/codec.h"
#include "codec/codec_chain.h"
#include "core/chunk_cache.h"

namespace chunkwise::formats::zarr {

class ArrayCache {
 public:
  // A view of `cache` (null: caching off) for an array over `store` that
  // decodes as `variant` says.
  ArrayCache(std::shared_ptr<core::ChunkCache> cache, const std::shared_ptr<store::Store>& store,
             std::string variant);

  // Whether reads should look values up and keep them.
  bool enabled() const { return cache_ != nullptr && cache_->enabled(); }
  core::ChunkCache& cache() const { return *cache_; }
  // The cache's name for the object under store key `key`.
  std::string Object(std::string_view key) const { return scope_ + std::string(key); }
  core::ChunkCacheKey Key(std::string_view key, std::int64_t part) const {
    return core::ChunkCacheKey{Object(key), variant_, part};
  }
  // Drops the entries of the object under `key`, or of every object under
  // `prefix`, after a write (a no-op with caching off).
  void Invalidate(std::string_view key) const;
  void InvalidatePrefix(std::string_view prefix) const;

 private:
  std::shared_ptr<core::ChunkCache> cache_;
  std::string scope_;
  std::string variant_;
};

// How an array of `spec` decoded by `codecs` (the metadata's JSON text)
// decodes its objects, as a variant text; `fill_value_null` included.
std::string CacheVariant(std::string_view codecs, const codec::ChunkSpec& spec,
                         bool fill_value_null);

// `encoded` decoded by `chain` as a chunk of `spec`, into a buffer of its
// own for the cache to keep. The buffer is fresh memory (a growing cache
// reuses none), so its pages are mapped in one call before the chain
// decodes into it (CodecChain::DecodeInto: straight there for `bytes` and
// one compressor, through a copy for longer chains): on a VM their faults
// one page at a time cost as much as the decode (core/fresh_pages.h).
// Errors as DecodeInto's.
Result<Bytes> DecodeForCache(const codec::CodecChain& chain, const codec::ChunkSpec& spec,
                             ByteView encoded);

}  // namespace chunkwise::formats::zarr

#endif  // CHUNKWISE_SRC_FORMATS_ZARR_ARRAY_CACHE_H_
