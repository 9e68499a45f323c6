// The range coalescing planner (src/store/range_coalescing.h): which ranges
// of one value join into one request under RangeCoalescing's limits.
#include "store/range_coalescing.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <vector>

namespace chunkwise::store {
namespace {

using ::testing::ElementsAre;

// Limits of `max_gap`, a bound on waste (none by default), requests up to
// `max_request` and no small gap that joins whatever the waste.
RangeCoalescing Gap(std::uint64_t max_gap, double max_waste = 1.0,
                    std::uint64_t max_request = 1 << 20) {
  return {max_gap, max_waste, max_request, 0};
}

TEST(RangeCoalescing, NoRangesPlanNoRequests) {
  EXPECT_TRUE(CoalesceRanges({}, RangeCoalescing{}).empty());
  EXPECT_TRUE(CoalesceRanges({}, RangeCoalescing::Off()).empty());
}

TEST(RangeCoalescing, OneRangeIsOneRequest) {
  const ByteRange one[] = {ByteRange::Span(7, 3)};
  const std::vector<CoalescedRange> groups = CoalesceRanges(one, RangeCoalescing{});
  ASSERT_EQ(groups.size(), 1u);
  EXPECT_EQ(groups[0].offset, 7u);
  EXPECT_EQ(groups[0].length, 3u);
  EXPECT_THAT(groups[0].members, ElementsAre(0));
}

TEST(RangeCoalescing, AdjacentRangesJoinWithNoGapAllowedAndKeepTheirOrderByOffset) {
  // Given out of order; members list them by offset.
  const ByteRange ranges[] = {ByteRange::Span(20, 10), ByteRange::Span(0, 10),
                              ByteRange::Span(10, 10)};
  const std::vector<CoalescedRange> groups = CoalesceRanges(ranges, Gap(0, 0.0));
  ASSERT_EQ(groups.size(), 1u);
  EXPECT_EQ(groups[0].offset, 0u);
  EXPECT_EQ(groups[0].length, 30u);
  EXPECT_THAT(groups[0].members, ElementsAre(1, 2, 0));
}

TEST(RangeCoalescing, OverlappingAndRepeatedRangesShareOneRequestWithoutCountingAsWaste) {
  const ByteRange ranges[] = {ByteRange::Span(0, 10), ByteRange::Span(5, 10),
                              ByteRange::Span(5, 10), ByteRange::Span(2, 3)};
  // No waste allowed: the overlap is bytes a range needs, not waste.
  const std::vector<CoalescedRange> groups = CoalesceRanges(ranges, Gap(0, 0.0));
  ASSERT_EQ(groups.size(), 1u);
  EXPECT_EQ(groups[0].offset, 0u);
  EXPECT_EQ(groups[0].length, 15u);
  EXPECT_THAT(groups[0].members, ElementsAre(0, 3, 1, 2));
}

TEST(RangeCoalescing, AGapJoinsUpToTheThresholdAndNotOneBytePast) {
  const ByteRange at_limit[] = {ByteRange::Span(0, 100), ByteRange::Span(150, 100)};  // Gap 50.
  EXPECT_EQ(CoalesceRanges(at_limit, Gap(50)).size(), 1u);
  EXPECT_EQ(CoalesceRanges(at_limit, Gap(51)).size(), 1u);
  const std::vector<CoalescedRange> split = CoalesceRanges(at_limit, Gap(49));
  ASSERT_EQ(split.size(), 2u);
  EXPECT_EQ(split[0].offset, 0u);
  EXPECT_EQ(split[0].length, 100u);
  EXPECT_EQ(split[1].offset, 150u);
  EXPECT_EQ(split[1].length, 100u);
}

TEST(RangeCoalescing, WasteJoinsUpToItsFractionAndNotPast) {
  // Two ranges of 100 with a gap of 100: a request of 300 bytes, a third unneeded.
  const ByteRange ranges[] = {ByteRange::Span(0, 100), ByteRange::Span(200, 100)};
  EXPECT_EQ(CoalesceRanges(ranges, Gap(1000, 1.0 / 3.0 + 1e-9)).size(), 1u);
  EXPECT_EQ(CoalesceRanges(ranges, Gap(1000, 0.34)).size(), 1u);
  EXPECT_EQ(CoalesceRanges(ranges, Gap(1000, 0.33)).size(), 2u);
}

TEST(RangeCoalescing, WasteCountsTheWholeRequestNotTheLastGapAlone) {
  // 0+100, gap 100, 200+100 (waste 1/3), gap 100, 400+100: waste 2/5 if joined.
  const ByteRange ranges[] = {ByteRange::Span(0, 100), ByteRange::Span(200, 100),
                              ByteRange::Span(400, 100)};
  const std::vector<CoalescedRange> groups = CoalesceRanges(ranges, Gap(1000, 0.35));
  ASSERT_EQ(groups.size(), 2u);
  EXPECT_EQ(groups[0].length, 300u);
  EXPECT_THAT(groups[1].members, ElementsAre(2));
  EXPECT_EQ(CoalesceRanges(ranges, Gap(1000, 0.4)).size(), 1u);
}

TEST(RangeCoalescing, ASmallGapJoinsWhateverTheWasteButNotPastTheCaps) {
  // 100 bytes every 5,000: mostly waste, yet cheaper read than asked for again.
  std::vector<ByteRange> ranges;
  for (std::uint64_t i = 0; i < 10; ++i) ranges.push_back(ByteRange::Span(i * 5000, 100));
  RangeCoalescing limits = Gap(1 << 20, 0.5);
  limits.small_gap = 4900;
  EXPECT_EQ(CoalesceRanges(ranges, limits).size(), 1u);
  limits.small_gap = 4899;  // One byte short: the waste rule decides, and refuses.
  EXPECT_EQ(CoalesceRanges(ranges, limits).size(), 10u);
  limits.small_gap = 4900;
  limits.max_gap = 4899;  // max_gap still bounds it.
  EXPECT_EQ(CoalesceRanges(ranges, limits).size(), 10u);
  limits.max_gap = 1 << 20;
  limits.max_request = 10000;  // And so does the size cap: two ranges a request.
  EXPECT_EQ(CoalesceRanges(ranges, limits).size(), 5u);
}

TEST(RangeCoalescing, ARequestStopsAtTheSizeCapAndALongerRangeStandsAlone) {
  const ByteRange ranges[] = {ByteRange::Span(0, 40), ByteRange::Span(40, 40),
                              ByteRange::Span(80, 40), ByteRange::Span(120, 500),
                              ByteRange::Span(620, 10)};
  const std::vector<CoalescedRange> groups = CoalesceRanges(ranges, Gap(0, 0.0, 100));
  ASSERT_EQ(groups.size(), 4u);
  EXPECT_EQ(groups[0].length, 80u);  // A third range of 40 would make 120 > 100.
  EXPECT_THAT(groups[0].members, ElementsAre(0, 1));
  EXPECT_EQ(groups[1].offset, 80u);
  EXPECT_EQ(groups[1].length, 40u);
  EXPECT_EQ(groups[2].offset, 120u);  // 500 bytes: past the cap, alone.
  EXPECT_EQ(groups[2].length, 500u);
  EXPECT_EQ(groups[3].offset, 620u);
  // Exactly at the cap joins.
  EXPECT_EQ(CoalesceRanges(std::span(ranges, 2), Gap(0, 0.0, 80)).size(), 1u);
}

TEST(RangeCoalescing, OffMakesEveryRangeARequest) {
  const ByteRange ranges[] = {ByteRange::Span(0, 10), ByteRange::Span(10, 10),
                              ByteRange::Span(10, 10)};
  const std::vector<CoalescedRange> groups = CoalesceRanges(ranges, RangeCoalescing::Off());
  ASSERT_EQ(groups.size(), 3u);
  EXPECT_THAT(groups[2].members, ElementsAre(2));
}

TEST(RangeCoalescing, TheDefaultsJoinNearbyInnerChunksAndNotFarOnes) {
  // Inner chunks of 100 KiB: two neighbours, one two chunks on (the next row
  // of a shard's grid: past the small gap, within half waste) and one 4 MiB
  // on (past the gap).
  const std::uint64_t kib = 1024;
  const ByteRange ranges[] = {ByteRange::Span(0, 100 * kib), ByteRange::Span(100 * kib, 100 * kib),
                              ByteRange::Span(400 * kib, 100 * kib),
                              ByteRange::Span(4096 * kib, 100 * kib)};
  const std::vector<CoalescedRange> groups = CoalesceRanges(ranges, RangeCoalescing{});
  ASSERT_EQ(groups.size(), 2u);
  EXPECT_EQ(groups[0].length, 500 * kib);
  EXPECT_THAT(groups[1].members, ElementsAre(3));
  // 100-byte ranges 1,000 bytes apart: the small gap joins them.
  const ByteRange small[] = {ByteRange::Span(0, 100), ByteRange::Span(1100, 100)};
  EXPECT_EQ(CoalesceRanges(small, RangeCoalescing{}).size(), 1u);
}

}  // namespace
}  // namespace chunkwise::store
