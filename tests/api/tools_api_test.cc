// The facade's smaller entry points the CLI's tools stand on: byte ranges
// and files into stores, codec chains over bytes, grid reports and Morton
// codes, the demo volume. Each through chunkwise.h alone.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>

#include "api_test_support.h"
#include "chunkwise/chunkwise.h"

namespace chunkwise {
namespace {

using api_test::FreshDirectory;
using api_test::Message;
using ::testing::HasSubstr;

TEST(ToolsApi, ByteRangesAreSpansOrSuffixes) {
  auto span = ParseByteRange("4:10");
  ASSERT_TRUE(span.ok());
  EXPECT_EQ(span->offset, 4u);
  EXPECT_EQ(span->length, 6u);
  EXPECT_FALSE(span->suffix);
  auto suffix = ParseByteRange("-3");
  ASSERT_TRUE(suffix.ok());
  EXPECT_TRUE(suffix->suffix);
  EXPECT_EQ(suffix->length, 3u);
  EXPECT_EQ(ParseByteRange("9:4").status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(Message(ParseByteRange("x").status()), HasSubstr("\"x\""));
}

TEST(ToolsApi, PutFileAsKeyRefusesAnExistingKeyUnlessOverwriting) {
  const std::filesystem::path dir = FreshDirectory("put_file");
  const std::filesystem::path file = dir / "value.bin";
  std::ofstream(file) << "hello";
  Context context;
  const std::string url = (dir / "store").string();
  ASSERT_TRUE(PutFileAsKey(context, url, "a/b", file).ok());
  const Status again = PutFileAsKey(context, url, "a/b", file);
  EXPECT_EQ(again.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(Message(again), HasSubstr("overwrite not requested"));
  EXPECT_TRUE(PutFileAsKey(context, url, "a/b", file, {.overwrite = true, .fsync = true}).ok());
  auto read = ReadLocalFile(dir / "store" / "a" / "b");
  ASSERT_TRUE(read.ok()) << read.status().ToString();
  EXPECT_EQ(std::string(read->begin(), read->end()), "hello");
  EXPECT_EQ(PutFileAsKey(context, "memory://m", "k", file, {.fsync = true}).code(),
            StatusCode::kInvalidArgument);
}

TEST(ToolsApi, CodecChainsRoundTripBytes) {
  Bytes data(4096);
  for (std::size_t i = 0; i < data.size(); ++i) data[i] = static_cast<std::uint8_t>(i % 7);
  auto encoded = EncodeBytes("zstd:1+crc32c", 1, data);
  ASSERT_TRUE(encoded.ok()) << encoded.status().ToString();
  EXPECT_LT(encoded->size(), data.size());
  auto decoded = DecodeBytes("zstd:1+crc32c", 1, *encoded, data.size());
  ASSERT_TRUE(decoded.ok()) << decoded.status().ToString();
  EXPECT_EQ(*decoded, data);
  const Status over_limit = DecodeBytes("zstd:1+crc32c", 1, *encoded, 100).status();
  EXPECT_EQ(over_limit.code(), StatusCode::kOutOfRange) << over_limit.ToString();
  EXPECT_EQ(Crc32cOf(ByteView(reinterpret_cast<const std::uint8_t*>("123456789"), 9)), 0xE3069283u);
  EXPECT_THAT(CodecNames(), ::testing::Contains("zstd"));
  EXPECT_EQ(EncodeBytes("zstd:99", 1, data).status().code(), StatusCode::kInvalidArgument);
}

TEST(ToolsApi, GridReportsAndMortonCodes) {
  auto report = DescribeChunkGrid(
      {.shape = {10, 10}, .chunks = {4, 4}, .tiles_per_shard = std::nullopt, .region = "3:5,0:1"});
  ASSERT_TRUE(report.ok()) << report.status().ToString();
  EXPECT_THAT(*report, HasSubstr("chunk grid         3,3 (9 chunks)"));
  EXPECT_THAT(*report, HasSubstr("touches 2 chunks"));
  // The mCNS test vector (neuroglancer's compressed Morton code).
  auto code = CompressedMortonCode({1471, 1224, 2103}, {1470, 1223, 2102});
  ASSERT_TRUE(code.ok());
  EXPECT_EQ(*code, 0x2C16AD3FAu);
  EXPECT_EQ(DecodeCompressedMortonCode({1471, 1224, 2103}, *code).value(),
            (core::Shape{1470, 1223, 2102}));
  EXPECT_EQ(CompressedMortonCode({2, 2, 2}, {2, 0, 0}).status().code(), StatusCode::kOutOfRange);
}

TEST(ToolsApi, TheDemoVolumeIsTheSameForTheSameSeed) {
  Context context;
  auto a = GenerateDemoVolume(context, {.shape = {8, 16, 16}, .neurons = 3, .frames = true});
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  auto b = GenerateDemoVolume(context, {.shape = {8, 16, 16}, .neurons = 3});
  ASSERT_TRUE(b.ok()) << b.status().ToString();
  EXPECT_EQ(a->labels.data.size(), 8u * 16 * 16 * 8);
  EXPECT_EQ(a->labels.data, b->labels.data);
  ASSERT_TRUE(a->frames.has_value());
  EXPECT_EQ(a->frames->data.size(), 8u * 16 * 16 * 2);
  EXPECT_FALSE(b->frames.has_value());
  EXPECT_EQ(GenerateDemoVolume(context, {.shape = {8, 8}}).status().code(),
            StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace chunkwise
