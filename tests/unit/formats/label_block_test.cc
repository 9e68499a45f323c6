#include "formats/dvid/label_block.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <string>

#include "codec/gzip_codec.h"
#include "core/file_io.h"

namespace chunkwise::formats::dvid {
namespace {

using ::testing::HasSubstr;

constexpr std::size_t kVoxels = std::size_t{64} * 64 * 64;

Bytes Gunzipped(const std::string& file) {
  const std::string path = std::string(CHUNKWISE_SHARED_DIR) + "/testdata/dvid/" + file;
  Result<Bytes> compressed = core::ReadFile(path);
  EXPECT_TRUE(compressed.ok()) << compressed.status().ToString();
  if (!compressed.ok()) return {};
  Result<Bytes> bytes = (*codec::GzipCodec::Create(6))->Decode(*compressed, 64 << 20);
  EXPECT_TRUE(bytes.ok()) << bytes.status().ToString();
  return bytes.ok() ? *bytes : Bytes();
}

std::vector<std::uint64_t> Volume(const std::string& file) {
  const Bytes bytes = Gunzipped(file);
  std::vector<std::uint64_t> voxels(bytes.size() / 8);
  for (std::size_t i = 0; i < voxels.size(); ++i) {
    voxels[i] = LoadLittleEndian<std::uint64_t>(bytes.data() + 8 * i);
  }
  return voxels;
}

std::vector<std::uint64_t> Decode(ByteView block, BlockShape shape = kDefaultBlockShape) {
  std::vector<std::uint64_t> out(shape.num_voxels());
  const Status status = DecodeLabelBlockInto(block, shape, out, "test");
  EXPECT_TRUE(status.ok()) << status.ToString();
  return out;
}

TEST(LabelBlock, Fib19SampleBlockDecodesToSampleVolume) {
  const Bytes block = Gunzipped("fib19-64x64x64-sample1-block.dat.gz");
  ASSERT_EQ(block.size(), 22512u);
  const std::vector<std::uint64_t> expected = Volume("fib19-64x64x64-sample1.dat.gz");
  ASSERT_EQ(expected.size(), kVoxels);
  EXPECT_EQ(Decode(block), expected);
  Result<LabelBlockHeader> header = ReadLabelBlockHeader(block, "fib19");
  ASSERT_TRUE(header.ok());
  EXPECT_EQ(header->labels.size(), 18u);
  EXPECT_EQ(header->shape, kDefaultBlockShape);
  // DVID wrote it, so it must pass even the canonical rules.
  EXPECT_TRUE(ValidateLabelBlock(block, LabelBlockCheck::kCanonical, "fib19").ok());
}

class SampleVolume : public ::testing::TestWithParam<std::string> {};

TEST_P(SampleVolume, RoundTripsAndEncoderOutputIsCanonical) {
  const std::vector<std::uint64_t> volume = Volume(GetParam());
  ASSERT_EQ(volume.size(), kVoxels);
  Result<Bytes> block = EncodeLabelBlock(volume, kDefaultBlockShape);
  ASSERT_TRUE(block.ok()) << block.status().ToString();
  const Status valid = ValidateLabelBlock(*block, LabelBlockCheck::kCanonical, GetParam());
  EXPECT_TRUE(valid.ok()) << valid.ToString();
  EXPECT_EQ(Decode(*block), volume);
  // Far smaller than the 2 MiB of voxels.
  EXPECT_LT(block->size(), kVoxels * 8 / 20);
}

INSTANTIATE_TEST_SUITE_P(Testdata, SampleVolume,
                         ::testing::Values("fib19-64x64x64-sample1.dat.gz",
                                           "fib19-64x64x64-sample2.dat.gz",
                                           "cx-64x64x64-sample1.dat.gz",
                                           "cx-64x64x64-sample2.dat.gz"));

TEST(LabelBlock, SameLabelsAsDvidEncodingOfFib19) {
  // Block label order is DVID's map order and cannot match; the label set must.
  const Bytes dvid = Gunzipped("fib19-64x64x64-sample1-block.dat.gz");
  Result<Bytes> ours =
      EncodeLabelBlock(Volume("fib19-64x64x64-sample1.dat.gz"), kDefaultBlockShape);
  ASSERT_TRUE(ours.ok());
  EXPECT_EQ(ours->size(), dvid.size());
  Result<LabelBlockHeader> a = ReadLabelBlockHeader(dvid, "dvid");
  Result<LabelBlockHeader> b = ReadLabelBlockHeader(*ours, "ours");
  ASSERT_TRUE(a.ok() && b.ok());
  std::sort(a->labels.begin(), a->labels.end());
  std::sort(b->labels.begin(), b->labels.end());
  EXPECT_EQ(a->labels, b->labels);
}

TEST(LabelBlock, OneLabelIsA24ByteSolidBlock) {
  const std::vector<std::uint64_t> voxels(kVoxels, 0xfeedfacecafebeefULL);
  Result<Bytes> block = EncodeLabelBlock(voxels, kDefaultBlockShape);
  ASSERT_TRUE(block.ok());
  ASSERT_EQ(block->size(), kSolidLabelBlockSize);
  EXPECT_EQ(LoadLittleEndian<std::uint32_t>(block->data() + 12), 1u);
  EXPECT_EQ(LoadLittleEndian<std::uint64_t>(block->data() + 16), 0xfeedfacecafebeefULL);
  EXPECT_EQ(Decode(*block), voxels);
  EXPECT_TRUE(ValidateLabelBlock(*block, LabelBlockCheck::kCanonical, "solid").ok());
}

TEST(LabelBlock, SolidBlockWithNoLabelsDecodesToZeroButIsNotCanonical) {
  Bytes block(16, 0);
  StoreLittleEndian<std::uint32_t>(8, block.data());
  StoreLittleEndian<std::uint32_t>(8, block.data() + 4);
  StoreLittleEndian<std::uint32_t>(8, block.data() + 8);
  EXPECT_EQ(Decode(block), std::vector<std::uint64_t>(kVoxels, 0));
  EXPECT_TRUE(ValidateLabelBlock(block, LabelBlockCheck::kDecodable, "n0").ok());
  EXPECT_FALSE(ValidateLabelBlock(block, LabelBlockCheck::kCanonical, "n0").ok());
}

// Every palette size from 1 to 512 in some sub-block, so every bit width
// (1..9) and straddling values are exercised, on a non-cubic block.
TEST(LabelBlock, EveryPaletteSizeRoundTrips) {
  const BlockShape shape{4, 2, 3};
  std::vector<std::uint64_t> voxels(shape.num_voxels());
  std::mt19937_64 random(7);
  const std::size_t nx = 32, ny = 16;
  for (std::size_t z = 0; z < 24; ++z) {
    for (std::size_t y = 0; y < ny; ++y) {
      for (std::size_t x = 0; x < nx; ++x) {
        const std::size_t sub_block = (z / 8) * 8 + (y / 8) * 4 + x / 8;
        const std::size_t n = 1 + (sub_block * 23) % 512;
        const std::size_t within = (z % 8) * 64 + (y % 8) * 8 + x % 8;
        voxels[(z * ny + y) * nx + x] = (within < n ? within : random() % n) * 1000003 + 1;
      }
    }
  }
  Result<Bytes> block = EncodeLabelBlock(voxels, shape);
  ASSERT_TRUE(block.ok());
  const Status valid = ValidateLabelBlock(*block, LabelBlockCheck::kCanonical, "sizes");
  EXPECT_TRUE(valid.ok()) << valid.ToString();
  EXPECT_EQ(Decode(*block, shape), voxels);
  Result<DecodedLabelBlock> any = DecodeLabelBlock(*block, "sizes");
  ASSERT_TRUE(any.ok());
  EXPECT_EQ(any->shape, shape);
  EXPECT_EQ(any->voxels, voxels);
}

TEST(LabelBlock, PackedValuesAreMostSignificantBitFirst) {
  // Sub-block 0 holds labels 5 and 9 alternating; every other sub-block 5.
  std::vector<std::uint64_t> voxels(kVoxels, 5);
  voxels[1] = 9;
  Result<Bytes> block = EncodeLabelBlock(voxels, kDefaultBlockShape);
  ASSERT_TRUE(block.ok());
  // 16 header + 2 labels + 512 counts + 513 indices, then sub-block 0's 64 bytes.
  const std::size_t packed = 16 + 16 + 1024 + 4 * 513;
  ASSERT_EQ(block->size(), packed + 64);
  EXPECT_EQ((*block)[packed], 0b01000000);
  EXPECT_EQ((*block)[packed + 1], 0);
}

Bytes Fib19Block() { return Gunzipped("fib19-64x64x64-sample1-block.dat.gz"); }

Status DecodeStatus(ByteView block) {
  std::vector<std::uint64_t> out(kVoxels);
  return DecodeLabelBlockInto(block, kDefaultBlockShape, out, "bad.dat");
}

TEST(LabelBlock, TruncatedOrExtendedBlocksAreCorruption) {
  const Bytes block = Fib19Block();
  for (std::size_t size : {0, 15, 16, 100, 22511}) {
    const Status status = DecodeStatus(ByteView(block).first(size));
    EXPECT_EQ(status.code(), StatusCode::kCorruption) << size;
    EXPECT_THAT(std::string(status.message()), HasSubstr("bad.dat"));
  }
  Bytes longer = block;
  longer.push_back(0);
  EXPECT_THAT(std::string(DecodeStatus(longer).message()), HasSubstr("1 trailing bytes"));
}

TEST(LabelBlock, BadIndicesAndShapesAreCorruption) {
  Bytes block = Fib19Block();
  const std::size_t indices = 16 + 8 * 18 + 2 * 512;
  StoreLittleEndian<std::uint32_t>(18, block.data() + indices);
  EXPECT_THAT(std::string(DecodeStatus(block).message()), HasSubstr("label 18 of 18"));
  const Status decodable = ValidateLabelBlock(block, LabelBlockCheck::kDecodable, "x");
  EXPECT_EQ(decodable.code(), StatusCode::kCorruption);
  EXPECT_THAT(std::string(decodable.message()), HasSubstr("index 18 past the block's 18 labels"));
  Bytes shape = Fib19Block();
  StoreLittleEndian<std::uint32_t>(1, shape.data());
  EXPECT_THAT(std::string(DecodeStatus(shape).message()), HasSubstr("sub-blocks along an axis"));
  StoreLittleEndian<std::uint32_t>(4, shape.data());
  EXPECT_EQ(DecodeStatus(shape).code(), StatusCode::kCorruption);
  Bytes huge_n = Fib19Block();
  StoreLittleEndian<std::uint32_t>(0xffffffffu, huge_n.data() + 12);
  EXPECT_THAT(std::string(DecodeStatus(huge_n).message()), HasSubstr("truncated"));
}

TEST(LabelBlock, PackedValuePastPaletteIsCorruption) {
  // Sub-block 0 has 3 labels (2 bits); the index value 3 is past them.
  std::vector<std::uint64_t> voxels(kVoxels, 1);
  voxels[1] = 2;
  voxels[2] = 3;
  Result<Bytes> block = EncodeLabelBlock(voxels, kDefaultBlockShape);
  ASSERT_TRUE(block.ok());
  const std::size_t packed = 16 + 24 + 1024 + 4 * 514;
  (*block)[packed + 10] = 0xff;
  EXPECT_THAT(std::string(DecodeStatus(*block).message()), HasSubstr("past its 3 labels"));
}

TEST(LabelBlock, DecodableCheckCatchesPackedValuesPastThePaletteAtEveryWidth) {
  // Sub-block 0 with 3 labels (2-bit values) and with 10 (4-bit values), the
  // two widths the check reads without unpacking, and with 6 (3-bit).
  for (std::uint64_t labels : {3u, 6u, 10u}) {
    std::vector<std::uint64_t> voxels(kVoxels, 1);
    for (std::uint64_t i = 1; i < labels; ++i) voxels[(i / 8) * 64 + i % 8] = i + 1;
    Result<Bytes> block = EncodeLabelBlock(voxels, kDefaultBlockShape);
    ASSERT_TRUE(block.ok());
    EXPECT_TRUE(ValidateLabelBlock(*block, LabelBlockCheck::kDecodable, "b").ok()) << labels;
    const std::size_t packed = 16 + 8 * labels + 1024 + 4 * (labels + 511);
    (*block)[packed + 10] = 0xff;  // Every field of this byte holds the largest value.
    const Status status = ValidateLabelBlock(*block, LabelBlockCheck::kDecodable, "b");
    EXPECT_THAT(std::string(status.message()),
                HasSubstr("past its " + std::to_string(labels) + " labels"))
        << labels;
  }
}

TEST(LabelBlock, CanonicalRulesCatchNonCanonicalBlocks) {
  std::vector<std::uint64_t> voxels(kVoxels, 1);
  voxels[0] = 2;
  Result<Bytes> encoded = EncodeLabelBlock(voxels, kDefaultBlockShape);
  ASSERT_TRUE(encoded.ok());
  // Swapping the two block labels keeps the block decodable but duplicates nothing;
  // making them equal is a repeat that only the canonical check rejects.
  Bytes repeated = *encoded;
  StoreLittleEndian<std::uint64_t>(1, repeated.data() + 16);
  EXPECT_TRUE(ValidateLabelBlock(repeated, LabelBlockCheck::kDecodable, "r").ok());
  EXPECT_THAT(std::string(ValidateLabelBlock(repeated, LabelBlockCheck::kCanonical, "r").message()),
              HasSubstr("repeats"));
  // Inverting sub-block 0's bits puts its palette out of first-appearance order.
  Bytes reordered = *encoded;
  const std::size_t packed = 16 + 16 + 1024 + 4 * 513;
  for (std::size_t i = 0; i < 64; ++i) reordered[packed + i] ^= 0xff;
  EXPECT_TRUE(ValidateLabelBlock(reordered, LabelBlockCheck::kDecodable, "o").ok());
  EXPECT_THAT(
      std::string(ValidateLabelBlock(reordered, LabelBlockCheck::kCanonical, "o").message()),
      HasSubstr("first-appearance order"));
}

TEST(LabelBlock, EncodeRejectsWrongSizeAndShape) {
  std::vector<std::uint64_t> voxels(100);
  EXPECT_EQ(EncodeLabelBlock(voxels, kDefaultBlockShape).status().code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(EncodeLabelBlock(voxels, BlockShape{1, 8, 8}).status().code(),
            StatusCode::kInvalidArgument);
}

TEST(LabelBlock, DecodeRefusesBlocksOverTheVoxelLimit) {
  const Bytes block = Fib19Block();
  Result<DecodedLabelBlock> decoded = DecodeLabelBlock(block, "big", 1000);
  ASSERT_FALSE(decoded.ok());
  EXPECT_EQ(decoded.status().code(), StatusCode::kOutOfRange);
}

}  // namespace
}  // namespace chunkwise::formats::dvid
