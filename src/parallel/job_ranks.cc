// The facade's door to the job's ranks (facade/job_ranks.h), defined here
// so that only programs linking chunkwise_parallel (and MPI) can call it.
#include "chunkwise/facade/job_ranks.h"

#include "parallel/job.h"

namespace chunkwise {

Result<std::unique_ptr<Communicator>> JoinJobRanks() { return parallel::JoinJob(); }

RankFault RankFaultFromEnvironment(int rank) { return parallel::ShardFaultFromEnvironment(rank); }

}  // namespace chunkwise
