#include "chunkwise/store/store.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdint>

#include "unit/forwarding_store.h"

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

// Clamping gives the absolute span, the way an HTTP range or a zarr-python
// RangeByteRequest is answered.
void ExpectSpan(const ByteRange& range, std::uint64_t offset, std::uint64_t length) {
  EXPECT_FALSE(range.suffix);
  EXPECT_EQ(range.offset, offset);
  EXPECT_EQ(range.length, length);
}

TEST(ByteRange, ClampKeepsRangesInsideTheValue) {
  ExpectSpan(ByteRange::Span(3, 4).ClampTo(10), 3, 4);
  ExpectSpan(ByteRange::Suffix(4).ClampTo(10), 6, 4);
}

TEST(ByteRange, ClampCutsRangesAtTheValuesEnd) {
  ExpectSpan(ByteRange::Span(8, 5).ClampTo(10), 8, 2);
  ExpectSpan(ByteRange::Span(2, UINT64_MAX).ClampTo(10), 2, 8);
  ExpectSpan(ByteRange::Span(12, 3).ClampTo(10), 10, 0);
  ExpectSpan(ByteRange::Span(UINT64_MAX, UINT64_MAX).ClampTo(10), 10, 0);
  ExpectSpan(ByteRange::Suffix(11).ClampTo(10), 0, 10);
  ExpectSpan(ByteRange::Suffix(3).ClampTo(0), 0, 0);
}

// A store that keeps Store's defaults for the conditional writes (as a new
// store would before implementing them): they say Unsupported, never write.
class PlainStore final : public test::ForwardingStore {
 public:
  Result<Generation> GetGeneration(std::string_view key) const override {
    return Store::GetGeneration(key);
  }
  Result<std::optional<VersionedValue>> GetVersioned(std::string_view key) const override {
    return Store::GetVersioned(key);
  }
  Result<Generation> SetPartsIf(std::string_view key, std::span<const ByteView> parts,
                                const Generation& expected) override {
    return Store::SetPartsIf(key, parts, expected);
  }
  Status EraseIf(std::string_view key, const Generation& expected) override {
    return Store::EraseIf(key, expected);
  }
  StoreCapabilities capabilities() const override {
    StoreCapabilities capabilities = inner().capabilities();
    capabilities.conditional_writes = false;
    return capabilities;
  }
};

TEST(Store, ConditionalWritesWithoutSupportAreUnsupported) {
  PlainStore store;
  ASSERT_TRUE(store.Set("k", AsBytes(std::string_view("v"))).ok());
  const Result<Generation> written = store.SetIf("k", AsBytes(std::string_view("x")), Generation());
  EXPECT_EQ(written.status().code(), StatusCode::kUnsupported);
  EXPECT_NE(written.status().message().find("memory:k"), std::string_view::npos);
  EXPECT_EQ(store.CreateIfAbsent("new", AsBytes(std::string_view("x"))).status().code(),
            StatusCode::kUnsupported);
  EXPECT_EQ(store.EraseIf("k", Generation()).code(), StatusCode::kUnsupported);
  EXPECT_EQ(store.GetGeneration("k").status().code(), StatusCode::kUnsupported);
  // The default GetVersioned needs a pinned reader that knows its generation.
  EXPECT_EQ(store.GetVersioned("k").status().code(), StatusCode::kUnsupported);
  EXPECT_EQ(*store.inner().Get("k"), Bytes{'v'});
  EXPECT_EQ(*store.inner().Get("new"), std::nullopt);
}

}  // namespace
}  // namespace chunkwise::store
