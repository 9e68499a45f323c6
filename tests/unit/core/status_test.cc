#include "chunkwise/core/status.h"

#include <gtest/gtest.h>

namespace chunkwise {
namespace {

TEST(StatusTest, FieldIsEmptyUntilSet) {
  EXPECT_EQ(Status::Ok().field(), "");
  EXPECT_EQ(Status::InvalidArgument("bad").field(), "");
  EXPECT_TRUE(Status::Ok().WithField("chunk_shape").ok());
}

// The field names the caller's option for a translator; context added on the
// way up keeps it, copies carry it, and it is no part of the text.
TEST(StatusTest, FieldSurvivesContextAndCopies) {
  const Status refused = Status::InvalidArgument("the chunk shape's extents must be positive")
                             .WithField("chunk_shape");
  EXPECT_EQ(refused.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(refused.field(), "chunk_shape");
  const Status outer = refused.WithContext("out.zarr");
  EXPECT_EQ(outer.field(), "chunk_shape");
  EXPECT_EQ(outer.ToString(),
            "InvalidArgument: out.zarr: the chunk shape's extents must be positive");
  Status copy;
  copy = outer;
  EXPECT_EQ(copy.field(), "chunk_shape");
  EXPECT_EQ(copy, Status::InvalidArgument("out.zarr: the chunk shape's extents must be positive"));
}

TEST(StatusTest, ResourceExhaustedIsItsOwnCodeByName) {
  const Status refused = Status::ResourceExhausted("reading a.zarr needs 137 GB");
  EXPECT_EQ(refused.code(), StatusCode::kResourceExhausted);
  EXPECT_EQ(StatusCodeName(refused.code()), "ResourceExhausted");
  EXPECT_EQ(refused.ToString(), "ResourceExhausted: reading a.zarr needs 137 GB");
}

}  // namespace
}  // namespace chunkwise
