#include "parallel/mpi_world.h"

#ifdef CHUNKWISE_HAVE_MPI
#include <mpi.h>
#endif

#include <climits>
#include <numeric>
#include <string>
#include <vector>

namespace chunkwise::parallel::detail {

#ifndef CHUNKWISE_HAVE_MPI

const bool kMpiBuilt = false;

Result<std::unique_ptr<core::Communicator>> StartMpiWorld() {
  return Status::Internal("chunkwise was built without MPI");
}

#else

const bool kMpiBuilt = true;

namespace {

Status MpiError(const char* call, int code) {
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  MPI_Error_string(code, text, &length);
  return Status::Internal(std::string(call) + " failed: " + std::string(text, length));
}

#define CHUNKWISE_MPI_CALL(call, ...)                                      \
  do {                                                                     \
    if (const int mpi_code = call(__VA_ARGS__); mpi_code != MPI_SUCCESS) { \
      return MpiError(#call, mpi_code);                                    \
    }                                                                      \
  } while (false)

// Only the thread that made the world calls MPI (the pipelines' threads never do).
class MpiWorld final : public core::Communicator {
 public:
  MpiWorld(int rank, int size) : rank_(rank), size_(size) {}
  ~MpiWorld() override { MPI_Finalize(); }

  int rank() const override { return rank_; }
  int size() const override { return size_; }

  Status Barrier() override {
    CHUNKWISE_MPI_CALL(MPI_Barrier, MPI_COMM_WORLD);
    return Status::Ok();
  }

  Result<std::vector<std::string>> Gather(std::string_view value) override {
    if (value.size() > INT_MAX) return Status::InvalidArgument("gathered value over 2 GiB");
    int length = static_cast<int>(value.size());
    std::vector<int> lengths(rank_ == 0 ? size_ : 0);
    CHUNKWISE_MPI_CALL(MPI_Gather, &length, 1, MPI_INT, lengths.data(), 1, MPI_INT, 0,
                       MPI_COMM_WORLD);
    std::vector<int> offsets(lengths.size());
    std::exclusive_scan(lengths.begin(), lengths.end(), offsets.begin(), 0);
    std::string all(rank_ == 0 ? std::accumulate(lengths.begin(), lengths.end(), 0LL) : 0, '\0');
    CHUNKWISE_MPI_CALL(MPI_Gatherv, value.data(), length, MPI_CHAR, all.data(), lengths.data(),
                       offsets.data(), MPI_CHAR, 0, MPI_COMM_WORLD);
    std::vector<std::string> values;
    for (std::size_t r = 0; r < lengths.size(); ++r)
      values.push_back(all.substr(offsets[r], lengths[r]));
    return values;
  }

  Result<std::string> Broadcast(std::string_view value) override {
    if (value.size() > INT_MAX) return Status::InvalidArgument("broadcast value over 2 GiB");
    int length = static_cast<int>(value.size());
    CHUNKWISE_MPI_CALL(MPI_Bcast, &length, 1, MPI_INT, 0, MPI_COMM_WORLD);
    std::string shared = rank_ == 0 ? std::string(value) : std::string(length, '\0');
    CHUNKWISE_MPI_CALL(MPI_Bcast, shared.data(), length, MPI_CHAR, 0, MPI_COMM_WORLD);
    return shared;
  }

 private:
  int rank_;
  int size_;
};

}  // namespace

Result<std::unique_ptr<core::Communicator>> StartMpiWorld() {
  int provided = 0;
  CHUNKWISE_MPI_CALL(MPI_Init_thread, nullptr, nullptr, MPI_THREAD_FUNNELED, &provided);
  // Errors come back as codes, turned into Status, instead of aborting the job.
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  int rank = 0;
  int size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  return std::unique_ptr<core::Communicator>(new MpiWorld(rank, size));
}

#endif

}  // namespace chunkwise::parallel::detail
