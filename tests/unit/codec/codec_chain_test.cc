#include "chunkwise/codec/codec_chain.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "chunkwise/codec/codec_registry.h"
#include "chunkwise/codec/codec_shorthand.h"

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
                                           "blosc:lz4:5:shuffle", "blosc:zstd:3:bitshuffle"),
                         [](const auto& info) {
                           std::string name = info.param;
                           for (char& c : name) {
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           }
                           return name;
                         });

// Only `bytes` + blosc lz4 decodes in place; every other chain says it did
// not and leaves the destination alone.
TEST_P(CodecChainEncodeInto, DecodeIntoRegionPlacesTheChunkOrDeclines) {
  const CodecChain chain = ChainFor(GetParam());
  const ChunkSpec spec{core::DataType(core::DataTypeId::kUInt16), {16, 32, 8}};
  const Bytes data = Chunk(spec.num_bytes());
  const Bytes encoded = *chain.Encode(spec, data);
  const core::Shape shape = {17, 32, 10}, origin = {1, 0, 2}, zero = {0, 0, 0};
  Bytes array(static_cast<std::size_t>(17 * 32 * 10) * 2, 0xCC);
  const Result<bool> placed = chain.DecodeIntoRegion(spec, encoded, core::Region::Full(spec.shape),
                                                     {array.data(), shape, origin});
  ASSERT_TRUE(placed.ok()) << placed.status().ToString();
  EXPECT_EQ(*placed, GetParam() == "blosc:lz4:5:shuffle");
  Bytes expected(array.size(), 0xCC);
  if (*placed) {
    core::CopyStridedRegion({data.data(), spec.shape, zero}, {expected.data(), shape, origin},
                            spec.shape, 2);
  }
  EXPECT_EQ(array, expected);
}

TEST(CodecChainTest, DecodeIntoRegionDeclinesAChainWithATranspose) {
  const nlohmann::json codecs = {{{"name", "transpose"}, {"configuration", {{"order", {1, 0}}}}},
                                 {{"name", "bytes"}, {"configuration", {{"endian", "little"}}}},
                                 (*ParseCodecShorthand("blosc:lz4:5:shuffle", 2))[0]};
  const CodecChain chain = *CodecChain::FromJson(codecs, CodecRegistry::WithBuiltins());
  const ChunkSpec spec{core::DataType(core::DataTypeId::kUInt16), {16, 64}};
  const Bytes encoded = *chain.Encode(spec, Chunk(spec.num_bytes()));
  Bytes array(spec.num_bytes());
  const core::Shape zero = {0, 0};
  EXPECT_FALSE(*chain.DecodeIntoRegion(spec, encoded, core::Region::Full(spec.shape),
                                       {array.data(), spec.shape, zero}));
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

}  // namespace
}  // namespace chunkwise::codec
