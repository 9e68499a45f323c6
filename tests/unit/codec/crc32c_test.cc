#include "codec/crc32c.h"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

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

// Every path, forced through Crc32cExtendWith, against a bit-at-a-time
// reference written from the definition (reflected polynomial 0x82F63B78).
// A path the CPU lacks is skipped, visibly.

// The raw CRC register after feeding `byte` one bit at a time.
std::uint32_t FeedBitwise(std::uint32_t raw, std::uint8_t byte) {
  raw ^= byte;
  for (int bit = 0; bit < 8; ++bit) raw = (raw >> 1) ^ ((raw & 1) != 0 ? 0x82F63B78u : 0);
  return raw;
}

std::uint32_t BitwiseCrc32c(std::uint32_t crc, ByteView data) {
  std::uint32_t raw = ~crc;
  for (const std::uint8_t byte : data) raw = FeedBitwise(raw, byte);
  return ~raw;
}

std::string PathName(const ::testing::TestParamInfo<Crc32cPath>& info) {
  switch (info.param) {
    case Crc32cPath::kTable:
      return "Table";
    case Crc32cPath::kCrc32Instruction:
      return "Crc32Instruction";
    case Crc32cPath::kFold128:
      return "Fold128";
    case Crc32cPath::kFold512:
      return "Fold512";
  }
  return "Unknown";
}

class Crc32cPathTest : public ::testing::TestWithParam<Crc32cPath> {
 protected:
  void SetUp() override {
    if (!Crc32cPathAvailable(GetParam()))
      GTEST_SKIP() << "this CPU lacks " << PathName({GetParam(), 0});
  }
  std::uint32_t Extend(std::uint32_t crc, ByteView data) const {
    return Crc32cExtendWith(GetParam(), crc, data);
  }
};

TEST_P(Crc32cPathTest, CheckValue) {
  EXPECT_EQ(Extend(0, AsBytes("123456789")), 0xE3069283u);
  EXPECT_EQ(Extend(0, ByteView()), 0u);
  EXPECT_EQ(Extend(0xE3069283u, ByteView()), 0xE3069283u);
}

TEST_P(Crc32cPathTest, MatchesBitwiseForEveryLengthUpTo1024AtEveryAlignment) {
  // Start offsets 0..63 put the input at every position within a cache line,
  // so the 512-bit path's alignment head takes every length.
  constexpr std::size_t kMaxLength = 1024;
  const Bytes data = testing::RandomBytes(kMaxLength + 64, 11);
  for (std::size_t offset = 0; offset < 64; ++offset) {
    std::uint32_t raw = 0xFFFFFFFFu;  // bitwise register of the first `length` bytes
    for (std::size_t length = 0; length <= kMaxLength; ++length) {
      const ByteView view(data.data() + offset, length);
      ASSERT_EQ(Extend(0, view), ~raw) << "length " << length << " offset " << offset;
      raw = FeedBitwise(raw, data[offset + length]);
    }
  }
}

TEST_P(Crc32cPathTest, MatchesBitwiseOnMebibytes) {
  const Bytes data = testing::RandomBytes((5 << 20) + 77, 12);
  for (std::size_t offset : {0u, 1u, 33u}) {
    const ByteView view(data.data() + offset, data.size() - offset);
    EXPECT_EQ(Extend(0, view), BitwiseCrc32c(0, view)) << "offset " << offset;
  }
  // Every byte a run of equal values, so an error in one lane cannot cancel
  // against the random data of another.
  const Bytes constant((3 << 20) + 5, 0xA5);
  EXPECT_EQ(Extend(0, constant), BitwiseCrc32c(0, constant));
}

TEST_P(Crc32cPathTest, ExtendsANonZeroCrcToTheCrcOfTheConcatenation) {
  const Bytes data = testing::RandomBytes(70'000, 13);
  const std::uint32_t whole = BitwiseCrc32c(0, data);
  for (std::size_t split : {1u, 4u, 15u, 63u, 64u, 255u, 256u, 383u, 384u, 1000u, 4096u, 69'999u}) {
    const ByteView head(data.data(), split), tail(data.data() + split, data.size() - split);
    const std::uint32_t head_crc = BitwiseCrc32c(0, head);
    ASSERT_NE(head_crc, 0u);
    EXPECT_EQ(Extend(head_crc, tail), whole) << "split " << split;
  }
  // Three pieces, each of a length the folding handles.
  std::uint32_t crc = 0;
  for (const auto& [begin, end] : std::vector<std::pair<std::size_t, std::size_t>>{
           {0, 1'000}, {1'000, 33'333}, {33'333, 70'000}}) {
    crc = Extend(crc, ByteView(data.data() + begin, end - begin));
  }
  EXPECT_EQ(crc, whole);
}

INSTANTIATE_TEST_SUITE_P(EveryPath, Crc32cPathTest,
                         ::testing::Values(Crc32cPath::kTable, Crc32cPath::kCrc32Instruction,
                                           Crc32cPath::kFold128, Crc32cPath::kFold512),
                         PathName);

TEST(Crc32c, DispatchMatchesBitwiseAroundTheFoldingThreshold) {
  const Bytes data = testing::RandomBytes(2048 + 64, 14);
  for (std::size_t offset : {0u, 5u, 63u}) {
    for (std::size_t length = 300; length < 2048; ++length) {
      const ByteView view(data.data() + offset, length);
      ASSERT_EQ(Crc32c(view), BitwiseCrc32c(0, view)) << length << " at " << offset;
    }
  }
}

TEST(Crc32c, TableAndCrc32InstructionPathsAreAvailableAsTheCpuSays) {
  EXPECT_TRUE(Crc32cPathAvailable(Crc32cPath::kTable));
#if defined(__x86_64__)
  __builtin_cpu_init();
  EXPECT_EQ(Crc32cPathAvailable(Crc32cPath::kCrc32Instruction),
            __builtin_cpu_supports("sse4.2") != 0);
  EXPECT_EQ(Crc32cHardwareAvailable(), __builtin_cpu_supports("sse4.2") != 0);
  if (Crc32cPathAvailable(Crc32cPath::kFold128)) {
    EXPECT_NE(__builtin_cpu_supports("pclmul"), 0);
  }
  if (Crc32cPathAvailable(Crc32cPath::kFold512)) {
    EXPECT_NE(__builtin_cpu_supports("avx512f"), 0);
    EXPECT_NE(__builtin_cpu_supports("vpclmulqdq"), 0);
  }
#endif
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
