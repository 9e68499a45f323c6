// ChunkWriter: writes compressed chunk files to a store on a background
// thread, so that a Carray compresses the next chunk while the last one is
// being written (file I/O costs as much as lz4 compression, measured in
// bench/bcolz_bench.cc). Private to the bcolz format.
//
// Each write holds its buffer as a lease from its Carray's buffer pool, which
// takes it back after the Set, so steady-state appends reuse memory the
// process already touched. At most kMaxPending writes wait;
// beyond that Submit writes the oldest itself, so that when files are slower
// to create than chunks to compress both threads write. The background thread
// is woken once kWakeAt writes wait, not for each (a wake-up per chunk cost 8%
// of the append with no I/O at all), and Drain writes what is queued itself.
// The first failed Set is kept and returned by every later Submit and Drain.
// Submit may be called from several threads at once (the Carray's
// compressing threads); Drain only when no Submit is running.
#ifndef CHUNKWISE_SRC_FORMATS_BCOLZ_CHUNK_WRITER_H_
#define CHUNKWISE_SRC_FORMATS_BCOLZ_CHUNK_WRITER_H_

#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "chunkwise/core/buffer_pool.h"
#include "chunkwise/store/store.h"

namespace chunkwise::formats::bcolz {

class ChunkWriter {
 public:
  explicit ChunkWriter(store::Store* store) : store_(store) {}
  // Waits for pending writes (their errors are dropped: call Drain first).
  ~ChunkWriter();
  ChunkWriter(const ChunkWriter&) = delete;
  ChunkWriter& operator=(const ChunkWriter&) = delete;

  // Queues Set(key, data[0, size)); returns the first earlier failure, if any.
  Status Submit(std::string key, core::BufferPool::Lease data, std::size_t size);
  // Waits until every queued write has finished, writing queued ones itself
  // meanwhile; returns the first failure.
  Status Drain();

 private:
  static constexpr std::size_t kMaxPending = 4;
  static constexpr std::size_t kWakeAt = 4;
  struct Job {
    std::string key;
    core::BufferPool::Lease data;
    std::size_t size;
  };
  void Run();
  // Takes the oldest job and writes it; `lock` holds mutex_ on entry and exit.
  void RunOne(std::unique_lock<std::mutex>& lock);

  store::Store* store_;
  std::mutex mutex_;
  // Two conditions, so that finishing a write never wakes the idle background
  // thread for nothing: work_queued_ wakes it, write_done_ wakes submitters.
  std::condition_variable work_queued_;
  std::condition_variable write_done_;
  std::deque<Job> jobs_;     // Guarded by mutex_.
  std::size_t running_ = 0;  // Jobs taken but not finished; guarded by mutex_.
  Status error_;             // Guarded by mutex_.
  bool stopping_ = false;    // Guarded by mutex_.
  std::thread thread_;       // Started by the first Submit.
};

}  // namespace chunkwise::formats::bcolz

#endif  // CHUNKWISE_SRC_FORMATS_BCOLZ_CHUNK_WRITER_H_
