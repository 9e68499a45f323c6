#include "chunkwise/store/store.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdint>

namespace chunkwise::store {
namespace {

TEST(ByteRange, SpanInsideValueResolvesToItself) {
  Result<ByteRange> resolved = ByteRange::Span(3, 4).Resolve(10, "k");
  ASSERT_TRUE(resolved.ok());
  EXPECT_EQ(resolved->offset, 3u);
  EXPECT_EQ(resolved->length, 4u);
  EXPECT_FALSE(resolved->suffix);
}

TEST(ByteRange, SpanEndingAtValueEndIsAllowed) {
  EXPECT_TRUE(ByteRange::Span(10, 0).Resolve(10, "k").ok());
  EXPECT_TRUE(ByteRange::Span(0, 10).Resolve(10, "k").ok());
  EXPECT_TRUE(ByteRange::Span(0, 0).Resolve(0, "k").ok());
}

TEST(ByteRange, SuffixResolvesToTail) {
  Result<ByteRange> resolved = ByteRange::Suffix(4).Resolve(10, "k");
  ASSERT_TRUE(resolved.ok());
  EXPECT_EQ(resolved->offset, 6u);
  EXPECT_EQ(resolved->length, 4u);
  EXPECT_FALSE(resolved->suffix);
}

TEST(ByteRange, SuffixLongerThanValueIsOutOfRangeNamingKey) {
  Result<ByteRange> resolved = ByteRange::Suffix(11).Resolve(10, "c/0/0");
  ASSERT_FALSE(resolved.ok());
  EXPECT_EQ(resolved.status().code(), StatusCode::kOutOfRange);
  EXPECT_THAT(std::string(resolved.status().message()), ::testing::HasSubstr("c/0/0"));
}

TEST(ByteRange, OverflowingSpanIsOutOfRange) {
  EXPECT_EQ(ByteRange::Span(UINT64_MAX, 2).Resolve(10, "k").status().code(),
            StatusCode::kOutOfRange);
  EXPECT_EQ(ByteRange::Span(2, UINT64_MAX).Resolve(10, "k").status().code(),
            StatusCode::kOutOfRange);
  EXPECT_EQ(ByteRange::Span(UINT64_MAX, UINT64_MAX).Resolve(UINT64_MAX, "k").status().code(),
            StatusCode::kOutOfRange);
  EXPECT_TRUE(ByteRange::Span(UINT64_MAX, 0).Resolve(UINT64_MAX, "k").ok());
}

TEST(ByteRange, SpanPastEndIsOutOfRange) {
  EXPECT_EQ(ByteRange::Span(8, 3).Resolve(10, "k").status().code(), StatusCode::kOutOfRange);
  EXPECT_EQ(ByteRange::Span(11, 0).Resolve(10, "k").status().code(), StatusCode::kOutOfRange);
}

}  // namespace
}  // namespace chunkwise::store
