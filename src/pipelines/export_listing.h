// ExportKeyLister: what an export-shards output behind HTTP holds, from its
// info and the shard indexes that exist (an HttpKeyLister for
// store/http_store.h).
//
// DEST/info gives every scale's grid and sharding, so the shard files that
// can exist are known: one per box of chunks (box shards), or one per shard
// number (hashed shards, up to 65,536 of them). Each candidate's CSV index is
// probed (HEAD requests, several at once); a shard's .arrow and .csv are
// renamed into place together, so an index that exists lists both. "info" and,
// when present, "export.log" are listed too.
#ifndef CHUNKWISE_PIPELINES_EXPORT_LISTING_H_
#define CHUNKWISE_PIPELINES_EXPORT_LISTING_H_

#include <string>
#include <vector>

#include "store/http_store.h"

namespace chunkwise::pipelines {

class ExportKeyLister final : public store::HttpKeyLister {
 public:
  // The export at `root` ("" or ending in "/") of the store.
  explicit ExportKeyLister(std::string root = "") : root_(std::move(root)) {}

  // NotFound if there is no info; its parse errors; Unsupported for hashed
  // shards of more than 16 bits (too many to probe).
  Result<std::vector<std::string>> ListKeys(const store::Store& store) const override;
  std::string Describe() const override { return "export info and shard indexes"; }

 private:
  std::string root_;
};

}  // namespace chunkwise::pipelines

#endif  // CHUNKWISE_PIPELINES_EXPORT_LISTING_H_
