#include "core/region_text.h"

#include <gtest/gtest.h>

#include <string>

namespace chunkwise::core {
namespace {

Region Box(Coord start, Coord stop) { return Region(std::move(start), std::move(stop)); }

// A volume with an origin: numbers are coordinates, open ends the defaults.
TEST(ParseBox, AbsoluteCoordinatesOpenEndsFromDefaults) {
  const Region extent = Box({64, 0, -64}, {128, 128, 64});
  EXPECT_EQ(*ParseBox("", extent), extent);
  EXPECT_EQ(*ParseBox("0:10,-5:7,:", extent), Box({0, -5, -64}, {10, 7, 64}));
  EXPECT_EQ(*ParseBox("100:,:20", extent), Box({100, 0, -64}, {128, 20, 64}));
  EXPECT_EQ(*ParseBox("3", extent), Box({3, 0, -64}, {4, 128, 64}));
  EXPECT_EQ(*ParseBox("0:1000", extent), Box({0, 0, -64}, {1000, 128, 64}));  // Not clamped.
  Result<Region> backwards = ParseBox("0:1,9:3", extent);
  EXPECT_EQ(backwards.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(backwards.status().message().find("dimension 1 (\"9:3\"): start 9 is after stop 3"),
            std::string::npos)
      << backwards.status().ToString();
  EXPECT_EQ(ParseBox("0:1,0:1,0:1,0:1", extent).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(ParseBox("a:1", extent).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(ParseBox("0:1:2", extent).status().code(), StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace chunkwise::core
