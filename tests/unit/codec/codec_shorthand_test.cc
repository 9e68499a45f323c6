#include "codec/codec_shorthand.h"

#include <gtest/gtest.h>

namespace chunkwise::codec {
namespace {

nlohmann::json Parse(std::string_view text, std::size_t typesize = 2) {
  const Result<nlohmann::json> json = ParseCodecShorthand(text, typesize);
  CHUNKWISE_CHECK(json.ok());
  return *json;
}

TEST(CodecShorthand, NoneIsEmptyList) {
  EXPECT_EQ(Parse("none"), nlohmann::json::array());
  EXPECT_EQ(Parse(""), nlohmann::json::array());
}

TEST(CodecShorthand, ZstdGzipCrc32c) {
  EXPECT_EQ(Parse("zstd"),
            nlohmann::json::parse(R"([{"name":"zstd","configuration":{"level":3}}])"));
  EXPECT_EQ(Parse("zstd:-2"),
            nlohmann::json::parse(R"([{"name":"zstd","configuration":{"level":-2}}])"));
  EXPECT_EQ(Parse("gzip"),
            nlohmann::json::parse(R"([{"name":"gzip","configuration":{"level":6}}])"));
  EXPECT_EQ(Parse("gzip:1"),
            nlohmann::json::parse(R"([{"name":"gzip","configuration":{"level":1}}])"));
  EXPECT_EQ(Parse("crc32c"), nlohmann::json::parse(R"([{"name":"crc32c"}])"));
}

TEST(CodecShorthand, NumcodecsCompressors) {
  EXPECT_EQ(Parse("zlib:5"),
            nlohmann::json::parse(R"([{"name":"numcodecs.zlib","configuration":{"level":5}}])"));
  EXPECT_EQ(Parse("lz4"),
            nlohmann::json::parse(R"([{"name":"numcodecs.lz4","configuration":{}}])"));
  EXPECT_EQ(Parse("bz2:9"),
            nlohmann::json::parse(R"([{"name":"numcodecs.bz2","configuration":{"level":9}}])"));
  EXPECT_EQ(Parse("lzma:1"),
            nlohmann::json::parse(R"([{"name":"numcodecs.lzma","configuration":{"preset":1}}])"));
  // The codec's own range check.
  EXPECT_EQ(ParseCodecShorthand("bz2:0", 2).status().code(), StatusCode::kInvalidArgument)
      << ParseCodecShorthand("bz2:0", 2).status().ToString();
  EXPECT_EQ(ParseCodecShorthand("zlib:1:2", 2).status().code(), StatusCode::kInvalidArgument)
      << ParseCodecShorthand("zlib:1:2", 2).status().ToString();
}

TEST(CodecShorthand, BloscDefaultsAndTypesize) {
  EXPECT_EQ(Parse("blosc:lz4:5:shuffle", 2), Parse("blosc:lz4", 2));
  EXPECT_EQ(Parse("blosc", 2), Parse("blosc:lz4:5", 2));
  EXPECT_EQ(Parse("blosc:zstd:3:bitshuffle", 4),
            nlohmann::json::parse(R"([{"name":"blosc","configuration":{"cname":"zstd","clevel":3,
                "shuffle":"bitshuffle","typesize":4,"blocksize":0}}])"));
}

TEST(CodecShorthand, ChainsJoinWithPlus) {
  const nlohmann::json chain = Parse("blosc:zstd:3:bitshuffle+crc32c");
  ASSERT_EQ(chain.size(), 2u);
  EXPECT_EQ(chain[0]["name"], "blosc");
  EXPECT_EQ(chain[1]["name"], "crc32c");
}

TEST(CodecShorthand, RejectsBadFormsListingAcceptedOnes) {
  for (const char* bad :
       {"lz5", "zstd:", "zstd:x", "zstd:3:4", "zstd:99", "gzip:10", "blosc:lz5", "blosc:lz4:12",
        "blosc:lz4:5:byte", "blosc:lz4:5:shuffle:0", "crc32c:1", "zstd+", "+crc32c", "None"}) {
    const Status status = ParseCodecShorthand(bad, 2).status();
    EXPECT_EQ(status.code(), StatusCode::kInvalidArgument) << bad;
    EXPECT_NE(status.message().find("accepted:"), std::string_view::npos) << status.ToString();
  }
  EXPECT_EQ(ParseCodecShorthand("blosc", 0).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(ParseCodecShorthand("blosc", 300).status().code(), StatusCode::kInvalidArgument);
}

TEST(CodecShorthand, ZstdContentChecksum) {
  EXPECT_EQ(
      Parse("zstd:5:checksum"),
      nlohmann::json::parse(R"([{"name":"zstd","configuration":{"level":5,"checksum":true}}])"));
  EXPECT_EQ(ParseCodecShorthand("zstd:5:check", 2).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(ParseCodecShorthand("gzip:5:checksum", 2).status().code(),
            StatusCode::kInvalidArgument);
}

TEST(CodecShorthand, WithChecksumAddsCrc32cOrZstdsOwn) {
  auto with = [](std::string_view text, Checksum checksum) {
    Result<std::string> out = WithChecksum(text, checksum);
    EXPECT_TRUE(out.ok()) << text << ": " << out.status().ToString();
    return out.ok() ? *out : std::string("<error>");
  };
  EXPECT_EQ(with("zstd:3", Checksum::kNone), "zstd:3");
  EXPECT_EQ(with("zstd:3", Checksum::kCrc32c), "zstd:3+crc32c");
  EXPECT_EQ(with("blosc:lz4+crc32c", Checksum::kCrc32c), "blosc:lz4+crc32c");
  EXPECT_EQ(with("none", Checksum::kCrc32c), "crc32c");
  EXPECT_EQ(with("zstd", Checksum::kZstd), "zstd:3:checksum");
  EXPECT_EQ(with("gzip:1+zstd:7", Checksum::kZstd), "gzip:1+zstd:7:checksum");
  EXPECT_EQ(Parse(with("zstd:7", Checksum::kZstd))[0]["configuration"]["checksum"], true);
  const Status no_zstd = WithChecksum("blosc:lz4", Checksum::kZstd).status();
  EXPECT_EQ(no_zstd.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(no_zstd.message().find("needs a zstd codec"), std::string_view::npos);
}

TEST(CodecShorthand, Lz4detWritesStandardLz4JsonAndChoosesTheDeterministicEncoder) {
  const Result<CodecShorthand> parsed =
      ParseCodecShorthandWithEncoders("blosc:lz4det:5:shuffle", 2);
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  EXPECT_EQ(parsed->codecs, Parse("blosc:lz4:5:shuffle"));
  EXPECT_EQ(parsed->build.blosc_encoder, BloscEncoder::kDeterministic);
  EXPECT_EQ(Parse("blosc:lz4det"), Parse("blosc:lz4"));
  EXPECT_EQ(Parse("blosc:lz4det:1:noshuffle+crc32c"), Parse("blosc:lz4:1:noshuffle+crc32c"));
  const Result<CodecShorthand> plain = ParseCodecShorthandWithEncoders("blosc:lz4", 2);
  ASSERT_TRUE(plain.ok());
  EXPECT_EQ(plain->build.blosc_encoder, BloscEncoder::kCBlosc);
}

TEST(CodecShorthand, Lz4detRefusesWhatTheDeterministicEncoderCannotWrite) {
  for (const char* text : {"blosc:lz4det:5:bitshuffle", "blosc:lz4det+blosc:zstd"}) {
    const Result<CodecShorthand> parsed = ParseCodecShorthandWithEncoders(text, 2);
    ASSERT_FALSE(parsed.ok()) << text;
    EXPECT_NE(parsed.status().message().find("deterministic encoder"), std::string::npos)
        << parsed.status().ToString();
  }
}

}  // namespace
}  // namespace chunkwise::codec
