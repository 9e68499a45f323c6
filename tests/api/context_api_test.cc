// Context: what a program's facade calls share, and what a forked child of
// the program gets of it.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>

#include "chunkwise/chunkwise.h"

namespace chunkwise {
namespace {

// What the child found, as its exit code.
enum ChildOutcome { kOwnPoolRuns = 0, kParentsPool = 1, kNoPool = 2 };

TEST(ContextApi, OneProcessSharesOnePool) {
  const Context context(ContextOptions{.threads = 2});
  const auto first = context.pool();
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  EXPECT_EQ((*first)->num_threads(), 2u);
  EXPECT_EQ(context.pool()->get(), first->get());
}

// Arrays on a remote store run on a pool sized for requests in flight, not
// for cores; local stores keep the shared pool.
TEST(ContextApi, ARemoteStoreGetsAPoolSizedForRequestsInFlight) {
  const Context context(ContextOptions{.threads = 2, .remote_threads = 12});
  const auto local = OpenStore(context, "memory://here", context.store_options(true));
  ASSERT_TRUE(local.ok()) << local.status().ToString();
  // Opening an http:// store sends no request: nothing listens on port 9.
  const auto remote = OpenStore(context, "http://127.0.0.1:9/data");
  ASSERT_TRUE(remote.ok()) << remote.status().ToString();
  const auto shared = context.pool();
  ASSERT_TRUE(shared.ok()) << shared.status().ToString();
  EXPECT_EQ(context.pool_for(**local)->get(), shared->get());
  const auto for_remote = context.pool_for(**remote);
  ASSERT_TRUE(for_remote.ok()) << for_remote.status().ToString();
  EXPECT_EQ((*for_remote)->num_threads(), 12u);
  EXPECT_EQ(context.pool_for(**remote)->get(), for_remote->get());  // Started once.

  // remote_threads 0, or no more than the shared pool has: the shared pool.
  const Context unchanged(ContextOptions{.threads = 2, .remote_threads = 0});
  EXPECT_EQ(unchanged.pool_for(**remote)->get(), unchanged.pool()->get());
  const Context enough(ContextOptions{.threads = 4, .remote_threads = 3});
  EXPECT_EQ(enough.pool_for(**remote)->get(), enough.pool()->get());
  // The default (#42): the shared pool, as remote requests go in batches.
  const Context by_default(ContextOptions{.threads = 2});
  EXPECT_EQ(by_default.pool_for(**remote)->get(), by_default.pool()->get());
}

// multiprocessing and dask fork a Python process whose module Context's pool
// runs: the child has none of its threads, so a task queued there would wait
// forever. The child's Context starts a pool of its own.
TEST(ContextApi, AForkedChildStartsAPoolOfItsOwn) {
  const Context context(ContextOptions{.threads = 2});
  const auto parents = context.pool();
  ASSERT_TRUE(parents.ok()) << parents.status().ToString();
  const core::ThreadPool* parent_pool = parents->get();
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    alarm(20);  // A task queued on the parent's pool would never run: die, do not hang.
    const auto pool = context.pool();
    if (!pool.ok()) _exit(kNoPool);
    if (pool->get() == parent_pool) _exit(kParentsPool);
    std::atomic<int> ran{0};
    (*pool)->Submit([&ran] { ran.fetch_add(1); });
    (*pool)->WaitIdle();
    _exit(ran.load() == 1 ? kOwnPoolRuns : kNoPool);
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status)) << "the child was killed by signal " << WTERMSIG(status);
  EXPECT_EQ(WEXITSTATUS(status), kOwnPoolRuns);
  EXPECT_EQ(context.pool()->get(), parent_pool);  // The parent keeps its own.
}

}  // namespace
}  // namespace chunkwise
