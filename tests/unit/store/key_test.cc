#include "store/key.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

namespace chunkwise::store {
namespace {

using ::testing::HasSubstr;

TEST(ValidateKey, AcceptsRelativeSlashSeparatedKeys) {
  for (const char* key : {"a", "zarr.json", "c/0/1", ".zattrs", "a/.zarray", "...", "a/..b", "x y",
                          "c.0.1", "\xc3\xa9t\xc3\xa9"}) {
    EXPECT_TRUE(ValidateKey(key).ok()) << key << ": " << ValidateKey(key).ToString();
  }
}

TEST(ValidateKey, RejectsEachBrokenRuleWithItsName) {
  const struct {
    std::string key;
    const char* rule;
  } cases[] = {
      {"", "empty"},
      {"/a", "starts with \"/\""},
      {"a//b", "empty segment"},
      {"a/", "empty segment"},
      {".", "\".\" or \"..\""},
      {"a/../b", "\".\" or \"..\""},
      {"..", "\".\" or \"..\""},
      {"a/.", "\".\" or \"..\""},
      {std::string("a\0b", 3), "NUL"},
      {"a\\b", "backslash"},
      {"a\nb", "control character"},
      {"a\x7f", "control character"},
  };
  for (const auto& c : cases) {
    const Status status = ValidateKey(c.key);
    EXPECT_EQ(status.code(), StatusCode::kInvalidArgument) << QuoteKey(c.key);
    EXPECT_THAT(std::string(status.message()), HasSubstr(c.rule)) << QuoteKey(c.key);
  }
}

TEST(ValidateKey, MessageNamesTheKey) {
  EXPECT_THAT(std::string(ValidateKey("data//chunk").message()), HasSubstr("\"data//chunk\""));
  EXPECT_THAT(std::string(ValidateKey("a\nb").message()), HasSubstr("\"a\\x0ab\""));
}

TEST(ValidatePrefix, AcceptsPartialAndDirectoryPrefixes) {
  for (const char* prefix : {"", "c", "c/", "c/0", "a/b/", ".", "..", "a/.", "a/.."}) {
    EXPECT_TRUE(ValidatePrefix(prefix).ok()) << prefix << ": " << ValidatePrefix(prefix).ToString();
  }
}

TEST(ValidatePrefix, RejectsPrefixesNoKeyCanStartWith) {
  for (const char* prefix : {"/", "/a", "a//", "./", "../", "a/../", "a\\", "\t"}) {
    EXPECT_EQ(ValidatePrefix(prefix).code(), StatusCode::kInvalidArgument) << prefix;
  }
}

TEST(QuoteKey, EscapesUnprintableBytes) {
  EXPECT_EQ(QuoteKey("a/b"), "\"a/b\"");
  EXPECT_EQ(QuoteKey(std::string("\0\"\\", 3)), "\"\\x00\\x22\\x5c\"");
}

}  // namespace
}  // namespace chunkwise::store
