#include "open_store.h"

#include <unistd.h>

#include <map>
#include <mutex>
#include <string>

#include "chunkwise/store/file_store.h"
#include "chunkwise/store/memory_store.h"
#include "chunkwise/store/remote_store_url.h"

namespace chunkwise::python {
namespace {

constexpr std::string_view kMemoryScheme = "memory://";
constexpr std::string_view kFileScheme = "file://";

std::shared_ptr<store::Store> NamedMemoryStore(std::string_view name) {
  static std::mutex mutex;
  static auto* stores = new std::map<std::string, std::shared_ptr<store::MemoryStore>, std::less<>>;
  const std::lock_guard lock(mutex);
  auto found = stores->find(name);
  if (found == stores->end()) {
    found = stores->emplace(std::string(name), store::MemoryStore::Create()).first;
  }
  return found->second;
}

Result<std::shared_ptr<store::Store>> OpenFileStore(std::string_view path, bool create) {
  if (path.empty()) return Status::InvalidArgument("an empty path names no store");
  store::FileStoreOptions options;
  options.create_root = create;
  CHUNKWISE_ASSIGN_OR_RETURN(std::shared_ptr<store::FileStore> store,
                             store::FileStore::Open(std::string(path), options));
  if (create) CHUNKWISE_RETURN_IF_ERROR(store->RemoveDeadTemporaries().status());
  return std::shared_ptr<store::Store>(std::move(store));
}

}  // namespace

Result<std::shared_ptr<store::Store>> OpenStoreForUrl(std::string_view url, bool create) {
  if (store::IsRemoteStoreUrl(url)) return store::OpenRemoteStore(url);
  if (url.starts_with(kMemoryScheme)) return NamedMemoryStore(url.substr(kMemoryScheme.size()));
  if (url.starts_with(kFileScheme)) return OpenFileStore(url.substr(kFileScheme.size()), create);
  if (const auto scheme = url.find("://"); scheme != std::string_view::npos) {
    return Status::InvalidArgument(std::string(url) +
                                   ": unknown URL scheme (expected a path, file://, memory://, "
                                   "s3://, gs://, http:// or https://)");
  }
  return OpenFileStore(url, create);
}

std::shared_ptr<core::ThreadPool> SharedThreadPool() {
  static std::mutex mutex;
  static auto* pool = new std::shared_ptr<core::ThreadPool>;
  static pid_t owner = 0;
  const std::lock_guard lock(mutex);
  if (*pool == nullptr || owner != getpid()) {
    // After a fork the old pool's threads do not exist here: it is leaked, not joined.
    if (*pool != nullptr) new std::shared_ptr<core::ThreadPool>(std::move(*pool));
    *pool = std::make_shared<core::ThreadPool>();
    owner = getpid();
  }
  return *pool;
}

}  // namespace chunkwise::python
