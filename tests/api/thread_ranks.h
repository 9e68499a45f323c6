// A job's ranks as threads of one process, for tests of the split jobs
// (facade/mesh_jobs.h, facade/skeleton_jobs.h) through the facade alone.
#ifndef CHUNKWISE_TESTS_API_THREAD_RANKS_H_
#define CHUNKWISE_TESTS_API_THREAD_RANKS_H_

#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "chunkwise/chunkwise.h"

namespace chunkwise::api_test {

// The ranks of a job as threads of this process: each collective call
// waits for every rank, as MPI's do.
class ThreadRanks {
 public:
  explicit ThreadRanks(int size) : slots_(static_cast<std::size_t>(size)) {}

  class Rank final : public core::Communicator {
   public:
    Rank(ThreadRanks& job, int rank) : job_(job), rank_(rank) {}
    int rank() const override { return rank_; }
    int size() const override { return static_cast<int>(job_.slots_.size()); }
    Status Barrier() override {
      job_.Exchange(rank_, "");
      return Status::Ok();
    }
    Result<std::vector<std::string>> Gather(std::string_view value) override {
      std::vector<std::string> all = job_.Exchange(rank_, value);
      return rank_ == 0 ? all : std::vector<std::string>{};
    }
    Result<std::string> Broadcast(std::string_view value) override {
      return job_.Exchange(rank_, value)[0];
    }

   private:
    ThreadRanks& job_;
    int rank_;
  };

 private:
  void Wait() {
    std::unique_lock lock(mutex_);
    const std::uint64_t generation = generation_;
    if (++arrived_ == slots_.size()) {
      arrived_ = 0;
      ++generation_;
      changed_.notify_all();
    } else {
      changed_.wait(lock, [&] { return generation_ != generation; });
    }
  }
  std::vector<std::string> Exchange(int rank, std::string_view value) {
    {
      std::lock_guard lock(mutex_);
      slots_[static_cast<std::size_t>(rank)] = std::string(value);
    }
    Wait();
    std::vector<std::string> all;
    {
      std::lock_guard lock(mutex_);
      all = slots_;
    }
    Wait();
    return all;
  }

  std::mutex mutex_;
  std::condition_variable changed_;
  std::vector<std::string> slots_;
  std::size_t arrived_ = 0;
  std::uint64_t generation_ = 0;
};

}  // namespace chunkwise::api_test

#endif  // CHUNKWISE_TESTS_API_THREAD_RANKS_H_
