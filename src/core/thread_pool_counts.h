// How much work the process's thread pools have handed to their workers.
//
// A read that should run on the calling thread alone (one the chunk cache
// answers whole, #42) wakes no worker: on a loaded machine a woken worker
// can wait longer to be scheduled than the work takes. Tests check that
// such a read leaves this count unchanged; it is not a per-pool figure, so
// they read it while no other pool is at work.
#ifndef CHUNKWISE_CORE_THREAD_POOL_COUNTS_H_
#define CHUNKWISE_CORE_THREAD_POOL_COUNTS_H_

#include <cstdint>

namespace chunkwise::core {

// The tasks every ThreadPool of this process has queued for its workers so
// far: Submit's, and the helpers a ParallelFor asks for (one per index
// after the first, at most one per worker). Work a pool runs on the calling
// thread (a ParallelFor of one index, a pool in a forked child) is not counted.
std::uint64_t TasksQueuedForWorkers();

}  // namespace chunkwise::core

#endif  // CHUNKWISE_CORE_THREAD_POOL_COUNTS_H_
