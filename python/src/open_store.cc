#include "open_store.h"

#include <unistd.h>

#include <mutex>

#include "chunkwise/chunkwise.h"

namespace chunkwise::python {
namespace {

// The module's one library Context: its registry holds the memory:// stores,
// so "memory://NAME" is the same store on every call, as in one CLI run.
const Context& ModuleContext() {
  static const auto* context = [] {
    ContextOptions options;
    options.progress_mode = core::ProgressMode::kQuiet;  // Progress goes to Python callbacks.
    return new Context(std::move(options));
  }();
  return *context;
}

}  // namespace

Result<std::shared_ptr<store::Store>> OpenStoreForUrl(std::string_view url, bool create) {
  if (url.empty()) return Status::InvalidArgument("an empty path names no store");
  const Context& context = ModuleContext();
  return OpenStore(context, url, context.store_options(create));
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
