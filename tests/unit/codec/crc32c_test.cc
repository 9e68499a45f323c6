#include "codec/crc32c.h"

#include <gtest/gtest.h>

#include <random>
#include <string>

#include "codec/crc32c_codec.h"
#include "unit/codec/codec_test_data.h"

namespace chunkwise::codec {
namespace {

Bytes Filled(std::size_t size, std::uint8_t first, int step) {
  Bytes bytes(size);
  for (std::size_t i = 0; i < size; ++i)
    bytes[i] = static_cast<std::uint8_t>(first + step * static_cast<int>(i));
  return bytes;
}

TEST(Crc32c, CheckValue) {
  EXPECT_EQ(Crc32c(AsBytes("123456789")), 0xE3069283u);
  EXPECT_EQ(Crc32cSoftware(0, AsBytes("123456789")), 0xE3069283u);
  EXPECT_EQ(Crc32c(ByteView()), 0u);
}

TEST(Crc32c, Rfc3720Vectors) {
  // RFC 3720 appendix B.4.
  EXPECT_EQ(Crc32c(Bytes(32, 0x00)), 0x8A9136AAu);
  EXPECT_EQ(Crc32c(Bytes(32, 0xFF)), 0x62A8AB43u);
  EXPECT_EQ(Crc32c(Filled(32, 0, 1)), 0x46DD794Eu);
  EXPECT_EQ(Crc32c(Filled(32, 31, -1)), 0x113FDB5Cu);
  EXPECT_EQ(Crc32c(AsBytes("The quick brown fox jumps over the lazy dog")), 0x22620404u);
}

TEST(Crc32c, HardwareMatchesSoftwareOnRandomLengthsAndAlignments) {
  const Bytes data = testing::RandomBytes(200'000);
  std::mt19937 random(42);
  for (int trial = 0; trial < 3000; ++trial) {
    const std::size_t offset = random() % 64;
    const std::size_t length = random() % 10'001;
    const ByteView view(data.data() + offset, length);
    ASSERT_EQ(Crc32c(view), Crc32cSoftware(0, view)) << "length " << length << " offset " << offset;
  }
}

TEST(Crc32c, HardwareMatchesSoftwareAroundBlockBoundaries) {
  // The hardware path switches between 3×4096, 3×256, 8-byte and 1-byte steps.
  const Bytes data = testing::RandomBytes(100'000, 3);
  for (std::size_t base : {0u, 767u, 768u, 12'287u, 12'288u, 24'576u, 99'000u}) {
    for (std::size_t delta = 0; delta < 17; ++delta) {
      for (std::size_t offset = 0; offset < 9; ++offset) {
        const std::size_t length = std::min(base + delta, data.size() - offset);
        const ByteView view(data.data() + offset, length);
        ASSERT_EQ(Crc32c(view), Crc32cSoftware(0, view)) << length << " at " << offset;
      }
    }
  }
}

TEST(Crc32c, ExtendEqualsCrcOfConcatenation) {
  const Bytes data = testing::RandomBytes(40'000, 5);
  const std::uint32_t whole = Crc32c(data);
  for (std::size_t split : {0u, 1u, 7u, 100u, 12'288u, 20'001u, 40'000u}) {
    const ByteView head(data.data(), split), tail(data.data() + split, data.size() - split);
    EXPECT_EQ(Crc32cExtend(Crc32c(head), tail), whole) << split;
    EXPECT_EQ(Crc32cSoftware(Crc32cSoftware(0, head), tail), whole) << split;
  }
}

TEST(Crc32cCodec, EncodeAppendsLittleEndianCrc) {
  const auto codec = Crc32cCodec::Create();
  const Result<Bytes> encoded = codec->Encode(AsBytes("123456789"));
  ASSERT_TRUE(encoded.ok());
  ASSERT_EQ(encoded->size(), 13u);
  EXPECT_EQ(AsChars(ByteView(*encoded).first(9)), "123456789");
  EXPECT_EQ((*encoded)[9], 0x83);
  EXPECT_EQ((*encoded)[10], 0x92);
  EXPECT_EQ((*encoded)[11], 0x06);
  EXPECT_EQ((*encoded)[12], 0xE3);
}

TEST(Crc32cCodec, RoundTrip) {
  const auto codec = Crc32cCodec::Create();
  for (std::size_t size : {0u, 1u, 1000u, 100'000u}) {
    const Bytes data = testing::RandomBytes(size);
    const Result<Bytes> encoded = codec->Encode(data);
    ASSERT_TRUE(encoded.ok());
    const Result<Bytes> decoded = codec->Decode(*encoded, size);
    ASSERT_TRUE(decoded.ok()) << decoded.status().ToString();
    EXPECT_EQ(*decoded, data);
  }
}

TEST(Crc32cCodec, RejectsShortTruncatedAndFlippedInput) {
  const auto codec = Crc32cCodec::Create();
  EXPECT_EQ(codec->Decode(Bytes{1, 2, 3}, 100).status().code(), StatusCode::kCorruption);
  const Bytes encoded = *codec->Encode(testing::RandomBytes(300));
  for (std::size_t size = 0; size < encoded.size(); ++size) {
    EXPECT_EQ(codec->Decode(ByteView(encoded).first(size), 1000).status().code(),
              StatusCode::kCorruption)
        << size;
  }
  for (std::size_t i = 0; i < encoded.size(); ++i) {
    Bytes flipped = encoded;
    flipped[i] ^= 0x01;
    EXPECT_EQ(codec->Decode(flipped, 1000).status().code(), StatusCode::kCorruption) << i;
  }
}

TEST(Crc32cCodec, RejectsPayloadOverLimit) {
  const auto codec = Crc32cCodec::Create();
  const Bytes encoded = *codec->Encode(Bytes(1000, 7));
  EXPECT_EQ(codec->Decode(encoded, 999).status().code(), StatusCode::kOutOfRange);
  EXPECT_TRUE(codec->Decode(encoded, 1000).ok());
}

TEST(Crc32cCodec, Json) {
  EXPECT_EQ(Crc32cCodec::Create()->ToJson(), nlohmann::json::parse(R"({"name": "crc32c"})"));
  EXPECT_TRUE(Crc32cCodec::FromJson(nlohmann::json::object()).ok());
  EXPECT_TRUE(Crc32cCodec::FromJson(nullptr).ok());
  EXPECT_EQ(Crc32cCodec::FromJson({{"seed", 1}}).status().code(), StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace chunkwise::codec
