// ZarrMetadataLister: what a zarr hierarchy behind HTTP holds, from its
// consolidated metadata (an HttpKeyLister for store/http_store.h).
//
// Zarr v3: "zarr.json" at the root; with consolidated metadata
// ("consolidated_metadata": {"metadata": {"a/b": {...}}}), also "a/b/zarr.json"
// for each member. Zarr v2: ".zmetadata", whose "metadata" object names the
// member documents (".zgroup", "a/.zarray", "a/.zattrs", ...). Chunk keys are
// not listed: a zarr's metadata does not say which chunks were written.
#ifndef CHUNKWISE_STORE_HTTP_LISTING_H_
#define CHUNKWISE_STORE_HTTP_LISTING_H_

#include <string>
#include <vector>

#include "store/http_store.h"

namespace chunkwise::store {

class ZarrMetadataLister final : public HttpKeyLister {
 public:
  // The hierarchy at `root` ("" or ending in "/") of the store.
  explicit ZarrMetadataLister(std::string root = "") : root_(std::move(root)) {}

  // NotFound if the store has neither zarr.json nor .zmetadata at the root;
  // Corruption naming the key for a document that is not the JSON it should be.
  Result<std::vector<std::string>> ListKeys(const Store& store) const override;
  std::string Describe() const override { return "zarr consolidated metadata"; }

 private:
  std::string root_;
};

}  // namespace chunkwise::store

#endif  // CHUNKWISE_STORE_HTTP_LISTING_H_
