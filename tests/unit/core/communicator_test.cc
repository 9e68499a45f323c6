#include "chunkwise/core/communicator.h"

#include <gtest/gtest.h>

#include <set>

namespace chunkwise::core {
namespace {

TEST(CommunicatorTest, StatusRoundTripsThroughText) {
  EXPECT_EQ(EncodeStatus(Status::Ok()), "");
  EXPECT_TRUE(DecodeStatus("").ok());
  const Status corruption = Status::Corruption("s0/0_0_0.arrow: bad footer");
  const Status decoded = DecodeStatus(EncodeStatus(corruption));
  EXPECT_EQ(decoded.code(), StatusCode::kCorruption);
  EXPECT_EQ(decoded.message(), "s0/0_0_0.arrow: bad footer");
}

// Every code travels, the last added included: a rank cancelled by its
// Context must not arrive as "does not decode".
TEST(CommunicatorTest, EveryStatusCodeRoundTrips) {
  for (const StatusCode code :
       {StatusCode::kInvalidArgument, StatusCode::kConflict, StatusCode::kCancelled}) {
    const Status decoded = DecodeStatus(EncodeStatus(Status(code, "export: cancelled")));
    EXPECT_EQ(decoded.code(), code);
    EXPECT_EQ(decoded.message(), "export: cancelled");
  }
}

// The option a status names travels too, so that rank 0 of a job gives the
// same flag hint as one process.
TEST(CommunicatorTest, FieldRoundTrips) {
  const Status refused = Status::InvalidArgument("out: exists (overwrite not requested)");
  const Status decoded = DecodeStatus(EncodeStatus(refused.WithField("overwrite")));
  EXPECT_EQ(decoded.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(decoded.field(), "overwrite");
  EXPECT_EQ(decoded.message(), "out: exists (overwrite not requested)");
  EXPECT_EQ(DecodeStatus(EncodeStatus(refused)).field(), "");
  EXPECT_EQ(DecodeStatus("1:overwrite").code(), StatusCode::kInternal);
}

TEST(CommunicatorTest, GarbledStatusIsInternal) {
  const Status decoded = DecodeStatus("99 nonsense");
  EXPECT_EQ(decoded.code(), StatusCode::kInternal);
  EXPECT_NE(decoded.message().find("99 nonsense"), std::string_view::npos);
  EXPECT_EQ(DecodeStatus("3").code(), StatusCode::kInternal);
}

TEST(CommunicatorTest, SingleProcessIsRankZeroOfOne) {
  SingleProcess alone;
  EXPECT_EQ(alone.rank(), 0);
  EXPECT_EQ(alone.size(), 1);
  EXPECT_TRUE(alone.Barrier().ok());
  EXPECT_EQ(*alone.Gather("figures"), std::vector<std::string>{"figures"});
  EXPECT_EQ(*alone.Broadcast("root"), "root");
}

TEST(CommunicatorTest, OneProcessOutcomesKeepTheirMessages) {
  SingleProcess alone;
  const Result<std::vector<std::string>> ok = GatherOutcomes(alone, std::string("{\"n\":1}"));
  ASSERT_TRUE(ok.ok());
  EXPECT_EQ(*ok, std::vector<std::string>{"{\"n\":1}"});
  const Result<std::vector<std::string>> failed =
      GatherOutcomes(alone, Status::IOError("s1/4.arrow: disk full"));
  EXPECT_EQ(failed.status().code(), StatusCode::kIOError);
  EXPECT_EQ(failed.status().message(), "s1/4.arrow: disk full");  // No "rank 0 of 1".
  EXPECT_EQ(ShareRootStatus(alone, Status::NotFound("x")).code(), StatusCode::kNotFound);
}

// Each unit has exactly one owner, and every rank gets a share.
TEST(CommunicatorTest, OwnerRankDealsEveryUnitToOneRank) {
  for (int size : {1, 2, 3, 7}) {
    std::vector<std::set<std::uint64_t>> owned(size);
    for (std::uint64_t unit = 0; unit < 100; ++unit) {
      const int owner = OwnerRank(unit, size);
      ASSERT_GE(owner, 0);
      ASSERT_LT(owner, size);
      owned[owner].insert(unit);
    }
    for (int r = 0; r < size; ++r) EXPECT_GE(owned[r].size(), 100u / size) << size;
  }
  EXPECT_EQ(OwnerRank(0xffffffffffffffffULL, 3), 0);  // 2^64 - 1 is divisible by 3.
}

}  // namespace
}  // namespace chunkwise::core
