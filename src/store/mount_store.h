// MountStore: several read-only stores seen as one, each under its own
// folder ("client/", "data/0/"), so that one HttpServer serves a viewer's
// client and its data from one origin (`chunkwise view`).
//
// Key "<folder>k" is key "k" of the store mounted at "<folder>"; a key under
// no folder is absent. Writes are Unsupported. Thread-safe as the mounted
// stores are. Batched gets (store/batched_gets.h) go to the mounted stores.
#ifndef CHUNKWISE_SRC_STORE_MOUNT_STORE_H_
#define CHUNKWISE_SRC_STORE_MOUNT_STORE_H_

#include <memory>
#include <string>
#include <vector>

#include "chunkwise/store/store.h"
#include "store/batched_gets.h"

namespace chunkwise::store {

struct Mount {
  std::string folder;  // Ends in "/"; no folder lies inside another.
  std::shared_ptr<const Store> store;
};

class MountStore final : public Store, public ForwardedGets {
 public:
  explicit MountStore(std::vector<Mount> mounts) : mounts_(std::move(mounts)) {}

  Result<std::optional<Bytes>> Get(std::string_view key) const override;
  Result<std::optional<Bytes>> GetRange(std::string_view key, ByteRange range) const override;
  Result<bool> GetRangesInto(std::string_view key, std::span<const ByteRange> ranges,
                             MutableByteView out) const override;
  Result<std::unique_ptr<ValueReader>> OpenReader(std::string_view key) const override;
  Status Set(std::string_view key, ByteView value) override;
  Status Erase(std::string_view key) override;
  Result<std::vector<std::string>> List(std::string_view prefix) const override;
  Result<std::optional<std::uint64_t>> Size(std::string_view key) const override;
  StoreCapabilities capabilities() const override;
  std::string Describe(std::string_view key) const override;

  ForwardedKey RouteGet(std::string_view key) const override;
  bool ForwardsToBatches() const override;

 private:
  // The mount `key` lies in and the key inside it; null when none.
  std::pair<const Mount*, std::string_view> Route(std::string_view key) const;

  std::vector<Mount> mounts_;
};

}  // namespace chunkwise::store

#endif  // CHUNKWISE_SRC_STORE_MOUNT_STORE_H_
