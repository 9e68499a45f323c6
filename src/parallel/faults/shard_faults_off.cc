// The shipped chunkwise's ShardFaultFromEnvironment: no fault, whatever the
// environment says. The test hook (shard_faults_from_environment.cc) is linked
// only into the test builds (tests/CMakeLists.txt: chunkwise-test-faults and
// the unit tests of src/parallel), so a stray CHUNKWISE_TEST_RANK_FAULT cannot
// kill or fail a user's job.
#include "parallel/job.h"

namespace chunkwise::parallel {

ShardFault ShardFaultFromEnvironment(int /*rank*/) { return {}; }

}  // namespace chunkwise::parallel
