// The test hook behind ShardFaultFromEnvironment (chunkwise/parallel/job.h),
// linked only into test builds: the shipped chunkwise links
// shard_faults_off.cc instead and never reads the variable.
#include <atomic>
#include <csignal>
#include <cstdlib>
#include <memory>
#include <optional>
#include <string>

#include "chunkwise/core/index.h"
#include "parallel/job.h"

namespace chunkwise::parallel {

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
