#include "chunkwise/core/thread_pool.h"

#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <fstream>
#include <set>
#include <vector>

#include "core/thread_pool_counts.h"

namespace chunkwise::core {
namespace {

TEST(ThreadPool, DefaultUsesAtLeastOneThread) {
  ThreadPool pool;
  EXPECT_GE(pool.num_threads(), 1u);
  EXPECT_EQ(ThreadPool(3).num_threads(), 3u);
}

TEST(ThreadPool, SubmitRunsEveryTaskBeforeWaitIdleReturns) {
  ThreadPool pool(4);
  std::atomic<int> count{0};
  for (int i = 0; i < 1000; ++i) {
    pool.Submit([&] { ++count; });
  }
  pool.WaitIdle();
  EXPECT_EQ(count.load(), 1000);
}

TEST(ThreadPool, DestructorRunsQueuedTasks) {
  std::atomic<int> count{0};
  {
    ThreadPool pool(2);
    for (int i = 0; i < 200; ++i) {
      pool.Submit([&] { ++count; });
    }
  }
  EXPECT_EQ(count.load(), 200);
}

TEST(ThreadPool, TasksMaySubmitTasks) {
  ThreadPool pool(2);
  std::atomic<int> count{0};
  for (int i = 0; i < 10; ++i) {
    pool.Submit([&] {
      pool.Submit([&] { ++count; });
      ++count;
    });
  }
  pool.WaitIdle();
  EXPECT_EQ(count.load(), 20);
}

TEST(ThreadPool, ParallelForVisitsEveryIndexOnce) {
  ThreadPool pool(4);
  std::vector<std::atomic<int>> visits(10000);
  ASSERT_TRUE(pool.ParallelFor(visits.size(),
                               [&](std::size_t i) {
                                 ++visits[i];
                                 return Status::Ok();
                               })
                  .ok());
  for (const auto& v : visits) {
    ASSERT_EQ(v.load(), 1);
  }
}

TEST(ThreadPool, ParallelForOfNothingSucceeds) {
  ThreadPool pool(2);
  EXPECT_TRUE(pool.ParallelFor(0, [](std::size_t) { return Status::Internal("never"); }).ok());
}

// TasksQueuedForWorkers counts what went to the workers: Submit's tasks and
// the helpers a ParallelFor asks for (n - 1, at most one per worker), never
// a ParallelFor of one index or none, which runs on the calling thread alone.
TEST(ThreadPool, TasksQueuedForWorkersCountsWhatWentToTheWorkers) {
  ThreadPool pool(3);
  const std::uint64_t start = TasksQueuedForWorkers();
  const auto queued = [&] { return TasksQueuedForWorkers() - start; };
  pool.Submit([] {});
  pool.Submit([] {});
  pool.WaitIdle();
  EXPECT_EQ(queued(), 2u);
  const auto ok = [](std::size_t) { return Status::Ok(); };
  ASSERT_TRUE(pool.ParallelFor(1, ok).ok());
  ASSERT_TRUE(pool.ParallelFor(0, ok).ok());
  EXPECT_EQ(queued(), 2u);
  ASSERT_TRUE(pool.ParallelFor(2, ok).ok());
  EXPECT_EQ(queued(), 3u);
  ASSERT_TRUE(pool.ParallelFor(100, ok).ok());
  EXPECT_EQ(queued(), 6u);
  pool.WaitIdle();
}

TEST(ThreadPool, ParallelForReturnsErrorAndStopsScheduling) {
  ThreadPool pool(2);
  std::atomic<std::size_t> started{0};
  const Status status = pool.ParallelFor(100000, [&](std::size_t i) {
    ++started;
    return i == 10 ? Status::Corruption("item 10") : Status::Ok();
  });
  EXPECT_EQ(status, Status::Corruption("item 10"));
  // Only items claimed before the failure was recorded ran.
  EXPECT_LT(started.load(), 100000u);
}

TEST(ThreadPool, ParallelForReturnsOneOfSeveralErrors) {
  ThreadPool pool(4);
  const Status status = pool.ParallelFor(
      64, [](std::size_t i) { return Status::IOError("item " + std::to_string(i)); });
  EXPECT_EQ(status.code(), StatusCode::kIOError);
}

TEST(ThreadPool, ParallelForUsesCallingThreadToo) {
  ThreadPool pool(1);
  std::mutex mutex;
  std::set<std::thread::id> threads;
  ASSERT_TRUE(pool.ParallelFor(200,
                               [&](std::size_t) {
                                 std::lock_guard lock(mutex);
                                 threads.insert(std::this_thread::get_id());
                                 return Status::Ok();
                               })
                  .ok());
  EXPECT_GE(threads.size(), 1u);
  EXPECT_LE(threads.size(), 2u);
}

// Every worker blocks in an inner ParallelFor whose helpers sit in the queue
// behind them; the callers must finish the inner work themselves.
TEST(ThreadPool, NestedParallelForFromEveryWorkerDoesNotDeadlock) {
  ThreadPool pool(2);
  std::atomic<int> inner{0};
  const Status status = pool.ParallelFor(8, [&](std::size_t) {
    EXPECT_TRUE(pool.InWorkerThread() || true);
    return pool.ParallelFor(50, [&](std::size_t) {
      ++inner;
      return Status::Ok();
    });
  });
  EXPECT_TRUE(status.ok());
  EXPECT_EQ(inner.load(), 400);
}

TEST(ThreadPool, ParallelForInsideSubmittedTasks) {
  ThreadPool pool(2);
  std::atomic<int> inner{0};
  for (int t = 0; t < 4; ++t) {
    pool.Submit([&] {
      EXPECT_TRUE(pool.InWorkerThread());
      EXPECT_TRUE(pool.ParallelFor(25,
                                   [&](std::size_t) {
                                     ++inner;
                                     return Status::Ok();
                                   })
                      .ok());
    });
  }
  pool.WaitIdle();
  EXPECT_EQ(inner.load(), 100);
  EXPECT_FALSE(pool.InWorkerThread());
}

TEST(ThreadPool, ConcurrentParallelForCallersFromOutside) {
  ThreadPool pool(2);
  std::atomic<int> total{0};
  std::vector<std::thread> callers;
  callers.reserve(3);
  for (int c = 0; c < 3; ++c) {
    callers.emplace_back([&] {
      EXPECT_TRUE(pool.ParallelFor(100,
                                   [&](std::size_t) {
                                     ++total;
                                     return Status::Ok();
                                   })
                      .ok());
    });
  }
  for (std::thread& caller : callers) {
    caller.join();
  }
  EXPECT_EQ(total.load(), 300);
}

// Under an address-space limit the system refuses threads (each reserves its
// stack): the pool reports it and ParallelFor fails cleanly, no abort. Run
// in a child process so that the limit stays there.
TEST(ThreadPool, RefusedThreadsAreAnError) {
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    // Room for the process as it is plus a few stacks, not for 300.
    std::ifstream statm("/proc/self/statm");
    unsigned long pages = 0;
    statm >> pages;
    const rlim_t cap = pages * ::sysconf(_SC_PAGE_SIZE) + (64 << 20);
    const struct rlimit limit = {cap, cap};
    if (::setrlimit(RLIMIT_AS, &limit) != 0) ::_exit(10);
    ThreadPool pool(300);
    if (pool.start_status().code() != StatusCode::kResourceExhausted) ::_exit(11);
    if (pool.start_status().message().find("cannot start a thread") == std::string_view::npos) {
      ::_exit(12);
    }
    if (pool.num_threads() != 0) ::_exit(13);  // The started ones are given back.
    if (pool.ParallelFor(4, [](std::size_t) { return Status::Ok(); }).code() !=
        StatusCode::kResourceExhausted) {
      ::_exit(14);
    }
    if (ThreadPool::Create(300).status().code() != StatusCode::kResourceExhausted) ::_exit(15);
    ::_exit(0);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status)) << "the child died of signal " << WTERMSIG(status);
  EXPECT_EQ(WEXITSTATUS(status), 0);
  auto pool = ThreadPool::Create(2);
  ASSERT_TRUE(pool.ok());
  EXPECT_EQ((*pool)->num_threads(), 2u);
}

// A child forked from a process whose pool has running workers (as a Python
// multiprocessing worker is) has none of them: the pool runs the child's
// work on the calling thread, to the same results and errors, and its
// destruction returns (the workers the child lacks are counted as waiting
// on the pool's condition variables). The alarm turns a hang into a failure.
TEST(ThreadPool, AForkedChildRunsItsWorkOnTheCallingThread) {
  auto pool = std::make_unique<ThreadPool>(4);
  std::atomic<int> warmed{0};
  ASSERT_TRUE(pool->ParallelFor(64,
                                [&](std::size_t) {
                                  ++warmed;
                                  return Status::Ok();
                                })
                  .ok());
  pool->WaitIdle();  // Its workers wait on its condition variable at the fork.
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    ::alarm(30);
    const std::thread::id caller = std::this_thread::get_id();
    std::size_t sum = 0;
    bool elsewhere = false;
    const Status summed = pool->ParallelFor(100, [&](std::size_t i) {
      sum += i;
      elsewhere = elsewhere || std::this_thread::get_id() != caller;
      return Status::Ok();
    });
    if (!summed.ok() || sum != 4950) ::_exit(11);
    if (elsewhere) ::_exit(12);
    const Status failed = pool->ParallelFor(
        10, [](std::size_t i) { return i == 3 ? Status::NotFound("index 3") : Status::Ok(); });
    if (failed.code() != StatusCode::kNotFound) ::_exit(13);
    bool ran = false;
    pool->Submit([&] { ran = true; });
    if (!ran) ::_exit(14);  // Ran before Submit returned.
    pool->WaitIdle();
    pool.reset();
    ThreadPool own(2);  // A pool the child starts has workers of its own.
    std::atomic<int> count{0};
    const Status counted = own.ParallelFor(50, [&](std::size_t) {
      ++count;
      return Status::Ok();
    });
    if (!counted.ok() || count != 50) ::_exit(15);
    ::_exit(0);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status)) << "the child died of signal " << WTERMSIG(status);
  EXPECT_EQ(WEXITSTATUS(status), 0);
  EXPECT_EQ(warmed.load(), 64);
}

}  // namespace
}  // namespace chunkwise::core
