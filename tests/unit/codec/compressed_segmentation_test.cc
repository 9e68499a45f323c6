#include "codec/compressed_segmentation.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <random>
#include <vector>

namespace chunkwise::codec {
namespace {

using ::testing::HasSubstr;

std::vector<std::uint32_t> Words(ByteView bytes) {
  std::vector<std::uint32_t> words(bytes.size() / 4);
  for (std::size_t i = 0; i < words.size(); ++i) {
    words[i] = LoadLittleEndian<std::uint32_t>(bytes.data() + 4 * i);
  }
  return words;
}

Bytes FromWords(const std::vector<std::uint32_t>& words) {
  Bytes bytes(words.size() * 4);
  for (std::size_t i = 0; i < words.size(); ++i) StoreLittleEndian(words[i], bytes.data() + 4 * i);
  return bytes;
}

// Segments a few voxels wide, so blocks hold 1 to a few dozen labels.
template <typename T>
std::vector<T> Labels(const SegmentationLayout& layout, unsigned seed, int spread) {
  std::mt19937_64 random(seed);
  std::vector<T> voxels(layout.num_voxels());
  std::size_t i = 0;
  for (int c = 0; c < layout.channels; ++c) {
    for (std::int64_t z = 0; z < layout.extent[2]; ++z) {
      for (std::int64_t y = 0; y < layout.extent[1]; ++y) {
        for (std::int64_t x = 0; x < layout.extent[0]; ++x) {
          const std::uint64_t base = (x / 5) * 977 + (y / 3) * 131 + (z / 4) * 17 + c;
          voxels[i++] =
              static_cast<T>(base * 0x9e3779b97f4a7c15ULL + (spread > 0 ? random() % spread : 0));
        }
      }
    }
  }
  return voxels;
}

template <typename T>
void ExpectRoundTrip(const SegmentationLayout& layout, const std::vector<T>& voxels) {
  Bytes encoded;
  ASSERT_TRUE(EncodeCompressedSegmentation(std::span<const T>(voxels), layout, encoded).ok());
  std::vector<T> decoded(voxels.size());
  const Status status = DecodeCompressedSegmentation(encoded, layout, std::span<T>(decoded), "t");
  ASSERT_TRUE(status.ok()) << status.ToString();
  EXPECT_EQ(decoded, voxels);
}

TEST(CompressedSegmentation, TwoValuesHaveTheDocumentedLayout) {
  // Extent (2, 1, 1), one block of (2, 1, 1): the channel offset, one block
  // header (table at word 3, 1 bit, values at word 2), the packed indices
  // 0b10, then the table 5, 7, all in words counted from the channel start.
  const SegmentationLayout layout{{2, 1, 1}, {2, 1, 1}, 1};
  const std::vector<std::uint32_t> voxels{5, 7};
  Bytes encoded;
  ASSERT_TRUE(
      EncodeCompressedSegmentation(std::span<const std::uint32_t>(voxels), layout, encoded).ok());
  EXPECT_EQ(Words(encoded), (std::vector<std::uint32_t>{1, 3 | (1u << 24), 2, 0b10, 5, 7}));
}

TEST(CompressedSegmentation, Uint64TablesTakeTwoWordsPerValue) {
  const SegmentationLayout layout{{1, 1, 2}, {1, 1, 2}, 1};
  const std::vector<std::uint64_t> voxels{0x100000002ULL, 3};
  Bytes encoded;
  ASSERT_TRUE(
      EncodeCompressedSegmentation(std::span<const std::uint64_t>(voxels), layout, encoded).ok());
  EXPECT_EQ(Words(encoded), (std::vector<std::uint32_t>{1, 3 | (1u << 24), 2, 0b10, 2, 1, 3, 0}));
}

TEST(CompressedSegmentation, BlocksWithTheSameTableShareIt) {
  // Two (2,1,1) blocks of one value each: 0 bits, one table written once.
  const SegmentationLayout layout{{4, 1, 1}, {2, 1, 1}, 1};
  const std::vector<std::uint32_t> voxels{9, 9, 9, 9};
  Bytes encoded;
  ASSERT_TRUE(
      EncodeCompressedSegmentation(std::span<const std::uint32_t>(voxels), layout, encoded).ok());
  EXPECT_EQ(Words(encoded), (std::vector<std::uint32_t>{1, 4, 4, 4, 5, 9}));
}

TEST(CompressedSegmentation, BitWidthsArePowersOfTwo) {
  // Three values need 2 bits; five need 4 (not 3).
  for (const auto& [count, bits] : {std::pair{3, 2u}, std::pair{5, 4u}, std::pair{17, 8u}}) {
    const SegmentationLayout layout{{count, 1, 1}, {count, 1, 1}, 1};
    std::vector<std::uint32_t> voxels(count);
    for (int i = 0; i < count; ++i) voxels[i] = 100 + i;
    Bytes encoded;
    ASSERT_TRUE(
        EncodeCompressedSegmentation(std::span<const std::uint32_t>(voxels), layout, encoded).ok());
    EXPECT_EQ(Words(encoded)[1] >> 24, bits) << count << " values";
    ExpectRoundTrip(layout, voxels);
  }
}

TEST(CompressedSegmentation, RoundTripsChunksBlocksAndChannels) {
  const std::vector<SegmentationLayout> layouts{
      {{64, 64, 64}, {8, 8, 8}, 1},    {{13, 7, 5}, {8, 8, 8}, 1}, {{9, 17, 33}, {4, 2, 3}, 1},
      {{16, 16, 16}, {16, 16, 16}, 2}, {{5, 6, 7}, {1, 1, 1}, 3},  {{0, 4, 4}, {8, 8, 8}, 1},
      {{30, 30, 2}, {64, 64, 64}, 1}};
  for (const SegmentationLayout& layout : layouts) {
    for (const int spread : {0, 3, 40, 100000}) {
      ExpectRoundTrip(layout, Labels<std::uint64_t>(layout, 7, spread));
      ExpectRoundTrip(layout, Labels<std::uint32_t>(layout, 8, spread));
    }
  }
}

TEST(CompressedSegmentation, RefusesAWrongVoxelCount) {
  const std::vector<std::uint64_t> voxels(10);
  Bytes encoded;
  const Status status = EncodeCompressedSegmentation(std::span<const std::uint64_t>(voxels),
                                                     {{2, 2, 2}, {8, 8, 8}, 1}, encoded);
  EXPECT_EQ(status.code(), StatusCode::kInvalidArgument);
}

class CompressedSegmentationCorruption : public ::testing::Test {
 protected:
  Status Decode(const std::vector<std::uint32_t>& words) {
    std::vector<std::uint32_t> out(2);
    return DecodeCompressedSegmentation(FromWords(words), {{2, 1, 1}, {2, 1, 1}, 1},
                                        std::span<std::uint32_t>(out), "s0/0.shard");
  }
};

TEST_F(CompressedSegmentationCorruption, TableOffsetPastTheEnd) {
  const Status status = Decode({1, 30 | (1u << 24), 2, 0b10, 5, 7});
  EXPECT_EQ(status.code(), StatusCode::kCorruption);
  EXPECT_THAT(status.message(), HasSubstr("s0/0.shard"));
  EXPECT_THAT(status.message(), HasSubstr("lookup table at word 30"));
  EXPECT_THAT(status.message(), HasSubstr("block (0, 0, 0)"));
}

TEST_F(CompressedSegmentationCorruption, IndexPastTheTable) {
  // The table at the last word holds one value; index 1 lies past it.
  const Status status = Decode({1, 3 | (1u << 24), 2, 0b10, 5});
  EXPECT_EQ(status.code(), StatusCode::kCorruption);
  EXPECT_THAT(status.message(), HasSubstr("entry 1"));
}

TEST_F(CompressedSegmentationCorruption, BadBitWidth) {
  const Status status = Decode({1, 3 | (3u << 24), 2, 0b10, 5, 7});
  EXPECT_EQ(status.code(), StatusCode::kCorruption);
  EXPECT_THAT(status.message(), HasSubstr("encoded bits 3"));
}

TEST_F(CompressedSegmentationCorruption, ValuesPastTheEnd) {
  const Status status = Decode({1, 3 | (1u << 24), 9, 0b10, 5, 7});
  EXPECT_EQ(status.code(), StatusCode::kCorruption);
  EXPECT_THAT(status.message(), HasSubstr("encoded values at word 9"));
}

TEST_F(CompressedSegmentationCorruption, TruncatedHeadersAndChannelOffsets) {
  Status status = Decode({1, 3});
  EXPECT_EQ(status.code(), StatusCode::kCorruption);
  EXPECT_THAT(status.message(), HasSubstr("block headers"));
  status = Decode({7, 3, 2});
  EXPECT_EQ(status.code(), StatusCode::kCorruption);
  EXPECT_THAT(status.message(), HasSubstr("offset 7"));
  status = Decode({});
  EXPECT_EQ(status.code(), StatusCode::kCorruption);
}

}  // namespace
}  // namespace chunkwise::codec
