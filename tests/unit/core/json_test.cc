// ParseJson: the nesting limit every JSON reader goes through.
#include "core/json.h"

#include <gtest/gtest.h>

#include <string>

namespace chunkwise::core {
namespace {

std::string NestedArrays(int depth) { return std::string(depth, '[') + std::string(depth, ']'); }

std::string NestedObjects(int depth) {
  std::string text;
  for (int i = 0; i < depth; ++i) text += "{\"a\":";
  return text + "1" + std::string(depth, '}');
}

TEST(ParseJson, AcceptsDocumentsUpToTheLimit) {
  for (const std::string& text : {NestedArrays(kMaxJsonDepth), NestedObjects(kMaxJsonDepth)}) {
    Result<nlohmann::json> json = ParseJson(text, "doc");
    ASSERT_TRUE(json.ok()) << json.status().ToString();
    EXPECT_EQ(json->dump(), text);  // Copying and printing it is safe.
  }
  Result<nlohmann::ordered_json> ordered = ParseOrderedJson(R"({"b": 1, "a": 2})", "doc");
  ASSERT_TRUE(ordered.ok());
  EXPECT_EQ(ordered->dump(), R"({"b":1,"a":2})");
}

TEST(ParseJson, RefusesDeeperDocumentsNamingThem) {
  for (const std::string& text : {NestedArrays(kMaxJsonDepth + 1), NestedObjects(kMaxJsonDepth + 1),
                                  NestedArrays(1'000'000), NestedObjects(200'000)}) {
    Result<nlohmann::json> json = ParseJson(text, "zarr.json");
    EXPECT_EQ(json.status().code(), StatusCode::kInvalidArgument);
    EXPECT_NE(json.status().message().find("zarr.json"), std::string_view::npos);
    EXPECT_NE(json.status().message().find("nested deeper"), std::string_view::npos);
  }
  EXPECT_EQ(ParseOrderedJson(NestedArrays(1'000'000), "gen").status().code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(ParseJson(NestedArrays(1'000'000), "meta", StatusCode::kCorruption).status().code(),
            StatusCode::kCorruption);
}

TEST(ParseJson, RefusesTextThatIsNotJson) {
  for (const char* text : {"", "{", "[1,]", "nul", "{\"a\" 1}"}) {
    Result<nlohmann::json> json = ParseJson(text, "spec.json");
    EXPECT_EQ(json.status().code(), StatusCode::kInvalidArgument) << text;
    EXPECT_NE(json.status().message().find("spec.json: not valid JSON"), std::string_view::npos);
  }
}

}  // namespace
}  // namespace chunkwise::core
