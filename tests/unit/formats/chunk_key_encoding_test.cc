#include "formats/zarr/chunk_key_encoding.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace chunkwise::formats::zarr {
namespace {

using nlohmann::json;

const std::vector<core::Index> kCoord = {1, 23, 45};
const std::vector<core::Index> kRank0 = {};

TEST(ChunkKeyEncoding, DefaultSlash) {
  EXPECT_EQ(ChunkKeyEncoding::Default().Key(kCoord), "c/1/23/45");
  EXPECT_EQ(ChunkKeyEncoding::Default('/').Key(std::vector<core::Index>{0}), "c/0");
  EXPECT_EQ(ChunkKeyEncoding::Default().Key(std::vector<core::Index>{4, 3, 3, 0}), "c/4/3/3/0");
}

TEST(ChunkKeyEncoding, DefaultDot) {
  EXPECT_EQ(ChunkKeyEncoding::Default('.').Key(kCoord), "c.1.23.45");
}

TEST(ChunkKeyEncoding, V2Dot) {
  EXPECT_EQ(ChunkKeyEncoding::V2().Key(kCoord), "1.23.45");
  EXPECT_EQ(ChunkKeyEncoding::V2('.').Key(std::vector<core::Index>{7}), "7");
}

TEST(ChunkKeyEncoding, V2Slash) { EXPECT_EQ(ChunkKeyEncoding::V2('/').Key(kCoord), "1/23/45"); }

TEST(ChunkKeyEncoding, RankZero) {
  EXPECT_EQ(ChunkKeyEncoding::Default().Key(kRank0), "c");
  EXPECT_EQ(ChunkKeyEncoding::Default('.').Key(kRank0), "c");
  EXPECT_EQ(ChunkKeyEncoding::V2().Key(kRank0), "0");
  EXPECT_EQ(ChunkKeyEncoding::V2('/').Key(kRank0), "0");
}

TEST(ChunkKeyEncoding, LargeCoordinates) {
  const std::vector<core::Index> coord = {1234567890123, 0};
  EXPECT_EQ(ChunkKeyEncoding::Default().Key(coord), "c/1234567890123/0");
}

const std::vector<core::Index> kGrid = {2, 100, 1000};

TEST(ChunkKeyEncoding, ParseKeyInvertsKey) {
  for (const ChunkKeyEncoding encoding :
       {ChunkKeyEncoding::Default('/'), ChunkKeyEncoding::Default('.'), ChunkKeyEncoding::V2('.'),
        ChunkKeyEncoding::V2('/')}) {
    for (const std::vector<core::Index>& coord :
         {kCoord, std::vector<core::Index>{0, 0, 0}, std::vector<core::Index>{1, 99, 999}}) {
      const std::string key = encoding.Key(coord);
      EXPECT_EQ(encoding.ParseKey(key, kGrid), std::optional<core::Coord>(coord)) << key;
      EXPECT_TRUE(key.starts_with(encoding.KeyPrefix())) << key;
    }
    EXPECT_EQ(encoding.ParseKey(encoding.Key(kRank0), kRank0), std::optional<core::Coord>(kRank0));
  }
  const std::vector<core::Index> huge = {std::int64_t{1} << 40, 1};
  EXPECT_EQ(ChunkKeyEncoding::Default().ParseKey("c/1099511627775/0", huge),
            std::optional<core::Coord>(core::Coord{(std::int64_t{1} << 40) - 1, 0}));
}

TEST(ChunkKeyEncoding, ParseKeyRefusesWhatIsNotAChunkKeyOfTheGrid) {
  const ChunkKeyEncoding slash = ChunkKeyEncoding::Default('/');
  for (const char* key : {"zarr.json",      ".zarray",
                          ".zattrs",        ".chunkwise-incomplete",
                          "c/.1.tmp.123.0", "c",
                          "c/1/23",         "c/1/23/45/0",
                          "c/1/23/45/",     "c/1//45",
                          "c/01/23/45",     "c/+1/23/45",
                          "c/-1/23/45",     "c/1/23/4 5",
                          "c/2/0/0",        "c/0/100/0",
                          "c/0/0/1000",     "c/0/0/99999999999999999999999",
                          "c.1.23.45",      "1/23/45",
                          "d/1/23/45",      "c/1/23/45x"}) {
    EXPECT_EQ(slash.ParseKey(key, kGrid), std::nullopt) << key;
  }
  const ChunkKeyEncoding v2 = ChunkKeyEncoding::V2('.');
  for (const char* key : {".zarray", ".zattrs", "1.23", "1.23.45.", ".1.23.45", "1/23/45",
                          "c.1.23.45", "1.23.045", "2.0.0", "0..0"}) {
    EXPECT_EQ(v2.ParseKey(key, kGrid), std::nullopt) << key;
  }
  EXPECT_EQ(v2.ParseKey("c", kRank0), std::nullopt);
  EXPECT_EQ(slash.ParseKey("0", kRank0), std::nullopt);
  EXPECT_EQ(slash.ParseKey("c/0", kRank0), std::nullopt);
  // A grid with a zero extent has no chunks.
  EXPECT_EQ(slash.ParseKey("c/0", std::vector<core::Index>{0}), std::nullopt);
}

TEST(ChunkKeyEncoding, DefaultsDifferBetweenKinds) {
  Result<ChunkKeyEncoding> parsed = ChunkKeyEncoding::FromJson({{"name", "default"}});
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  EXPECT_EQ(*parsed, ChunkKeyEncoding::Default('/'));
  parsed = ChunkKeyEncoding::FromJson({{"name", "v2"}});
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  EXPECT_EQ(*parsed, ChunkKeyEncoding::V2('.'));
  parsed = ChunkKeyEncoding::FromJson({{"name", "default"}, {"configuration", json::object()}});
  ASSERT_TRUE(parsed.ok());
  EXPECT_EQ(parsed->separator, '/');
}

TEST(ChunkKeyEncoding, ParsesSeparators) {
  Result<ChunkKeyEncoding> parsed =
      ChunkKeyEncoding::FromJson({{"name", "default"}, {"configuration", {{"separator", "."}}}});
  ASSERT_TRUE(parsed.ok());
  EXPECT_EQ(*parsed, ChunkKeyEncoding::Default('.'));
  parsed = ChunkKeyEncoding::FromJson({{"name", "v2"}, {"configuration", {{"separator", "/"}}}});
  ASSERT_TRUE(parsed.ok());
  EXPECT_EQ(*parsed, ChunkKeyEncoding::V2('/'));
}

TEST(ChunkKeyEncoding, JsonRoundTrip) {
  for (const ChunkKeyEncoding encoding :
       {ChunkKeyEncoding::Default('/'), ChunkKeyEncoding::Default('.'), ChunkKeyEncoding::V2('.'),
        ChunkKeyEncoding::V2('/')}) {
    const json written = encoding.ToJson();
    const Result<ChunkKeyEncoding> parsed = ChunkKeyEncoding::FromJson(written);
    ASSERT_TRUE(parsed.ok()) << written.dump() << ": " << parsed.status().ToString();
    EXPECT_EQ(*parsed, encoding) << written.dump();
  }
  EXPECT_EQ(ChunkKeyEncoding::Default().ToJson(),
            json::parse(R"({"name": "default", "configuration": {"separator": "/"}})"));
  EXPECT_EQ(ChunkKeyEncoding::V2().ToJson(),
            json::parse(R"({"name": "v2", "configuration": {"separator": "."}})"));
}

TEST(ChunkKeyEncoding, BadJsonIsRefused) {
  const std::vector<json> bad = {
      json(nullptr),
      json("default"),
      json::array({"default"}),
      json::object(),
      {{"name", 3}},
      {{"name", "default"}, {"configuration", {{"separator", "-"}}}},
      {{"name", "default"}, {"configuration", {{"separator", "//"}}}},
      {{"name", "default"}, {"configuration", {{"separator", 1}}}},
      {{"name", "default"}, {"configuration", {{"separator", nullptr}}}},
      {{"name", "v2"}, {"configuration", "."}},
      {{"name", "default"}, {"configuration", {{"separator", "/"}, {"extra", 1}}}},
  };
  for (const json& input : bad) {
    const Result<ChunkKeyEncoding> parsed = ChunkKeyEncoding::FromJson(input);
    EXPECT_FALSE(parsed.ok()) << input.dump();
    if (!parsed.ok()) {
      EXPECT_EQ(parsed.status().code(), StatusCode::kInvalidArgument) << input.dump();
    }
  }
  const Result<ChunkKeyEncoding> unknown = ChunkKeyEncoding::FromJson({{"name", "v4"}});
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.status().code(), StatusCode::kUnsupported);
  EXPECT_NE(std::string(unknown.status().message()).find("v4"), std::string::npos);
}

}  // namespace
}  // namespace chunkwise::formats::zarr
