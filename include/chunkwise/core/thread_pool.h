// ThreadPool: a fixed set of worker threads that runs submitted tasks.
//
// Compression workers, chunk writers and readers all run on one of these.
// ParallelFor is the usual entry point: it spreads n independent items over
// the workers and the calling thread, returns the first error and stops
// handing out items after it. Because the caller works too and waits only for
// items already started, ParallelFor may be nested or called from inside a
// task on the same pool without deadlock, even when every worker is busy.
#ifndef CHUNKWISE_CORE_THREAD_POOL_H_
#define CHUNKWISE_CORE_THREAD_POOL_H_

#include <sys/types.h>

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string_view>
#include <thread>
#include <vector>

#include "chunkwise/core/result.h"
#include "chunkwise/core/status.h"

namespace chunkwise::core {

class ThreadPool {
 public:
  // Starts `num_threads` workers; 0 means std::thread::hardware_concurrency()
  // (at least 1). If the system refuses a thread (a memory or process limit),
  // start_status() says so, the threads that did start are stopped (their
  // stacks given back) and every ParallelFor returns that error, so the work
  // fails cleanly instead of the process aborting.
  explicit ThreadPool(std::size_t num_threads = 0);
  // A pool with all `num_threads` workers running, or the IOError saying how
  // many the system would start.
  static Result<std::shared_ptr<ThreadPool>> Create(std::size_t num_threads = 0);
  // Runs every task already submitted, then joins the workers.
  // REQUIRES: not called from one of this pool's workers.
  //
  // In a child forked from the process that started the pool, the workers
  // stayed behind in the parent: there every call runs its work on the
  // calling thread, and the destructor leaves the parent's threads alone.
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  // Queues `task` to run on a worker. Thread-safe; may be called from a task.
  void Submit(std::function<void()> task);

  // Calls body(i) for every i in [0, n) on the workers and the calling
  // thread, in no fixed order, and returns when all started calls are done.
  // Returns OK, or the first error a call returned; after an error no new
  // index is started. `body` must be safe to call concurrently. Thread-safe;
  // may be called from a task on this pool.
  Status ParallelFor(std::size_t n, const std::function<Status(std::size_t)>& body);

  // Blocks until the queue is empty and no task is running.
  // REQUIRES: not called from one of this pool's workers (it would wait for itself).
  void WaitIdle();

  std::size_t num_threads() const { return workers_.size(); }
  // OK, or why not every worker asked for could be started.
  const Status& start_status() const { return start_status_; }
  // True when the calling thread is one of this pool's workers.
  bool InWorkerThread() const;

 private:
  void WorkerLoop();
  // True in a process forked from the one that started the workers.
  bool InForkedChild() const;

  std::mutex mutex_;
  std::condition_variable work_available_;   // A task was queued or the pool is stopping.
  std::condition_variable idle_;             // pending_ dropped to zero.
  std::deque<std::function<void()>> queue_;  // Guarded by mutex_.
  std::size_t pending_ = 0;                  // Queued plus running tasks; guarded by mutex_.
  bool stopping_ = false;                    // Guarded by mutex_.
  std::vector<std::thread> workers_;
  Status start_status_;
  pid_t owner_process_;  // The process whose threads workers_ are.
};

// Starts a thread running `body`; IOError naming `what` instead of the
// std::system_error (and, unhandled, the abort) when the system refuses one.
Result<std::thread> StartThread(std::function<void()> body, std::string_view what);

}  // namespace chunkwise::core

#endif  // CHUNKWISE_CORE_THREAD_POOL_H_
