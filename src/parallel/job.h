// The job a command runs in: MPI's world when chunkwise was built with MPI
// and launched by mpirun or srun, else one process (core::SingleProcess).
//
// MPI is optional at build time (CMake's find_package(MPI)); this archive,
// chunkwise_parallel, is the only code that includes mpi.h. A launch is
// recognised by the environment the launchers set (OMPI_COMM_WORLD_SIZE,
// PMIX_RANK, PMI_SIZE), so a plain run never starts MPI. A build without MPI
// launched as several processes refuses to run: each would write the whole
// output over the others.
#ifndef CHUNKWISE_PARALLEL_JOB_H_
#define CHUNKWISE_PARALLEL_JOB_H_

#include <functional>
#include <memory>
#include <string>

#include "chunkwise/core/communicator.h"

namespace chunkwise::parallel {

// The job's ranks, for the life of the returned object (MPI is finalized
// when it is destroyed; make one per process). InvalidArgument when launched
// as several processes by a build without MPI; Internal when MPI fails to start.
Result<std::unique_ptr<core::Communicator>> JoinJob();

// A test seam for failure handling. In test builds only (the binary
// chunkwise-test-faults and the unit tests, which link
// src/parallel/faults/shard_faults_from_environment.cc),
// CHUNKWISE_TEST_RANK_FAULT="<rank>:<shards>:<kill|fail>" makes rank <rank>
// finish <shards> output shards, then on the next one either SIGKILL itself
// (a lost node) or fail with Internal naming the shard's key. Returns a
// callback taking the key of the shard about to be finished, or an empty
// function when the variable is unset or names another rank. The shipped
// chunkwise links src/parallel/faults/shard_faults_off.cc: always empty.
using ShardFault = std::function<Status(const std::string& shard_key)>;
ShardFault ShardFaultFromEnvironment(int rank);

}  // namespace chunkwise::parallel

#endif  // CHUNKWISE_PARALLEL_JOB_H_
