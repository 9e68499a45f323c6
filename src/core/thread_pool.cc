#include "chunkwise/core/thread_pool.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <memory>
#include <string>
#include <system_error>
#include <utility>

#include "chunkwise/core/check.h"
#include "core/thread_pool_counts.h"

namespace chunkwise::core {
namespace {

// The pool whose worker is running on this thread, if any.
thread_local const ThreadPool* current_pool = nullptr;

// TasksQueuedForWorkers's count.
std::atomic<std::uint64_t> tasks_queued{0};

// What one ParallelFor shares with the helper tasks it queues. Helpers may
// start after ParallelFor has returned (they sat in the queue behind other
// work), so they hold it by shared_ptr and never touch `body` unless they
// claimed an index while the call was still live.
struct ParallelForState {
  std::mutex mutex;
  std::condition_variable done;
  std::size_t next = 0;  // The next index to hand out.
  std::size_t n = 0;
  std::size_t active = 0;  // Indices claimed whose body has not returned.
  bool failed = false;
  Status first_error;
  const std::function<Status(std::size_t)>* body = nullptr;
};

// Claims and runs indices until none are left or one has failed.
void RunItems(ParallelForState& state) {
  std::unique_lock lock(state.mutex);
  while (!state.failed && state.next < state.n) {
    const std::size_t index = state.next++;
    ++state.active;
    lock.unlock();
    Status status = (*state.body)(index);
    lock.lock();
    --state.active;
    if (!status.ok() && !state.failed) {
      state.failed = true;
      state.first_error = std::move(status);
    }
  }
  if (state.active == 0) {
    state.done.notify_all();
  }
}

}  // namespace

Result<std::thread> StartThread(std::function<void()> body, std::string_view what) {
  try {
    return std::thread(std::move(body));
  } catch (const std::system_error& error) {
    return Status::ResourceExhausted("cannot start a thread for " + std::string(what) + ": " +
                                     error.code().message() + " (a memory or process limit?)");
  }
}

ThreadPool::ThreadPool(std::size_t num_threads) : owner_process_(::getpid()) {
  if (num_threads == 0) {
    num_threads = std::max(1u, std::thread::hardware_concurrency());
  }
  workers_.reserve(num_threads);
  for (std::size_t i = 0; i < num_threads; ++i) {
    Result<std::thread> worker = StartThread([this] { WorkerLoop(); }, "a thread pool");
    if (!worker.ok()) {
      start_status_ = worker.status().WithContext("started " + std::to_string(i) + " of " +
                                                  std::to_string(num_threads) + " threads");
      break;
    }
    workers_.push_back(std::move(worker).value());
  }
  if (start_status_.ok()) return;
  // The pool will refuse its work anyway: give back the stacks of the
  // threads that did start, so that the error can be reported in the memory
  // they would have held.
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  work_available_.notify_all();
  for (std::thread& worker : workers_) worker.join();
  workers_.clear();
}

Result<std::shared_ptr<ThreadPool>> ThreadPool::Create(std::size_t num_threads) {
  auto pool = std::make_shared<ThreadPool>(num_threads);
  if (!pool->start_status().ok()) return pool->start_status();
  return pool;
}

ThreadPool::~ThreadPool() {
  CHUNKWISE_CHECK(!InWorkerThread());
  if (InForkedChild()) {
    // Joining or detaching would act on threads of another process: the
    // handles are leaked, and so are the parent's queued tasks. The condition
    // variables still count the parent's waiting workers, and destroying them
    // would wait for those for good: each is made anew over its old state.
    new std::vector<std::thread>(std::move(workers_));
    new std::deque<std::function<void()>>(std::move(queue_));
    new (&work_available_) std::condition_variable();
    new (&idle_) std::condition_variable();
    return;
  }
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  work_available_.notify_all();
  for (std::thread& worker : workers_) {
    worker.join();
  }
}

std::uint64_t TasksQueuedForWorkers() { return tasks_queued.load(std::memory_order_relaxed); }

bool ThreadPool::InWorkerThread() const { return current_pool == this; }

bool ThreadPool::InForkedChild() const { return ::getpid() != owner_process_; }

void ThreadPool::Submit(std::function<void()> task) {
  // No worker started, or none in this process: nobody else would run it.
  if (workers_.empty() || InForkedChild()) {
    task();
    return;
  }
  {
    std::lock_guard lock(mutex_);
    queue_.push_back(std::move(task));
    ++pending_;
  }
  tasks_queued.fetch_add(1, std::memory_order_relaxed);
  work_available_.notify_one();
}

void ThreadPool::WorkerLoop() {
  current_pool = this;
  std::unique_lock lock(mutex_);
  while (true) {
    // Workers drain the queue before stopping, so the destructor runs every
    // submitted task.
    work_available_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
    if (queue_.empty()) {
      return;
    }
    std::function<void()> task = std::move(queue_.front());
    queue_.pop_front();
    lock.unlock();
    task();
    task = nullptr;  // Destroy captures before the task counts as done.
    lock.lock();
    if (--pending_ == 0) {
      idle_.notify_all();
    }
  }
}

void ThreadPool::WaitIdle() {
  CHUNKWISE_CHECK(!InWorkerThread());
  if (InForkedChild()) return;  // This process's tasks ran as they were submitted.
  std::unique_lock lock(mutex_);
  idle_.wait(lock, [this] { return pending_ == 0; });
}

Status ThreadPool::ParallelFor(std::size_t n, const std::function<Status(std::size_t)>& body) {
  if (!start_status_.ok()) return start_status_;
  if (n == 0) {
    return Status::Ok();
  }
  if (InForkedChild()) {
    // The condition variables may list the parent's waiters, and signalling
    // them here can block for good: the calling thread runs every index.
    for (std::size_t i = 0; i < n; ++i) CHUNKWISE_RETURN_IF_ERROR(body(i));
    return Status::Ok();
  }
  auto state = std::make_shared<ParallelForState>();
  state->n = n;
  state->body = &body;
  // The caller is one of the runners, so n - 1 helpers at most.
  const std::size_t helpers = std::min(n - 1, num_threads());
  for (std::size_t i = 0; i < helpers; ++i) {
    Submit([state] { RunItems(*state); });
  }
  RunItems(*state);
  // No index can be claimed any more (all handed out, or failed); wait only
  // for the ones already running. Queued helpers that start later find
  // nothing to do, which is what keeps nested calls from deadlocking.
  std::unique_lock lock(state->mutex);
  state->done.wait(lock, [&] { return state->active == 0; });
  return std::move(state->first_error);
}

}  // namespace chunkwise::core
