#include "chunkwise/parallel/job.h"

#include <atomic>
#include <csignal>
#include <cstdlib>
#include <memory>

#include "chunkwise/core/index.h"
#include "parallel/mpi_world.h"

namespace chunkwise::parallel {
namespace {

// The number of processes a launcher started, from its environment; 1 when none did.
int LaunchedProcesses() {
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE"}) {
    const char* value = std::getenv(name);
    if (value == nullptr) continue;
    const std::optional<core::Index> count = core::ParseIndex(value);
    if (count.has_value() && *count > 0) return static_cast<int>(*count);
  }
  return std::getenv("PMIX_RANK") != nullptr ? 2 : 1;  // PMIx names no size: assume a job.
}

}  // namespace

bool HaveMpi() { return detail::kMpiBuilt; }

Result<std::unique_ptr<core::Communicator>> JoinJob() {
  const int launched = LaunchedProcesses();
  if (launched <= 1) return std::unique_ptr<core::Communicator>(new core::SingleProcess());
  if (!detail::kMpiBuilt) {
    return Status::InvalidArgument(
        "launched as " + std::to_string(launched) +
        " processes (mpirun or srun), but this chunkwise was built without MPI: each process "
        "would write the whole output; rebuild with MPI (libopenmpi-dev) or run one process");
  }
  return detail::StartMpiWorld();
}

ShardFault ShardFaultFromEnvironment(int rank) {
  const char* spec = std::getenv("CHUNKWISE_TEST_RANK_FAULT");
  if (spec == nullptr) return {};
  const std::string text = spec;
  const std::size_t first = text.find(':');
  const std::size_t second = text.find(':', first == std::string::npos ? first : first + 1);
  if (first == std::string::npos || second == std::string::npos) return {};
  const std::optional<core::Index> fault_rank = core::ParseIndex(text.substr(0, first));
  const std::optional<core::Index> shards =
      core::ParseIndex(text.substr(first + 1, second - first - 1));
  const bool kill = text.substr(second + 1) == "kill";
  if (!fault_rank.has_value() || !shards.has_value() || *fault_rank != rank) return {};
  auto finished = std::make_shared<std::atomic<core::Index>>(0);
  return [finished, limit = *shards, kill, rank](const std::string& shard_key) -> Status {
    if (finished->fetch_add(1) < limit) return Status::Ok();
    if (kill) std::raise(SIGKILL);
    return Status::Internal(shard_key + ": rank " + std::to_string(rank) +
                            " fails here on purpose (CHUNKWISE_TEST_RANK_FAULT)");
  };
}

}  // namespace chunkwise::parallel
