// MPI's world as a core::Communicator; the one file that includes mpi.h is
// mpi_world.cc, built with or without MPI (CHUNKWISE_HAVE_MPI).
#ifndef CHUNKWISE_SRC_PARALLEL_MPI_WORLD_H_
#define CHUNKWISE_SRC_PARALLEL_MPI_WORLD_H_

#include <memory>

#include "chunkwise/core/communicator.h"

namespace chunkwise::parallel::detail {

extern const bool kMpiBuilt;

// Initializes MPI (main thread only calls MPI) and returns MPI_COMM_WORLD;
// finalizes it when destroyed. Internal if MPI fails or was not built.
Result<std::unique_ptr<core::Communicator>> StartMpiWorld();

}  // namespace chunkwise::parallel::detail

#endif  // CHUNKWISE_SRC_PARALLEL_MPI_WORLD_H_
