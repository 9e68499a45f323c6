#include "codec/codec_registry.h"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include "codec/zstd_codec.h"
#include "unit/codec/codec_test_data.h"

namespace chunkwise::codec {
namespace {

// One canonical JSON per codec, as zarr-python or chunkwise would write it.
const char* const kCanonical[] = {
    R"({"name":"bytes","configuration":{"endian":"little"}})",
    R"({"name":"bytes","configuration":{"endian":"big"}})",
    R"({"name":"bytes"})",
    R"({"name":"transpose","configuration":{"order":[1,2,0]}})",
    R"({"name":"blosc","configuration":{"cname":"lz4","clevel":5,"shuffle":"shuffle","typesize":2,"blocksize":0}})",
    R"({"name":"blosc","configuration":{"cname":"zstd","clevel":9,"shuffle":"bitshuffle","typesize":4,"blocksize":65536}})",
    R"({"name":"blosc","configuration":{"cname":"zlib","clevel":0,"shuffle":"noshuffle","typesize":1,"blocksize":0}})",
    R"({"name":"zstd","configuration":{"level":3}})",
    R"({"name":"zstd","configuration":{"level":-3,"checksum":true}})",
    R"({"name":"gzip","configuration":{"level":6}})",
    R"({"name":"crc32c"})",
};

TEST(CodecRegistry, BuiltinNames) {
  EXPECT_EQ(CodecRegistry::WithBuiltins().names(),
            (std::vector<std::string>{"blosc", "bytes", "crc32c", "gzip", "numcodecs.astype",
                                      "numcodecs.bz2", "numcodecs.delta",
                                      "numcodecs.fixedscaleoffset", "numcodecs.lz4",
                                      "numcodecs.lzma", "numcodecs.packbits", "numcodecs.quantize",
                                      "numcodecs.shuffle", "numcodecs.zlib", "transpose", "zstd"}));
  EXPECT_TRUE(CodecRegistry().names().empty());
}

TEST(CodecRegistry, JsonRoundTripForEveryCodec) {
  const CodecRegistry registry = CodecRegistry::WithBuiltins();
  for (const char* text : kCanonical) {
    const nlohmann::json json = nlohmann::json::parse(text);
    const auto codec = registry.Create(json);
    ASSERT_TRUE(codec.ok()) << text << ": " << codec.status().ToString();
    EXPECT_EQ((*codec)->name(), json["name"]);
    EXPECT_EQ((*codec)->ToJson(), json) << text;
    const auto again = registry.Create((*codec)->ToJson());
    ASSERT_TRUE(again.ok());
    EXPECT_EQ((*again)->ToJson(), json);
  }
}

TEST(CodecRegistry, KindsMatchTheSpec) {
  const CodecRegistry registry = CodecRegistry::WithBuiltins();
  EXPECT_EQ((*registry.Create("bytes"))->kind(), CodecKind::kArrayToBytes);
  EXPECT_EQ((*registry.Create("crc32c"))->kind(), CodecKind::kBytesToBytes);
  EXPECT_EQ((*registry.Create(nlohmann::json::parse(kCanonical[3])))->kind(),
            CodecKind::kArrayToArray);
}

TEST(CodecRegistry, AcceptsBareNamesAndOmittedOrNullConfiguration) {
  const CodecRegistry registry = CodecRegistry::WithBuiltins();
  EXPECT_TRUE(registry.Create("crc32c").ok());
  EXPECT_TRUE(registry.Create(nlohmann::json::parse(R"({"name":"zstd"})")).ok());
  EXPECT_TRUE(
      registry.Create(nlohmann::json::parse(R"({"name":"crc32c","configuration":null})")).ok());
  EXPECT_TRUE(
      registry.Create(nlohmann::json::parse(R"({"name":"crc32c","must_understand":false})")).ok());
}

TEST(CodecRegistry, UnknownNameIsUnsupported) {
  const Status status = CodecRegistry::WithBuiltins()
                            .Create(nlohmann::json::parse(R"({"name":"numcodecs.zfpy"})"))
                            .status();
  EXPECT_EQ(status.code(), StatusCode::kUnsupported);
  EXPECT_NE(status.message().find("numcodecs.zfpy"), std::string_view::npos);
}

TEST(CodecRegistry, MalformedJsonIsInvalidArgumentNeverAThrow) {
  const CodecRegistry registry = CodecRegistry::WithBuiltins();
  for (const char* bad :
       {R"(null)", R"(42)", R"([])", R"({})", R"({"name":7})",
        R"({"name":"zstd","configuration":[1]})",
        R"({"name":"zstd","configuration":{"level":"high"}})",
        R"({"name":"zstd","configuration":{"level":1e300}})",
        R"({"name":"zstd","configuration":{"level":18446744073709551615}})",
        R"({"name":"zstd","configuration":{"levle":3}})", R"({"name":"zstd","id":"zstd"})",
        R"({"name":"transpose","configuration":{"order":[[0]]}})",
        R"({"name":"bytes","configuration":{"endian":null}})"}) {
    const Status status = registry.Create(nlohmann::json::parse(bad)).status();
    EXPECT_EQ(status.code(), StatusCode::kInvalidArgument) << bad << " " << status.ToString();
  }
}

TEST(CodecRegistry, BadFieldMessagesNameCodecAndField) {
  const Status status =
      CodecRegistry::WithBuiltins()
          .Create(nlohmann::json::parse(
              R"({"name":"blosc","configuration":{"cname":"lz4","clevel":12,"shuffle":"shuffle","typesize":2}})"))
          .status();
  EXPECT_EQ(status.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(status.message().find("blosc"), std::string_view::npos);
  EXPECT_NE(status.message().find("clevel"), std::string_view::npos);
}

TEST(CodecRegistry, RegisterAddsCodecsAndRejectsDuplicates) {
  CodecRegistry registry = CodecRegistry::WithBuiltins();
  const CodecFactory fast_zstd = [](const nlohmann::json&) -> Result<std::shared_ptr<const Codec>> {
    CHUNKWISE_ASSIGN_OR_RETURN(auto codec, ZstdCodec::Create({1, false}));
    return std::shared_ptr<const Codec>(codec);
  };
  EXPECT_TRUE(registry.Register("fast", fast_zstd).ok());
  EXPECT_EQ(registry.Register("fast", fast_zstd).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(registry.Register("zstd", fast_zstd).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(registry.Register("", fast_zstd).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(registry.Register("empty", nullptr).code(), StatusCode::kInvalidArgument);
  EXPECT_TRUE(registry.Contains("fast"));
  const auto codec = registry.Create("fast");
  ASSERT_TRUE(codec.ok());
  EXPECT_EQ((*codec)->name(), "zstd");
}

TEST(CodecRegistry, CreatedCodecsWork) {
  const CodecRegistry registry = CodecRegistry::WithBuiltins();
  const Bytes data = testing::MicroscopyLike(100'000);
  for (const char* text : kCanonical) {
    const auto codec = registry.Create(nlohmann::json::parse(text));
    ASSERT_TRUE(codec.ok());
    if ((*codec)->kind() != CodecKind::kBytesToBytes) continue;
    const auto& bytes_codec = static_cast<const BytesToBytesCodec&>(**codec);
    const Result<Bytes> encoded = bytes_codec.Encode(data);
    ASSERT_TRUE(encoded.ok()) << text;
    const Result<Bytes> decoded = bytes_codec.Decode(*encoded, data.size());
    ASSERT_TRUE(decoded.ok()) << text << " " << decoded.status().ToString();
    EXPECT_EQ(*decoded, data) << text;
  }
}

// Codecs are shared across threads; each thread has its own library contexts.
TEST(CodecRegistry, CodecsAreSafeToShareAcrossThreads) {
  const CodecRegistry registry = CodecRegistry::WithBuiltins();
  std::vector<std::shared_ptr<const Codec>> codecs;
  for (const char* text : kCanonical) {
    auto codec = registry.Create(nlohmann::json::parse(text));
    ASSERT_TRUE(codec.ok());
    if ((*codec)->kind() == CodecKind::kBytesToBytes) codecs.push_back(*codec);
  }
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int round = 0; round < 20; ++round) {
        const Bytes data = testing::MicroscopyLike(20'000 + 2 * round, t * 100 + round);
        for (const auto& codec : codecs) {
          const auto& bytes_codec = static_cast<const BytesToBytesCodec&>(*codec);
          const Result<Bytes> encoded = bytes_codec.Encode(data);
          const Result<Bytes> decoded =
              encoded.ok() ? bytes_codec.Decode(*encoded, data.size()) : encoded.status();
          if (!decoded.ok() || *decoded != data) ++failures;
        }
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(failures.load(), 0);
}

}  // namespace
}  // namespace chunkwise::codec
