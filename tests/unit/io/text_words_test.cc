#include "chunkwise/io/text_words.h"

#include <gtest/gtest.h>

#include <string_view>
#include <vector>

namespace chunkwise::io {
namespace {

using Words = std::vector<std::string_view>;

TEST(SplitWords, BlanksAreSpacesTabsAndCarriageReturns) {
  EXPECT_EQ(SplitWords("v 1.5\t-2  3\r"), (Words{"v", "1.5", "-2", "3"}));
  EXPECT_EQ(SplitWords("  \t\r"), Words{});
  EXPECT_EQ(SplitWords(""), Words{});
  EXPECT_EQ(SplitWords("f 1/2/3 4//5"), (Words{"f", "1/2/3", "4//5"}));
}

}  // namespace
}  // namespace chunkwise::io
