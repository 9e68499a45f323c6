#include "chunkwise/core/region.h"

#include <gtest/gtest.h>

#include <random>
#include <string>

namespace chunkwise::core {
namespace {

Region Box(Coord start, Coord stop) { return Region(std::move(start), std::move(stop)); }

// A random region of `shape`, empty in some dimension now and then.
Region RandomRegion(std::mt19937_64& rng, const Shape& shape) {
  Coord start(shape.size());
  Coord stop(shape.size());
  for (std::size_t d = 0; d < shape.size(); ++d) {
    Index a = static_cast<Index>(rng() % (shape[d] + 1));
    Index b = static_cast<Index>(rng() % (shape[d] + 1));
    start[d] = std::min(a, b);
    stop[d] = std::max(a, b);
  }
  return Region(start, stop);
}

TEST(Region, BasicAccessors) {
  const Region region = Box({0, 5}, {10, 7});
  EXPECT_EQ(region.rank(), 2);
  EXPECT_EQ(region.shape(), (Shape{10, 2}));
  EXPECT_EQ(region.num_elements(), 20);
  EXPECT_FALSE(region.IsEmpty());
  EXPECT_EQ(region.ToString(), "0:10,5:7");
  EXPECT_TRUE(Box({3, 3}, {3, 9}).IsEmpty());
  EXPECT_EQ(Box({3, 3}, {3, 9}).num_elements(), 0);

  const Region scalar;
  EXPECT_EQ(scalar.rank(), 0);
  EXPECT_EQ(scalar.num_elements(), 1);
  EXPECT_FALSE(scalar.IsEmpty());
  EXPECT_EQ(scalar.ToString(), "");
  EXPECT_TRUE(scalar.Contains(Coord{}));
}

TEST(Region, FullAndFromOriginAndShape) {
  EXPECT_EQ(Region::Full(Shape{4, 0, 2}), Box({0, 0, 0}, {4, 0, 2}));
  EXPECT_EQ(Region::FromOriginAndShape(Coord{10, 20}, Shape{5, 1}), Box({10, 20}, {15, 21}));
}

TEST(Region, ContainsChecksHalfOpenBounds) {
  const Region region = Box({2, 4}, {5, 6});
  EXPECT_TRUE(region.Contains(Coord{2, 4}));
  EXPECT_TRUE(region.Contains(Coord{4, 5}));
  EXPECT_FALSE(region.Contains(Coord{5, 5}));
  EXPECT_FALSE(region.Contains(Coord{1, 5}));
  EXPECT_FALSE(region.Contains(Coord{3, 6}));
}

TEST(Region, IntersectMatchesBruteForce) {
  std::mt19937_64 rng(11);
  for (int trial = 0; trial < 500; ++trial) {
    const Shape shape{1 + static_cast<Index>(rng() % 6), 1 + static_cast<Index>(rng() % 6),
                      1 + static_cast<Index>(rng() % 6)};
    const Region a = RandomRegion(rng, shape);
    const Region b = RandomRegion(rng, shape);
    const std::optional<Region> common = a.Intersect(b);
    Index count = 0;
    Coord coord(3, 0);
    const Region full = Region::Full(shape);
    do {
      const bool in_both = a.Contains(coord) && b.Contains(coord);
      count += in_both;
      EXPECT_EQ(in_both, common.has_value() && common->Contains(coord));
    } while (AdvanceOdometer(coord, full.start(), full.stop()));
    EXPECT_EQ(common.has_value(), count > 0);
    if (common) {
      EXPECT_EQ(common->num_elements(), count);
      EXPECT_TRUE(a.Covers(*common) && b.Covers(*common));
      EXPECT_EQ(b.Intersect(a), common);
    }
  }
}

TEST(Region, Covers) {
  const Region outer = Box({0, 0}, {10, 10});
  EXPECT_TRUE(outer.Covers(Box({2, 3}, {10, 4})));
  EXPECT_FALSE(outer.Covers(Box({2, 3}, {11, 4})));
  EXPECT_TRUE(outer.Covers(Box({20, 20}, {20, 30})));  // Empty regions fit anywhere.
}

TEST(Region, TranslateAndRelativeToAreInverse) {
  const Region region = Box({5, 7}, {9, 8});
  const Coord origin{4, 7};
  EXPECT_EQ(region.RelativeTo(origin), Box({1, 0}, {5, 1}));
  EXPECT_EQ(region.RelativeTo(origin).Translate(origin), region);
}

TEST(ParseRegion, NumpyLikeSyntax) {
  const Shape shape{100, 200, 300};
  EXPECT_EQ(*ParseRegion("0:10,5:7,:", shape), Box({0, 5, 0}, {10, 7, 300}));
  EXPECT_EQ(*ParseRegion("90:,:20", shape), Box({90, 0, 0}, {100, 20, 300}));
  EXPECT_EQ(*ParseRegion("3", shape), Box({3, 0, 0}, {4, 200, 300}));
  EXPECT_EQ(*ParseRegion("-1,-20:-10,:-1", shape), Box({99, 180, 0}, {100, 190, 299}));
  EXPECT_EQ(*ParseRegion("", shape), Region::Full(shape));
  EXPECT_EQ(*ParseRegion(":,:,:", shape), Region::Full(shape));
  EXPECT_EQ(*ParseRegion(" 1 : 2 , 3 ", shape), Box({1, 3, 0}, {2, 4, 300}));
  EXPECT_EQ(*ParseRegion("5:5", shape), Box({5, 0, 0}, {5, 200, 300}));  // Empty, allowed.
  EXPECT_EQ(*ParseRegion("100:", shape), Box({100, 0, 0}, {100, 200, 300}));
  EXPECT_EQ(*ParseRegion("-100:", shape), Region::Full(shape));
  EXPECT_EQ(*ParseRegion("+2:+3", shape), Box({2, 0, 0}, {3, 200, 300}));
}

TEST(ParseRegion, RankZeroAndZeroExtents) {
  EXPECT_EQ(*ParseRegion("", Shape{}), Region());
  EXPECT_FALSE(ParseRegion("0", Shape{}).ok());
  EXPECT_EQ(*ParseRegion(":", Shape{0}), Box({0}, {0}));
  EXPECT_FALSE(ParseRegion("0", Shape{0}).ok());
}

TEST(ParseRegion, ErrorsNameDimensionAndText) {
  const Shape shape{10, 20};
  struct Case {
    const char* text;
    const char* expected;
  };
  for (const Case& c : {
           Case{"0:10,25", "dimension 1 (\"25\"): index 25 is out of bounds for extent 20"},
           Case{"0:11", "dimension 0 (\"0:11\"): stop 11 is out of bounds for extent 10"},
           Case{"-11:", "dimension 0 (\"-11:\"): start -11 is out of bounds"},
           Case{"-11", "dimension 0 (\"-11\"): index -11 is out of bounds"},
           Case{"7:3", "dimension 0 (\"7:3\"): start 7 is after stop 3"},
           Case{"-1:2", "start 9 is after stop 2"},
           Case{"0:1:2", "dimension 0 (\"0:1:2\"): steps are not supported"},
           Case{"1,2,3", "more than 2 dimensions"},
           Case{"a:b", "dimension 0 (\"a:b\"): start is not an integer"},
           Case{"1:b", "stop is not an integer"},
           Case{"1,x", "dimension 1 (\"x\"): index is not an integer"},
           Case{"1,", "dimension 1 (\"\"): empty field"},
           Case{"99999999999999999999", "dimension 0"},
       }) {
    Result<Region> region = ParseRegion(c.text, shape);
    ASSERT_FALSE(region.ok()) << c.text;
    EXPECT_EQ(region.status().code(), StatusCode::kInvalidArgument);
    const std::string message(region.status().message());
    EXPECT_NE(message.find(c.expected), std::string::npos) << message;
    EXPECT_NE(message.find(std::string("\"") + c.text + "\""), std::string::npos) << message;
  }
  EXPECT_FALSE(ParseRegion(":", Shape{-1}).ok());
}

TEST(ParseRegion, RoundTripsToString) {
  std::mt19937_64 rng(12);
  for (int trial = 0; trial < 1000; ++trial) {
    Shape shape(1 + rng() % 4);
    for (Index& extent : shape) extent = static_cast<Index>(rng() % 50);
    const Region region = RandomRegion(rng, shape);
    EXPECT_EQ(*ParseRegion(region.ToString(), shape), region) << region.ToString();
  }
}

TEST(ParseRegion, NegativeBoundsMatchPositiveOnes) {
  std::mt19937_64 rng(13);
  for (int trial = 0; trial < 1000; ++trial) {
    const Index extent = 1 + static_cast<Index>(rng() % 30);
    const Index a = static_cast<Index>(rng() % extent);  // "-0:" would mean 0, not the end.
    const Index b = a + static_cast<Index>(rng() % (extent - a + 1));
    const std::string positive = std::to_string(a) + ":" + std::to_string(b);
    // "-k:0" is empty in numpy as here, so a stop at the end is written open.
    const std::string negative =
        std::to_string(a - extent) + ":" + (b == extent ? "" : std::to_string(b - extent));
    EXPECT_EQ(*ParseRegion(negative, Shape{extent}), *ParseRegion(positive, Shape{extent}));
  }
}

}  // namespace
}  // namespace chunkwise::core
