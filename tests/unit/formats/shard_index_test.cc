#include "formats/zarr/shard_index.h"

#include <gtest/gtest.h>

#include <random>
#include <string>

#include "codec/crc32c.h"

namespace chunkwise::formats::zarr {
namespace {

constexpr std::string_view kKey = "arr/c/1/2";

// The spec's test vector (docs/formats/zarr-shard-index.md): (0,100) (100,50) (empty) (150,10).
ShardIndex SpecIndex() {
  ShardIndex index = ShardIndex::Empty(4);
  index.Set(0, {0, 100});
  index.Set(1, {100, 50});
  index.Set(3, {150, 10});
  return index;
}

// Writes `value` at `at`, then recomputes the trailing CRC so that only the entry is wrong.
void Patch(Bytes& encoded, std::size_t at, std::uint64_t value) {
  StoreLittleEndian(value, encoded.data() + at);
  const ByteView entries(encoded.data(), encoded.size() - 4);
  StoreLittleEndian(codec::Crc32c(entries), encoded.data() + entries.size());
}

void ExpectCorruption(const Result<ShardIndex>& result, std::string_view fragment) {
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().code(), StatusCode::kCorruption);
  const std::string message(result.status().message());
  EXPECT_NE(message.find(kKey), std::string::npos) << message;
  EXPECT_NE(message.find(fragment), std::string::npos) << message;
}

TEST(ShardIndex, SpecTestVector) {
  const Bytes encoded = SpecIndex().Encode();
  ASSERT_EQ(encoded.size(), 68u);
  ASSERT_EQ(ShardIndex::EncodedSize(4), 68u);
  EXPECT_EQ(codec::Crc32c(ByteView(encoded).first(64)), 0xBB5D7FA2u);
  EXPECT_EQ(encoded[64], 0xA2);
  EXPECT_EQ(encoded[65], 0x7F);
  EXPECT_EQ(encoded[66], 0x5D);
  EXPECT_EQ(encoded[67], 0xBB);
  // Entry 1 is (100, 50); entry 2 is all 0xFF.
  EXPECT_EQ(LoadLittleEndian<std::uint64_t>(encoded.data() + 16), 100u);
  EXPECT_EQ(LoadLittleEndian<std::uint64_t>(encoded.data() + 24), 50u);
  for (std::size_t i = 32; i < 48; ++i) EXPECT_EQ(encoded[i], 0xFF);
}

TEST(ShardIndex, RoundTrip) {
  const ShardIndex index = SpecIndex();
  const Bytes encoded = index.Encode();
  const Result<ShardIndex> decoded = ShardIndex::Decode(encoded, 4, 160 + 68, kKey);
  ASSERT_TRUE(decoded.ok()) << decoded.status().ToString();
  ASSERT_EQ(decoded->size(), 4u);
  for (std::size_t k = 0; k < 4; ++k) EXPECT_EQ(decoded->at(k), index.at(k)) << k;
  EXPECT_TRUE(decoded->at(2).empty());
  EXPECT_FALSE(decoded->all_empty());
  EXPECT_EQ(decoded->Encode(), encoded);
}

TEST(ShardIndex, EmptyIndex) {
  const ShardIndex index = ShardIndex::Empty(3);
  EXPECT_TRUE(index.all_empty());
  const Bytes encoded = index.Encode();
  ASSERT_EQ(encoded.size(), 52u);
  for (std::size_t i = 0; i < 48; ++i) EXPECT_EQ(encoded[i], 0xFF);
  EXPECT_TRUE(ShardIndex::Decode(encoded, 3, 52, kKey).ok());
  EXPECT_TRUE(ShardIndex::Empty(0).all_empty());
  EXPECT_EQ(ShardIndex::Empty(0).Encode().size(), 4u);
}

TEST(ShardIndex, ZeroLengthChunkIsAcceptedByTheIndex) {
  ShardIndex index = ShardIndex::Empty(1);
  index.Set(0, {20, 0});
  // 20 bytes of data, then the 20-byte index.
  const Result<ShardIndex> decoded = ShardIndex::Decode(index.Encode(), 1, 40, kKey);
  ASSERT_TRUE(decoded.ok()) << decoded.status().ToString();
  EXPECT_EQ(decoded->at(0), (ChunkLocation{20, 0}));
}

TEST(ShardIndex, WrongSizeIsCorruption) {
  const Bytes encoded = SpecIndex().Encode();
  ExpectCorruption(ShardIndex::Decode(ByteView(encoded).first(67), 4, 1000, kKey), "67");
  ExpectCorruption(ShardIndex::Decode(encoded, 5, 1000, kKey), "84");
  ExpectCorruption(ShardIndex::Decode(ByteView(), 0, 1000, kKey), "expected");
}

TEST(ShardIndex, TruncatedIndexIsCorruption) {
  // Errata 10: an index holding entries only up to the array edge (3 of 4), with a valid CRC.
  ShardIndex three = ShardIndex::Empty(3);
  three.Set(0, {0, 100});
  ExpectCorruption(ShardIndex::Decode(three.Encode(), 4, 1000, kKey), "52 bytes, expected");
}

TEST(ShardIndex, ChecksumMismatchIsCorruption) {
  Bytes encoded = SpecIndex().Encode();
  encoded[5] ^= 0x01;
  const Result<ShardIndex> decoded = ShardIndex::Decode(encoded, 4, 1000, kKey);
  ExpectCorruption(decoded, "index checksum mismatch");
  ExpectCorruption(decoded, "stored 0xBB5D7FA2");
  Bytes bad_crc = SpecIndex().Encode();
  bad_crc[67] = 0;
  ExpectCorruption(ShardIndex::Decode(bad_crc, 4, 1000, kKey), "computed 0xBB5D7FA2");
}

TEST(ShardIndex, EntryPastShardEndIsCorruption) {
  // Entry 3 ends at 160; the 68-byte index follows the data.
  ExpectCorruption(ShardIndex::Decode(SpecIndex().Encode(), 4, 159 + 68, kKey), "index entry 3");
  EXPECT_TRUE(ShardIndex::Decode(SpecIndex().Encode(), 4, 160 + 68, kKey).ok());
}

TEST(ShardIndex, EntryOverlappingTheTrailingIndexIsCorruption) {
  // A 160-byte shard has room for 92 bytes of data before its 68-byte index:
  // entry 0 (bytes 0-100) would read index bytes as chunk data.
  ExpectCorruption(ShardIndex::Decode(SpecIndex().Encode(), 4, 160, kKey), "index entry 0");
  // With the index at the start the whole shard after it is data.
  ShardIndex shifted = ShardIndex::Empty(1);
  shifted.Set(0, {20, 10});
  EXPECT_TRUE(ShardIndex::Decode(shifted.Encode(), 1, 30, kKey, IndexLocation::kStart).ok());
  ExpectCorruption(ShardIndex::Decode(shifted.Encode(), 1, 29, kKey, IndexLocation::kStart),
                   "index entry 0");
}

TEST(ShardIndex, OverflowingEntryIsCorruption) {
  Bytes encoded = SpecIndex().Encode();
  Patch(encoded, 16, kEmptyChunk - 10);  // Entry 1: offset 2^64-11 + nbytes 50 wraps to 39.
  ExpectCorruption(ShardIndex::Decode(encoded, 4, 1000, kKey), "index entry 1");
}

TEST(ShardIndex, HalfEmptyEntryIsCorruption) {
  // Errata 9: only both fields at 2^64-1 mark an empty chunk.
  Bytes offset_only = SpecIndex().Encode();
  Patch(offset_only, 40, 10);  // Entry 2: (2^64-1, 10).
  ExpectCorruption(ShardIndex::Decode(offset_only, 4, 1000, kKey), "index entry 2");
  Bytes nbytes_only = SpecIndex().Encode();
  Patch(nbytes_only, 0, 0);
  Patch(nbytes_only, 8, kEmptyChunk);  // Entry 0: (0, 2^64-1).
  ExpectCorruption(ShardIndex::Decode(nbytes_only, 4, kEmptyChunk, kKey), "index entry 0");
}

TEST(ShardIndex, StartLocationRejectsOffsetsInsideTheIndex) {
  EXPECT_EQ(DataOffsetShift(IndexLocation::kEnd, 4), 0u);
  EXPECT_EQ(DataOffsetShift(IndexLocation::kStart, 4), 68u);
  // Entry 0 begins at 0, which is inside a leading index.
  ExpectCorruption(ShardIndex::Decode(SpecIndex().Encode(), 4, 1000, kKey, IndexLocation::kStart),
                   "index entry 0");
  // A writer shifts every offset by DataOffsetShift (errata 3); then the index is valid.
  const ShardIndex unshifted = SpecIndex();
  ShardIndex shifted = ShardIndex::Empty(4);
  const std::uint64_t shift = DataOffsetShift(IndexLocation::kStart, 4);
  for (std::size_t k = 0; k < 4; ++k) {
    const ChunkLocation entry = unshifted.at(k);
    if (!entry.empty()) shifted.Set(k, {entry.offset + shift, entry.nbytes});
  }
  const Result<ShardIndex> decoded =
      ShardIndex::Decode(shifted.Encode(), 4, 68 + 160, kKey, IndexLocation::kStart);
  ASSERT_TRUE(decoded.ok()) << decoded.status().ToString();
  EXPECT_EQ(decoded->at(3), (ChunkLocation{218, 10}));
}

TEST(ShardIndex, RandomRoundTrips) {
  std::mt19937_64 random(7);
  for (int trial = 0; trial < 300; ++trial) {
    const std::size_t n = random() % 70;
    const std::uint64_t shard_size = 1 + random() % (std::uint64_t{1} << 40);
    ShardIndex index = ShardIndex::Empty(n);
    for (std::size_t k = 0; k < n; ++k) {
      if (random() % 4 == 0) continue;
      const std::uint64_t nbytes = random() % (shard_size + 1);
      index.Set(k, {random() % (shard_size - nbytes + 1), nbytes});
    }
    const Bytes encoded = index.Encode();
    ASSERT_EQ(encoded.size(), ShardIndex::EncodedSize(n));
    const Result<ShardIndex> decoded =
        ShardIndex::Decode(encoded, n, shard_size + encoded.size(), kKey);
    ASSERT_TRUE(decoded.ok()) << decoded.status().ToString();
    for (std::size_t k = 0; k < n; ++k) ASSERT_EQ(decoded->at(k), index.at(k));
    ASSERT_EQ(decoded->Encode(), encoded);
  }
}

}  // namespace
}  // namespace chunkwise::formats::zarr
