// The ranks of the job this process is one of (mpirun, srun): the door the
// facade gives to chunkwise_parallel without linking it.
//
// Declared here, defined in src/parallel (the archive chunkwise_parallel,
// which links MPI where it was found). The facade archive never calls these,
// so a program that does not join a job (the Python module) links no MPI; one
// that does (the CLI) links chunkwise_parallel too. Calling JoinJobRanks
// without it is a link error, not a run-time surprise.
#ifndef CHUNKWISE_FACADE_JOB_RANKS_H_
#define CHUNKWISE_FACADE_JOB_RANKS_H_

#include <functional>
#include <memory>
#include <string>

#include "chunkwise/core/communicator.h"
#include "chunkwise/core/result.h"

namespace chunkwise {

using Communicator = core::Communicator;

// The job's ranks for the life of the returned object (make one per
// process): MPI's world when launched by mpirun or srun and built with MPI,
// else this process alone. InvalidArgument when launched as several
// processes by a build without MPI; Internal when MPI fails to start. Each
// job's options take it (ExportShardsOptions::ranks, BuildReferencesOptions::
// ranks, ExportToPrecomputedOptions::ranks, …).
Result<std::unique_ptr<Communicator>> JoinJobRanks();

// A test seam of the job's failure handling (parallel/job.h): a callback given
// the key of each output unit (shard, part, box) the rank is about to finish,
// or an empty function when CHUNKWISE_TEST_RANK_FAULT names no fault for `rank`.
using RankFault = std::function<Status(const std::string& unit_key)>;
RankFault RankFaultFromEnvironment(int rank);

}  // namespace chunkwise

#endif  // CHUNKWISE_FACADE_JOB_RANKS_H_
