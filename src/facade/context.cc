#include "chunkwise/facade/context.h"

#include <unistd.h>

#include "core/chunk_cache.h"

namespace chunkwise {

Context::Context(ContextOptions options)
    : options_(std::move(options)),
      chunk_cache_(std::make_shared<core::ChunkCache>(options_.cache_bytes)),
      read_coalescing_(options_.read_coalescing) {}

store::ReadCoalescing Context::read_coalescing() const {
  std::lock_guard lock(coalescing_mutex_);
  return read_coalescing_;
}

void Context::SetReadCoalescing(const store::ReadCoalescing& coalescing) {
  std::lock_guard lock(coalescing_mutex_);
  read_coalescing_ = coalescing;
}

void Context::SetCacheBytes(std::uint64_t bytes) {
  chunk_cache_->SetLimit(bytes);  // 0 evicts everything.
}

CacheStats Context::cache_stats() const {
  const core::ChunkCacheStats stats = chunk_cache_->stats();
  return CacheStats{.hits = stats.hits,
                    .misses = stats.misses,
                    .insertions = stats.insertions,
                    .evictions = stats.evictions,
                    .invalidations = stats.invalidations,
                    .rejected = stats.rejected,
                    .entries = stats.entries,
                    .bytes = stats.bytes,
                    .limit_bytes = stats.limit_bytes};
}

void Context::ResetCacheStats() { chunk_cache_->ResetStats(); }

void Context::ForgetPoolsOfAnotherProcess() const {
  const int process = static_cast<int>(getpid());
  if (pool_process_ == process) return;
  // A forked child: the pools' threads stayed in the parent. Leaked on
  // purpose, as freeing them would wait for threads that are gone.
  for (std::shared_ptr<core::ThreadPool>* inherited : {&pool_, &remote_pool_}) {
    if (*inherited != nullptr) new std::shared_ptr<core::ThreadPool>(std::move(*inherited));
    *inherited = nullptr;
  }
  pool_process_ = process;
}

Result<std::shared_ptr<core::ThreadPool>> Context::pool() const {
  std::lock_guard lock(pool_mutex_);
  ForgetPoolsOfAnotherProcess();
  if (pool_ == nullptr) {
    CHUNKWISE_ASSIGN_OR_RETURN(pool_, core::ThreadPool::Create(options_.threads));
  }
  return pool_;
}

Result<std::shared_ptr<core::ThreadPool>> Context::pool_for(const store::Store& store) const {
  CHUNKWISE_ASSIGN_OR_RETURN(std::shared_ptr<core::ThreadPool> shared, pool());
  if (store.capabilities().local || options_.remote_threads <= shared->num_threads()) {
    return shared;
  }
  std::lock_guard lock(pool_mutex_);
  ForgetPoolsOfAnotherProcess();
  if (remote_pool_ == nullptr) {
    CHUNKWISE_ASSIGN_OR_RETURN(remote_pool_, core::ThreadPool::Create(options_.remote_threads));
  }
  return remote_pool_;
}

Result<std::shared_ptr<core::ThreadPool>> Context::pool(const CallOptions& call) const {
  if (call.threads == 0) return pool();
  return core::ThreadPool::Create(call.threads);
}

Result<std::shared_ptr<core::ThreadPool>> Context::pool_for(const store::Store& store,
                                                            const CallOptions& call) const {
  if (call.threads == 0) return pool_for(store);
  return core::ThreadPool::Create(call.threads);
}

StoreOptions Context::store_options(bool create) const {
  StoreOptions options = options_.stores;
  options.create = create;
  return options;
}

std::unique_ptr<core::ProgressReporter> Context::StartProgress(std::string label,
                                                               std::uint64_t total_units,
                                                               std::string unit) const {
  return StartProgress(CallOptions{}, std::move(label), total_units, std::move(unit));
}

std::unique_ptr<core::ProgressReporter> Context::StartProgress(const CallOptions& call,
                                                               std::string label,
                                                               std::uint64_t total_units,
                                                               std::string unit) const {
  core::ProgressOptions progress;
  progress.label = std::move(label);
  progress.total_units = total_units;
  progress.unit = std::move(unit);
  progress.mode = call.progress_mode.value_or(options_.progress_mode);
  progress.observer = call.observer != nullptr ? call.observer : options_.observer.get();
  return std::make_unique<core::ProgressReporter>(std::move(progress));
}

Result<std::shared_ptr<store::Store>> OpenStore(const Context& context, std::string_view url) {
  return context.stores().Open(url, context.store_options(false));
}

Result<std::shared_ptr<store::Store>> OpenStore(const Context& context, std::string_view url,
                                                const StoreOptions& options) {
  return context.stores().Open(url, options);
}

Result<std::shared_ptr<store::Store>> OpenStore(std::string_view url, const StoreOptions& options) {
  const StoreRegistry registry;
  return registry.Open(url, options);
}

}  // namespace chunkwise
