#include <gtest/gtest.h>

#include <random>

#include "formats/parquet/encodings.h"

namespace chunkwise::formats::parquet {
namespace {

std::vector<std::uint32_t> Decode(const Bytes& data, int width, std::size_t count) {
  std::vector<std::uint32_t> out(count);
  const Status status = DecodeHybrid(data, width, out, "test");
  EXPECT_TRUE(status.ok()) << status.ToString();
  return out;
}

TEST(ParquetHybrid, RoundTripsEveryWidth) {
  std::mt19937 random(7);
  for (int width = 0; width <= 32; ++width) {
    const std::uint64_t limit = width == 32 ? 0xFFFFFFFFull : (1ull << width) - 1;
    std::vector<std::uint32_t> values;
    for (int i = 0; i < 1000; ++i) {
      // Mix literal stretches and long runs.
      const std::uint32_t value = static_cast<std::uint32_t>(random() & limit);
      const int repeat = (i % 7 == 0) ? 20 : 1;
      for (int r = 0; r < repeat; ++r) values.push_back(value);
    }
    Bytes encoded;
    AppendHybrid(values, width, encoded);
    EXPECT_EQ(Decode(encoded, width, values.size()), values) << "width " << width;
  }
}

TEST(ParquetHybrid, DecodesSpecExamples) {
  // RLE run: 5 copies of 1 at width 1 -> header 10, value byte 1.
  EXPECT_EQ(Decode({10, 1}, 1, 5), (std::vector<std::uint32_t>{1, 1, 1, 1, 1}));
  // Bit-packed: one group of 8 values 0..7 at width 3 (Encodings.md example).
  EXPECT_EQ(Decode({3, 0x88, 0xC6, 0xFA}, 3, 8),
            (std::vector<std::uint32_t>{0, 1, 2, 3, 4, 5, 6, 7}));
  // Values past the count are padding.
  EXPECT_EQ(Decode({3, 0x88, 0xC6, 0xFA}, 3, 3), (std::vector<std::uint32_t>{0, 1, 2}));
}

TEST(ParquetHybrid, RejectsShortAndWideInput) {
  std::vector<std::uint32_t> out(16);
  EXPECT_FALSE(DecodeHybrid(Bytes{3, 0x88}, 3, out, "t").ok());  // truncated bit-packed group
  EXPECT_FALSE(DecodeHybrid(Bytes{40}, 8, out, "t").ok());       // RLE run without its value
  EXPECT_FALSE(DecodeHybrid(Bytes{10, 1}, 1, out, "t").ok());    // too few values
  EXPECT_FALSE(DecodeHybrid(Bytes{10, 2}, 1, out, "t").ok());    // value wider than width
  EXPECT_FALSE(DecodeHybrid(Bytes{10, 1}, 33, out, "t").ok());   // width > 32
}

TEST(ParquetPlain, IntegersAndByteArrays) {
  Bytes out;
  const std::vector<std::int64_t> values = {0, -1, 1LL << 40, 5};
  AppendPlainIntegers(values, PhysicalType::kInt64, out);
  EXPECT_EQ(out.size(), 32u);
  std::vector<std::int64_t> back;
  ASSERT_TRUE(DecodePlainIntegers(out, PhysicalType::kInt64, 4, back, "t").ok());
  EXPECT_EQ(back, values);
  back.clear();
  EXPECT_FALSE(DecodePlainIntegers(out, PhysicalType::kInt64, 5, back, "t").ok());

  Bytes int32s;
  AppendPlainIntegers(std::vector<std::int64_t>{-7, 9}, PhysicalType::kInt32, int32s);
  back.clear();
  ASSERT_TRUE(DecodePlainIntegers(int32s, PhysicalType::kInt32, 2, back, "t").ok());
  EXPECT_EQ(back, (std::vector<std::int64_t>{-7, 9}));

  Bytes arrays;
  AppendPlainByteArray(AsBytes("ab"), arrays);
  AppendPlainByteArray(AsBytes(""), arrays);
  EXPECT_EQ(arrays, (Bytes{2, 0, 0, 0, 'a', 'b', 0, 0, 0, 0}));
  ByteArrays decoded;
  auto used = DecodePlainByteArrays(arrays, 2, decoded, "t");
  ASSERT_TRUE(used.ok());
  EXPECT_EQ(*used, arrays.size());
  EXPECT_EQ(AsChars(decoded[0]), "ab");
  EXPECT_EQ(decoded[1].size(), 0u);
  ByteArrays more;
  EXPECT_FALSE(DecodePlainByteArrays(ByteView(arrays).first(5), 1, more, "t").ok());
}

}  // namespace
}  // namespace chunkwise::formats::parquet
