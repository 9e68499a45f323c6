#include "chunkwise/core/result.h"

#include <gtest/gtest.h>

#include <optional>
#include <string>

namespace chunkwise {
namespace {

Result<std::optional<std::string>> Lookup(bool present) {
  if (!present) return std::nullopt;
  return std::string("value");
}

Status FirstMissing(bool present, bool* reached_end) {
  CHUNKWISE_ASSIGN_OR_RETURN(const std::optional<std::string> found, Lookup(present));
  *reached_end = !found.has_value();
  return Status::Ok();
}

// `return std::nullopt;` from a Result<std::optional<T>> is an OK Result
// holding an empty optional. Once it built an empty Result whose status was
// OK: not ok(), yet no error to return.
TEST(Result, NulloptIsAnOkResultHoldingAnEmptyOptional) {
  const Result<std::optional<std::string>> absent = Lookup(false);
  ASSERT_TRUE(absent.ok());
  EXPECT_FALSE(absent->has_value());
  const Result<std::optional<std::string>> present = Lookup(true);
  ASSERT_TRUE(present.ok());
  EXPECT_EQ(**present, "value");
  bool reached_end = false;
  EXPECT_TRUE(FirstMissing(false, &reached_end).ok());
  EXPECT_TRUE(reached_end);
}

TEST(Result, AnErrorKeepsItsCodeAndMessage) {
  const Result<int> failed = Status::NotFound("a.zarr/zarr.json: no such key");
  ASSERT_FALSE(failed.ok());
  EXPECT_EQ(failed.status().code(), StatusCode::kNotFound);
  EXPECT_EQ(failed.status().message(), "a.zarr/zarr.json: no such key");
  EXPECT_EQ(failed.value_or(7), 7);
}

}  // namespace
}  // namespace chunkwise
