#include "parallel/job.h"

#include <gtest/gtest.h>

#include <cstdlib>

namespace chunkwise::parallel {
namespace {

TEST(JobTest, PlainRunIsOneProcess) {
  ::unsetenv("OMPI_COMM_WORLD_SIZE");
  ::unsetenv("PMI_SIZE");
  ::unsetenv("PMIX_RANK");
  Result<std::unique_ptr<core::Communicator>> job = JoinJob();
  ASSERT_TRUE(job.ok()) << job.status().ToString();
  EXPECT_EQ((*job)->rank(), 0);
  EXPECT_EQ((*job)->size(), 1);
}

TEST(JobTest, FaultHookFailsItsRankAfterTheGivenShards) {
  ::setenv("CHUNKWISE_TEST_RANK_FAULT", "1:2:fail", 1);
  EXPECT_FALSE(static_cast<bool>(ShardFaultFromEnvironment(0)));
  ShardFault fault = ShardFaultFromEnvironment(1);
  ASSERT_TRUE(static_cast<bool>(fault));
  EXPECT_TRUE(fault("s0/a.arrow").ok());
  EXPECT_TRUE(fault("s0/b.arrow").ok());
  const Status third = fault("s0/c.arrow");
  EXPECT_EQ(third.code(), StatusCode::kInternal);
  EXPECT_NE(third.message().find("s0/c.arrow: rank 1"), std::string_view::npos);
  ::setenv("CHUNKWISE_TEST_RANK_FAULT", "garbled", 1);
  EXPECT_FALSE(static_cast<bool>(ShardFaultFromEnvironment(1)));
  ::unsetenv("CHUNKWISE_TEST_RANK_FAULT");
  EXPECT_FALSE(static_cast<bool>(ShardFaultFromEnvironment(1)));
}

}  // namespace
}  // namespace chunkwise::parallel
