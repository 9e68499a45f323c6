#include "chunkwise/core/index.h"

#include <gtest/gtest.h>

#include <limits>
#include <random>

namespace chunkwise::core {
namespace {

constexpr Index kMax = std::numeric_limits<Index>::max();
constexpr Index kMin = std::numeric_limits<Index>::min();

TEST(NumElements, MultipliesExtents) {
  EXPECT_EQ(*NumElements(Shape{2048, 2048}), 2048 * 2048);
  EXPECT_EQ(*NumElements(Shape{3, 0, 5}), 0);
  EXPECT_EQ(*NumElements(Shape{}), 1);  // A 0-d array has one element.
}

TEST(NumElements, RejectsNegativeAndOverflow) {
  Result<Index> negative = NumElements(Shape{4, -1});
  ASSERT_FALSE(negative.ok());
  EXPECT_EQ(negative.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(negative.status().message().find("dimension 1"), std::string_view::npos);

  Result<Index> overflow = NumElements(Shape{1 << 30, 1 << 30, 1 << 30});
  ASSERT_FALSE(overflow.ok());
  EXPECT_EQ(overflow.status().code(), StatusCode::kOutOfRange);
  EXPECT_EQ(*NumElements(Shape{kMax, 1}), kMax);
  // A zero extent does not hide a negative one.
  EXPECT_FALSE(NumElements(Shape{0, -3}).ok());
}

TEST(FormatShape, JoinsWithCommas) {
  EXPECT_EQ(FormatShape(Shape{0, 2048, 2048}), "0,2048,2048");
  EXPECT_EQ(FormatShape(Shape{7}), "7");
  EXPECT_EQ(FormatShape(Shape{}), "");
}

TEST(ParseShape, ParsesCommaSeparatedExtents) {
  EXPECT_EQ(*ParseShape("0,2048,2048"), (Shape{0, 2048, 2048}));
  EXPECT_EQ(*ParseShape(" 64 , 32,16 "), (Shape{64, 32, 16}));
  EXPECT_EQ(*ParseShape("9223372036854775807"), (Shape{kMax}));
}

TEST(ParseShape, RoundTripsFormatShape) {
  std::mt19937_64 rng(7);
  for (int trial = 0; trial < 1000; ++trial) {
    Shape shape(1 + rng() % 5);
    for (Index& extent : shape) extent = static_cast<Index>(rng() >> (1 + rng() % 63));
    EXPECT_EQ(*ParseShape(FormatShape(shape)), shape);
  }
}

TEST(ParseShape, ErrorsNameTheDimensionAndText) {
  struct Case {
    const char* text;
    const char* expected;
  };
  for (const Case& c :
       {Case{"", "expected comma-separated"}, Case{"  ", "expected"},
        Case{"4,x,5", "dimension 1 (\"x\") is not"},
        Case{"4,-5", "dimension 1 (\"-5\") is negative"}, Case{"4,,5", "dimension 1 (\"\")"},
        Case{"4,5,", "dimension 2"}, Case{"4 5", "dimension 0"}, Case{"1.5", "dimension 0"},
        Case{"9223372036854775808", "not a 64-bit integer"}}) {
    Result<Shape> shape = ParseShape(c.text);
    ASSERT_FALSE(shape.ok()) << c.text;
    EXPECT_EQ(shape.status().code(), StatusCode::kInvalidArgument);
    EXPECT_NE(shape.status().message().find(c.expected), std::string_view::npos)
        << shape.status().ToString();
    EXPECT_NE(shape.status().message().find(std::string("\"") + c.text + "\""),
              std::string_view::npos)
        << shape.status().ToString();
  }
}

TEST(ParseIndex, AcceptsTheFullRangeOnly) {
  EXPECT_EQ(ParseIndex("0"), 0);
  EXPECT_EQ(ParseIndex("-17"), -17);
  EXPECT_EQ(ParseIndex("+17"), 17);
  EXPECT_EQ(ParseIndex("9223372036854775807"), kMax);
  EXPECT_EQ(ParseIndex("-9223372036854775808"), kMin);
  EXPECT_EQ(ParseIndex("9223372036854775808"), std::nullopt);
  EXPECT_EQ(ParseIndex("-9223372036854775809"), std::nullopt);
  EXPECT_EQ(ParseIndex("99999999999999999999999"), std::nullopt);
  for (const char* bad : {"", "-", "+", "1x", " 1", "0x10", "--1", "1e3"}) {
    EXPECT_EQ(ParseIndex(bad), std::nullopt) << bad;
  }
}

TEST(CheckedArithmetic, DetectsOverflow) {
  EXPECT_EQ(CheckedMultiply(1 << 20, 1 << 20), Index{1} << 40);
  EXPECT_EQ(CheckedMultiply(kMax, 2), std::nullopt);
  EXPECT_EQ(CheckedMultiply(kMin, -1), std::nullopt);
  EXPECT_EQ(CheckedAdd(kMax, 0), kMax);
  EXPECT_EQ(CheckedAdd(kMax, 1), std::nullopt);
  EXPECT_EQ(CeilDiv(0, 7), 0);
  EXPECT_EQ(CeilDiv(14, 7), 2);
  EXPECT_EQ(CeilDiv(15, 7), 3);
  EXPECT_EQ(CeilDiv(kMax, 2), kMax / 2 + 1);
}

TEST(AdvanceOdometer, VisitsEveryCoordinateInCOrder) {
  const Coord start{1, 0, 2};
  const Coord stop{3, 2, 5};
  Coord coord = start;
  std::vector<Coord> visited;
  do {
    visited.push_back(coord);
  } while (AdvanceOdometer(coord, start, stop));
  EXPECT_EQ(coord, start);
  std::vector<Coord> expected;
  for (Index a = 1; a < 3; ++a) {
    for (Index b = 0; b < 2; ++b) {
      for (Index c = 2; c < 5; ++c) expected.push_back({a, b, c});
    }
  }
  EXPECT_EQ(visited, expected);

  Coord scalar;
  EXPECT_FALSE(AdvanceOdometer(scalar, scalar, scalar));  // Rank 0: one coordinate.
}

}  // namespace
}  // namespace chunkwise::core
