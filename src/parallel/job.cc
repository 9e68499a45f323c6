#include "parallel/job.h"

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

}  // namespace chunkwise::parallel
