#include "codec/codec_chain.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "codec/codec_registry.h"
#include "codec/codec_shorthand.h"

namespace chunkwise::codec {
namespace {

// [bytes little, <the shorthand's compressors>] for uint16 chunks.
CodecChain ChainFor(const std::string& shorthand) {
  nlohmann::json codecs = {{{"name", "bytes"}, {"configuration", {{"endian", "little"}}}}};
  const nlohmann::json compressors = *ParseCodecShorthand(shorthand, 2);
  for (const auto& codec : compressors) codecs.push_back(codec);
  return *CodecChain::FromJson(codecs, CodecRegistry::WithBuiltins());
}

Bytes Chunk(std::size_t bytes) {
  Bytes data(bytes);
  for (std::size_t i = 0; i < bytes; ++i) data[i] = static_cast<std::uint8_t>((i / 5) ^ (i * 7));
  return data;
}

class CodecChainEncodeInto : public ::testing::TestWithParam<std::string> {};

TEST_P(CodecChainEncodeInto, MatchesEncodeAndDecodesBack) {
  const CodecChain chain = ChainFor(GetParam());
  const ChunkSpec spec{core::DataType(core::DataTypeId::kUInt16), {16, 32, 8}};
  const Bytes data = Chunk(spec.num_bytes());
  Bytes out(chain.MaxEncodedSize(spec));
  Result<std::size_t> written = chain.EncodeInto(spec, data, out);
  ASSERT_TRUE(written.ok()) << written.status().ToString();
  const Bytes encoded = *chain.Encode(spec, data);
  ASSERT_EQ(*written, encoded.size());
  EXPECT_TRUE(std::equal(encoded.begin(), encoded.end(), out.begin()));
  EXPECT_TRUE(*chain.Decode(spec, ByteView(out).first(*written)) == data);
}

TEST_P(CodecChainEncodeInto, TooSmallAnOutputIsOutOfRange) {
  const CodecChain chain = ChainFor(GetParam());
  const ChunkSpec spec{core::DataType(core::DataTypeId::kUInt16), {64}};
  const Bytes data = Chunk(spec.num_bytes());
  Bytes out(3);
  EXPECT_EQ(chain.EncodeInto(spec, data, out).status().code(), StatusCode::kOutOfRange);
}

INSTANTIATE_TEST_SUITE_P(Codecs, CodecChainEncodeInto,
                         ::testing::Values("none", "zstd:1", "zstd:3+crc32c", "gzip:6",
                                           "blosc:lz4:5:shuffle", "blosc:lz4:5:shuffle+crc32c",
                                           "blosc:zstd:3:bitshuffle", "crc32c"),
                         [](const auto& info) {
                           std::string name = info.param;
                           for (char& c : name) {
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           }
                           return name;
                         });

// Every chain puts the box in its place; only `bytes` + blosc lz4 (with or
// without crc32c after it) does so straight from the encoded bytes, leaving
// the scratch buffer unused.
TEST_P(CodecChainEncodeInto, DecodeRegionPlacesTheBoxInPlaceOnlyForBloscLz4) {
  const CodecChain chain = ChainFor(GetParam());
  const ChunkSpec spec{core::DataType(core::DataTypeId::kUInt16), {16, 32, 8}};
  const Bytes data = Chunk(spec.num_bytes());
  const Bytes encoded = *chain.Encode(spec, data);
  const core::Shape shape = {17, 32, 10}, origin = {1, 0, 2}, zero = {0, 0, 0};
  for (const core::Region& box :
       {core::Region::Full(spec.shape), core::Region({3, 1, 2}, {9, 32, 7})}) {
    SCOPED_TRACE(box.ToString());
    Bytes array(static_cast<std::size_t>(17 * 32 * 10) * 2, 0xCC), scratch;
    const Status status =
        chain.DecodeRegion(spec, encoded, box, {array.data(), shape, origin}, scratch);
    ASSERT_TRUE(status.ok()) << status.ToString();
    EXPECT_EQ(scratch.empty(), GetParam().starts_with("blosc:lz4:5:shuffle"));
    Bytes expected(array.size(), 0xCC);
    core::CopyStridedRegion({data.data(), spec.shape, box.start()},
                            {expected.data(), shape, origin}, box.shape(), 2);
    EXPECT_EQ(array, expected);
  }
}

// A compressor then crc32c (the default chain since #44) encodes into the
// caller's buffer and checks the checksum before decoding in place: a flipped
// byte is Corruption from DecodeInto and DecodeRegion alike, as from Decode.
TEST(CodecChainTest, CompressorThenCrc32cRefusesAFlippedByteOnEveryPath) {
  const CodecChain chain = ChainFor("zstd:1+crc32c");
  const ChunkSpec spec{core::DataType(core::DataTypeId::kUInt16), {16, 32, 8}};
  const Bytes data = Chunk(spec.num_bytes());
  Bytes encoded = *chain.Encode(spec, data);
  Bytes out(spec.num_bytes());
  ASSERT_TRUE(chain.DecodeInto(spec, encoded, out).ok());
  EXPECT_EQ(out, data);
  encoded[encoded.size() / 2] ^= 1;
  const Status into = chain.DecodeInto(spec, encoded, out);
  Bytes scratch;
  const Status region = chain.DecodeRegion(spec, encoded, core::Region::Full(spec.shape),
                                           {out.data(), spec.shape, core::Coord{0, 0, 0}}, scratch);
  for (const Status& status : {into, region, chain.Decode(spec, encoded).status()}) {
    EXPECT_EQ(status.code(), StatusCode::kCorruption) << status.ToString();
    EXPECT_NE(status.message().find("crc32c: checksum mismatch"), std::string::npos)
        << status.ToString();
  }
  EXPECT_EQ(chain.DecodeInto(spec, ByteView(encoded).first(3), out).code(),
            StatusCode::kCorruption);
}

// A transpose rules the in-place decode out; the box still lands in place.
TEST(CodecChainTest, DecodeRegionCopiesThroughScratchForAChainWithATranspose) {
  const nlohmann::json codecs = {{{"name", "transpose"}, {"configuration", {{"order", {1, 0}}}}},
                                 {{"name", "bytes"}, {"configuration", {{"endian", "little"}}}},
                                 (*ParseCodecShorthand("blosc:lz4:5:shuffle", 2))[0]};
  const CodecChain chain = *CodecChain::FromJson(codecs, CodecRegistry::WithBuiltins());
  const ChunkSpec spec{core::DataType(core::DataTypeId::kUInt16), {16, 64}};
  const Bytes data = Chunk(spec.num_bytes());
  const Bytes encoded = *chain.Encode(spec, data);
  Bytes array(spec.num_bytes()), scratch;
  const core::Shape zero = {0, 0};
  ASSERT_TRUE(chain
                  .DecodeRegion(spec, encoded, core::Region::Full(spec.shape),
                                {array.data(), spec.shape, zero}, scratch)
                  .ok());
  EXPECT_FALSE(scratch.empty());
  EXPECT_EQ(array, data);
}

TEST(CodecChainTest, MaxEncodedSizeBoundsIncompressibleData) {
  const CodecChain chain = ChainFor("zstd:1+crc32c");
  const ChunkSpec spec{core::DataType(core::DataTypeId::kUInt16), {4096}};
  Bytes noise(spec.num_bytes());
  std::uint64_t state = 88172645463325252ull;
  for (auto& byte : noise) {
    state ^= state << 13, state ^= state >> 7, state ^= state << 17;
    byte = static_cast<std::uint8_t>(state);
  }
  EXPECT_LE(chain.Encode(spec, noise)->size(), chain.MaxEncodedSize(spec));
  Bytes out(chain.MaxEncodedSize(spec));
  EXPECT_TRUE(chain.EncodeInto(spec, noise, out).ok());
}

TEST(CodecChainTest, AListOfMoreThan64CodecsIsCorruptionNamingItsCount) {
  // Each codec would run on every chunk: such a list is refused before a
  // codec of it is built (an unknown name among them is never looked at).
  nlohmann::json codecs = {{{"name", "bytes"}, {"configuration", {{"endian", "little"}}}}};
  for (int i = 0; i < 64; ++i) codecs.push_back({{"name", "crc32c"}});
  for (const bool bytes_only : {false, true}) {
    nlohmann::json list = codecs;
    if (bytes_only) list.erase(list.begin());
    list.push_back({{"name", "no-such-codec"}});
    const Result<CodecChain> chain =
        bytes_only ? CodecChain::BytesOnly(list, CodecRegistry::WithBuiltins())
                   : CodecChain::FromJson(list, CodecRegistry::WithBuiltins());
    ASSERT_FALSE(chain.ok());
    EXPECT_EQ(chain.status().code(), StatusCode::kCorruption) << chain.status().ToString();
    EXPECT_NE(chain.status().message().find("\"codecs\" lists " + std::to_string(list.size())),
              std::string::npos)
        << chain.status().ToString();
  }
  // 64 are read.
  codecs.erase(codecs.end() - 1);
  EXPECT_TRUE(CodecChain::FromJson(codecs, CodecRegistry::WithBuiltins()).ok());
}

}  // namespace
}  // namespace chunkwise::codec
