#include "facade/reference_targets.h"

#include <map>
#include <memory>
#include <mutex>
#include <string>

namespace chunkwise {
namespace {

struct TargetStores {
  std::mutex mutex;
  std::map<std::string, std::shared_ptr<const store::Store>> by_parent;  // Guarded by mutex.
  StoreRegistry registry;
};

}  // namespace

store::TargetOpener ObjectStorageTargetOpener(const StoreOptions& options) {
  auto stores = std::make_shared<TargetStores>();
  StoreOptions remote;
  remote.remote = options.remote;
  return [stores, remote](const std::string& url) -> Result<store::TargetLocation> {
    CHUNKWISE_ASSIGN_OR_RETURN(const StoreUrl parsed, ParseStoreUrl(url));
    if (parsed.scheme != "s3" && parsed.scheme != "gs") {
      return Status::Unsupported(url + ": the scheme \"" + parsed.scheme +
                                 "\" is not supported for reference targets (local paths, "
                                 "file://, http(s)://, s3:// and gs:// are)");
    }
    const std::size_t slash = url.rfind('/');
    if (slash == std::string::npos || slash + 1 == url.size() ||
        slash < parsed.scheme.size() + 3 + 1) {
      return Status::InvalidArgument(url + " names a bucket, not an object in one");
    }
    const std::string parent = url.substr(0, slash);
    std::lock_guard lock(stores->mutex);
    auto found = stores->by_parent.find(parent);
    if (found == stores->by_parent.end()) {
      CHUNKWISE_ASSIGN_OR_RETURN(std::shared_ptr<store::Store> opened,
                                 stores->registry.Open(parent, remote));
      found = stores->by_parent.emplace(parent, std::move(opened)).first;
    }
    return store::TargetLocation{found->second, url.substr(slash + 1)};
  };
}

}  // namespace chunkwise
