#include "chunkwise/io/mapping_file.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace chunkwise::io {
namespace {

using ::testing::HasSubstr;

TEST(MappingFile, BinaryPairsAreLittleEndianU64) {
  const std::vector<LabelPair> pairs{{1, 2}, {0xffffffffffffffffULL, 0}, {7, 1ULL << 40}};
  const Bytes bytes = SerializeMappingPairs(pairs);
  ASSERT_EQ(bytes.size(), 48u);
  EXPECT_EQ(bytes[0], 1);
  EXPECT_EQ(bytes[8], 2);
  Result<std::vector<LabelPair>> parsed = ParseMappingPairs(bytes, "m.bin");
  ASSERT_TRUE(parsed.ok());
  EXPECT_EQ(*parsed, pairs);
}

TEST(MappingFile, BinaryOfWrongSizeIsCorruption) {
  const Bytes bytes(17, 0);
  Result<std::vector<LabelPair>> parsed = ParseMappingPairs(bytes, "m.bin");
  ASSERT_FALSE(parsed.ok());
  EXPECT_EQ(parsed.status().code(), StatusCode::kCorruption);
  EXPECT_THAT(std::string(parsed.status().message()), HasSubstr("m.bin"));
  EXPECT_THAT(std::string(parsed.status().message()), HasSubstr("17 bytes"));
}

TEST(MappingFile, CsvWithHeaderCommentsAndBlanks) {
  Result<std::vector<LabelPair>> parsed = ParseMappingCsv(
      "supervoxel,body\n# note\n\n10,100\r\n11 100\n12\t200\n18446744073709551615,0\n", "m.csv");
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  EXPECT_EQ(*parsed, (std::vector<LabelPair>{
                         {10, 100}, {11, 100}, {12, 200}, {18446744073709551615ULL, 0}}));
}

TEST(MappingFile, CsvBadLinesNameTheLine) {
  for (const char* text :
       {"1,2\nsv,label\n", "1,2\n3\n", "1,2,3\n", "1,-2\n", "1,99999999999999999999\n", "1,2x\n"}) {
    Result<std::vector<LabelPair>> parsed = ParseMappingCsv(text, "m.csv");
    ASSERT_FALSE(parsed.ok()) << text;
    EXPECT_THAT(std::string(parsed.status().message()), HasSubstr("m.csv: line "));
  }
}

}  // namespace
}  // namespace chunkwise::io
