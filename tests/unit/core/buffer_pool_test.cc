#include "chunkwise/core/buffer_pool.h"

#include <gtest/gtest.h>

#include <thread>
#include <vector>

namespace chunkwise::core {
namespace {

TEST(BufferPoolTest, ReturnedBufferIsLentAgain) {
  BufferPool pool(1 << 20);
  const std::uint8_t* first = nullptr;
  {
    BufferPool::Lease lease = pool.Take(1000);
    ASSERT_EQ(lease.size(), 1000u);
    first = lease.data();
    lease.data()[999] = 7;
  }
  EXPECT_EQ(pool.idle_count(), 1u);
  BufferPool::Lease again = pool.Take(500);
  EXPECT_EQ(again.data(), first);  // The same memory, shrunk to the request.
  EXPECT_EQ(again.size(), 500u);
  EXPECT_EQ(pool.idle_count(), 0u);
}

TEST(BufferPoolTest, TooSmallIdleBufferIsNotUsed) {
  BufferPool pool(1 << 20);
  { BufferPool::Lease small = pool.Take(100); }
  BufferPool::Lease large = pool.Take(100000);
  EXPECT_EQ(large.size(), 100000u);
  EXPECT_EQ(pool.idle_count(), 1u);  // The small one still waits.
}

TEST(BufferPoolTest, PicksTheSmallestThatFits) {
  BufferPool pool(1 << 20);
  {
    BufferPool::Lease a = pool.Take(100);
    BufferPool::Lease b = pool.Take(1000);
    BufferPool::Lease c = pool.Take(10000);
  }
  BufferPool::Lease lease = pool.Take(900);
  EXPECT_GE(lease.view().size(), 900u);
  { BufferPool::Lease big = pool.Take(5000); }  // Must get the 10000 one back, not a new one.
  EXPECT_EQ(pool.idle_count(), 2u);
}

TEST(BufferPoolTest, NewBuffersHaveRoomForSlightlyLargerRequests) {
  BufferPool pool(1 << 20);
  { BufferPool::Lease lease = pool.Take(80000); }
  BufferPool::Lease larger = pool.Take(88000);  // Within the 1/8 spare room.
  EXPECT_EQ(pool.idle_count(), 0u);
}

TEST(BufferPoolTest, KeepsTheLargestBuffersWithinTheIdleLimit) {
  BufferPool pool(57000);
  {
    BufferPool::Lease a = pool.Take(1000);
    BufferPool::Lease b = pool.Take(20000);
    BufferPool::Lease c = pool.Take(30000);
  }
  // With their spare room the three exceed 57000: the smallest went.
  EXPECT_EQ(pool.idle_count(), 2u);
  EXPECT_LE(pool.idle_bytes(), 57000u);
  EXPECT_GE(pool.idle_bytes(), 50000u);
  BufferPool::Lease x = pool.Take(15000);
  BufferPool::Lease y = pool.Take(15000);
  EXPECT_EQ(pool.idle_count(), 0u);
  EXPECT_EQ(pool.idle_bytes(), 0u);
}

TEST(BufferPoolTest, BufferLargerThanTheLimitIsFreed) {
  BufferPool pool(1000);
  { BufferPool::Lease big = pool.Take(5000); }
  EXPECT_EQ(pool.idle_count(), 0u);
  EXPECT_EQ(pool.idle_bytes(), 0u);
}

TEST(BufferPoolTest, MovedLeaseReturnsOnce) {
  BufferPool pool(1 << 20);
  {
    BufferPool::Lease a = pool.Take(64);
    BufferPool::Lease b = std::move(a);
    BufferPool::Lease c;
    c = std::move(b);
    EXPECT_EQ(c.size(), 64u);
  }
  EXPECT_EQ(pool.idle_count(), 1u);
}

TEST(BufferPoolTest, ConcurrentTakesGetDistinctBuffers) {
  BufferPool pool(1 << 20);
  std::vector<std::thread> threads;
  threads.reserve(4);
  std::vector<int> failures(4, 0);
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&pool, &failures, t] {
      for (int i = 0; i < 200; ++i) {
        BufferPool::Lease lease = pool.Take(4096);
        std::fill(lease.data(), lease.data() + lease.size(), static_cast<std::uint8_t>(t));
        for (std::size_t j = 0; j < lease.size(); ++j) {
          if (lease.data()[j] != t) ++failures[static_cast<std::size_t>(t)];
        }
      }
    });
  }
  for (auto& thread : threads) thread.join();
  for (int f : failures) EXPECT_EQ(f, 0);
  EXPECT_LE(pool.idle_count(), 4u);
}

// TakeFrom a pool lends from it; from none, the lease owns a buffer of its
// own that goes nowhere when it ends.
TEST(BufferPoolTest, TakeFromNoPoolLendsABufferOfItsOwn) {
  {
    BufferPool::Lease own = BufferPool::TakeFrom(nullptr, 1000);
    ASSERT_EQ(own.size(), 1000u);
    own.data()[999] = 7;
  }
  BufferPool pool(1 << 20);
  { BufferPool::Lease lent = BufferPool::TakeFrom(&pool, 1000); }
  EXPECT_EQ(pool.idle_count(), 1u);
}

}  // namespace
}  // namespace chunkwise::core
