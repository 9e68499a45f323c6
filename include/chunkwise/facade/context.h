// Context: what every facade call runs with — its threads, where progress
// goes, a cancellation flag, and the stores opened by URL.
//
// A program (the CLI, the Python module, a user's own) makes one Context and
// passes it to the facade's entry points. There is no process-wide state:
// two Contexts share nothing, not even the named memory:// stores.
//
// Thread safety: the accessors and Cancel() may be called from any thread;
// the store registry is safe for concurrent opens, the chunk cache for
// concurrent reads and writes.
#ifndef CHUNKWISE_FACADE_CONTEXT_H_
#define CHUNKWISE_FACADE_CONTEXT_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>

#include "chunkwise/core/buffer_pool.h"
#include "chunkwise/core/cancellation.h"
#include "chunkwise/core/progress.h"
#include "chunkwise/core/result.h"
#include "chunkwise/core/thread_pool.h"
#include "chunkwise/facade/call_options.h"
#include "chunkwise/facade/store_registry.h"
#include "chunkwise/store/byte_range.h"

namespace chunkwise::core {
class ChunkCache;  // src/core/chunk_cache.h
}  // namespace chunkwise::core

namespace chunkwise {

using core::ProgressObserver;

// What the context's chunk cache holds and has done since it was made (or
// since ResetCacheStats).
struct CacheStats {
  std::uint64_t hits = 0;           // Reads of a decoded chunk or shard index found there.
  std::uint64_t misses = 0;         // Looked for and not found: read from the store.
  std::uint64_t insertions = 0;     // Values kept.
  std::uint64_t evictions = 0;      // Dropped, least recently used first, to stay in the limit.
  std::uint64_t invalidations = 0;  // Dropped because a write made them stale.
  std::uint64_t rejected = 0;       // Not kept: larger than the limit, or raced by a write.
  std::uint64_t entries = 0;        // Held now.
  std::uint64_t bytes = 0;          // Held now; never above limit_bytes.
  std::uint64_t limit_bytes = 0;
};

struct ContextOptions {
  // Worker threads of the pool every operation shares; 0: one per core.
  std::size_t threads = 0;
  // Arrays on stores that are not local (s3://, gs://, http(s)://) run on a
  // pool of at least this many threads; 0, the default: the shared pool,
  // whatever the store. Their requests do not take a thread each: they go
  // in batches through the store's event loop (up to 64 on the wire), sent
  // from the calling thread, and the pool only decodes and encodes. So go
  // a region read of an unsharded array (its chunks' GETs) and of a sharded
  // one that meets more shards than the pool has threads (the shards'
  // indexes, then their inner chunks' byte ranges, coalesced; fewer shards
  // go one per thread, each reader's tail GET holding the index), a region
  // write on S3 (PUTs, and the GETs then conditional PUTs of objects it
  // covers in part: store::UpdateObjects), a copy (`zarr convert`) to or
  // from a remote store, `zarr info`'s sizes and shard indexes, an N5
  // dataset's blocks (`zarr import`) and a vectors store's chunks (layout
  // 0.8). What still takes a pool thread per request (a sharded array's
  // reads with cache_bytes set, a layout-0.9 vectors store's cells, links
  // across chunks) runs on more threads when this asks for more (docs/api.md).
  std::size_t remote_threads = 0;
  // Progress printed on stderr (core/progress.h); kQuiet prints nothing. The
  // CLI sets kAuto (a bar on a terminal), the Python module kQuiet.
  core::ProgressMode progress_mode = core::ProgressMode::kQuiet;
  // Told of every long operation's counts; may be null.
  std::shared_ptr<ProgressObserver> observer;
  // How the facade's entry points open the stores their URLs name: remote
  // credentials and endpoints, reference-set roots (`create` is theirs to set).
  StoreOptions stores;
  // Bytes of decoded chunks and shard indexes kept for the arrays this
  // context opens, so that reading a chunk again reads neither the store
  // nor the shard index and decodes nothing (small random reads: a viewer,
  // patches for training). 0, the default, keeps nothing: a job reading
  // each chunk once would only churn it. Writes through chunkwise drop what
  // they make stale; writes by other processes are not seen (docs/api.md).
  std::uint64_t cache_bytes = 0;
  // How reads of a sharded zarr array fetch the inner chunks of one shard a
  // box needs (docs/api.md; docs/formats/zarr.md, "Coalesced reads"): on
  // remote stores their byte ranges joined into few requests (at most 1 MiB
  // between two ranges, requests up to 32 MiB, past 64 KiB apart at most half
  // of a request unneeded); on local ones one request per inner chunk.
  store::ReadCoalescing read_coalescing = {};
};

class Context {
 public:
  explicit Context(ContextOptions options = {});
  Context(const Context&) = delete;
  Context& operator=(const Context&) = delete;

  // The thread count asked for (0: one per core).
  std::size_t threads() const { return options_.threads; }
  // The shared pool, started on first use. An error if its threads could not start.
  // In a child forked after the pool started (multiprocessing, dask), whose
  // copy of the pool has no threads, a new pool is started: the parent's copy
  // is left unfreed there, as freeing it would wait for threads that are gone.
  Result<std::shared_ptr<core::ThreadPool>> pool() const;
  // The pool for work on `store`: pool(), or for a store that is not local a
  // second pool of `remote_threads` threads where that is more (started on
  // first use, and again in a forked child, as pool()).
  Result<std::shared_ptr<core::ThreadPool>> pool_for(const store::Store& store) const;
  // The pool one call runs on: a pool of its own of `call.threads` threads
  // when it asks for a count (started for the call, gone with it), else
  // pool() or pool_for(store).
  Result<std::shared_ptr<core::ThreadPool>> pool(const CallOptions& call) const;
  Result<std::shared_ptr<core::ThreadPool>> pool_for(const store::Store& store,
                                                     const CallOptions& call) const;
  // The shard-sized buffers every array opened through this context borrows
  // (core/buffer_pool.h), so that a new array starts from memory already touched.
  const std::shared_ptr<core::BufferPool>& buffers() const { return buffers_; }

  // The decoded chunks and shard indexes every array opened through this
  // context shares (ContextOptions::cache_bytes; core/chunk_cache.h).
  const std::shared_ptr<core::ChunkCache>& chunk_cache() const { return chunk_cache_; }
  // Changes the cache's limit (0: off, dropping everything it holds).
  void SetCacheBytes(std::uint64_t bytes);
  CacheStats cache_stats() const;
  void ResetCacheStats();

  // The coalescing of the arrays opened from now on (ContextOptions::read_coalescing).
  store::ReadCoalescing read_coalescing() const;
  void SetReadCoalescing(const store::ReadCoalescing& coalescing);

  // The schemes OpenStore knows, this Context's memory:// stores among them.
  StoreRegistry& stores() { return stores_; }
  const StoreRegistry& stores() const { return stores_; }

  // The context's StoreOptions with `create` set, for the entry points.
  StoreOptions store_options(bool create) const;

  // A reporter for one operation: printed as options say, and told to the observer.
  std::unique_ptr<core::ProgressReporter> StartProgress(std::string label,
                                                        std::uint64_t total_units,
                                                        std::string unit) const;
  // The same for one call: its mode and observer where it gives them.
  std::unique_ptr<core::ProgressReporter> StartProgress(const CallOptions& call, std::string label,
                                                        std::uint64_t total_units,
                                                        std::string unit) const;
  core::ProgressMode progress_mode() const { return options_.progress_mode; }
  // Told of every long operation's counts; may be null. For library calls
  // that make their own reporters (export-shards, ingest).
  ProgressObserver* observer() const { return options_.observer.get(); }

  // Asks running and later operations to stop (they return Cancelled);
  // ResetCancel() lets operations run again.
  void Cancel() { cancellation_.Cancel(); }
  void ResetCancel() { cancellation_.Reset(); }
  bool cancelled() const { return cancellation_.cancelled(); }
  // The flag itself, for the library calls that check it as they go.
  const core::Cancellation& cancellation() const { return cancellation_; }
  // OK, or Cancelled naming `what`.
  Status CheckCancelled(std::string_view what) const { return cancellation_.Check(what); }
  // The flag one call checks: its own where it gives one, else the context's.
  const core::Cancellation& cancellation(const CallOptions& call) const {
    return call.cancellation != nullptr ? *call.cancellation : cancellation_;
  }
  Status CheckCancelled(const CallOptions& call, std::string_view what) const {
    return cancellation(call).Check(what);
  }

 private:
  const ContextOptions options_;
  StoreRegistry stores_;
  core::Cancellation cancellation_;
  const std::shared_ptr<core::BufferPool> buffers_ =
      std::make_shared<core::BufferPool>(core::kDefaultPoolIdleBytes);
  const std::shared_ptr<core::ChunkCache> chunk_cache_;
  mutable std::mutex coalescing_mutex_;
  store::ReadCoalescing read_coalescing_;  // Guarded by coalescing_mutex_.
  // Drops the pools a forked child inherited (their threads stayed in the
  // parent); pool_mutex_ held.
  void ForgetPoolsOfAnotherProcess() const;

  mutable std::mutex pool_mutex_;
  mutable std::shared_ptr<core::ThreadPool> pool_;         // Guarded by pool_mutex_.
  mutable std::shared_ptr<core::ThreadPool> remote_pool_;  // Guarded by pool_mutex_.
  mutable int pool_process_ = 0;  // The pid that started the pools; guarded.
};

// The store `url` names, through the context's registry (store_registry.h),
// opened with the context's store options (to be read, or written in place).
Result<std::shared_ptr<store::Store>> OpenStore(const Context& context, std::string_view url);
// The same with `options` in place of the context's.
Result<std::shared_ptr<store::Store>> OpenStore(const Context& context, std::string_view url,
                                                const StoreOptions& options);
// The same through a registry of the built-in schemes made for this call:
// each "memory://NAME" opened this way is a new store, shared with no one.
Result<std::shared_ptr<store::Store>> OpenStore(std::string_view url,
                                                const StoreOptions& options = {});

}  // namespace chunkwise

#endif  // CHUNKWISE_FACADE_CONTEXT_H_
