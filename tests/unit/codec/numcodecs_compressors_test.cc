#include "codec/numcodecs_compressors.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "codec/codec_registry.h"
#include "unit/codec/codec_test_data.h"

namespace chunkwise::codec {
namespace {

using nlohmann::json;

std::shared_ptr<const BytesToBytesCodec> Make(const json& codec_json) {
  Result<std::shared_ptr<const Codec>> codec = CodecRegistry::WithBuiltins().Create(codec_json);
  CHUNKWISE_CHECK(codec.ok());
  return std::dynamic_pointer_cast<const BytesToBytesCodec>(*codec);
}

// "chunkwise " six times: the input of every known encoding below.
Bytes Sample() {
  std::string text;
  for (int i = 0; i < 6; ++i) text += "chunkwise ";
  return Bytes(text.begin(), text.end());
}

// Written by numcodecs 0.17 (Zlib(1), LZ4(1), BZ2(1), LZMA() and LZMA(format=2)).
const Bytes kZlib = {0x78, 0x01, 0x4b, 0xce, 0x28, 0xcd, 0xcb, 0x2e, 0xcf, 0x2c, 0x4e,
                     0x55, 0x48, 0x26, 0x99, 0x05, 0x00, 0xd9, 0x18, 0x17, 0xa7};
const Bytes kLz4 = {0x3c, 0x00, 0x00, 0x00, 0xaf, 0x63, 0x68, 0x75, 0x6e, 0x6b, 0x77, 0x69,
                    0x73, 0x65, 0x20, 0x0a, 0x00, 0x1a, 0x50, 0x77, 0x69, 0x73, 0x65, 0x20};
const Bytes kBz2 = {0x42, 0x5a, 0x68, 0x31, 0x31, 0x41, 0x59, 0x26, 0x53, 0x59, 0x1c,
                    0x63, 0x13, 0x52, 0x00, 0x00, 0x05, 0x91, 0x80, 0x40, 0x00, 0x0a,
                    0x69, 0x0a, 0x80, 0x20, 0x00, 0x31, 0x00, 0x30, 0x11, 0x50, 0x0f,
                    0x29, 0x91, 0xc0, 0xf8, 0x74, 0x34, 0x60, 0xd1, 0x83, 0x06, 0x8f,
                    0xc5, 0xdc, 0x91, 0x4e, 0x14, 0x24, 0x07, 0x18, 0xc4, 0xd4, 0x80};
const Bytes kXz = {
    0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00, 0x00, 0x04, 0xe6, 0xd6, 0xb4, 0x46, 0x02, 0x00, 0x21, 0x01,
    0x16, 0x00, 0x00, 0x00, 0x74, 0x2f, 0xe5, 0xa3, 0xe0, 0x00, 0x3b, 0x00, 0x11, 0x5d, 0x00, 0x31,
    0x9a, 0x0b, 0x11, 0x9f, 0x1a, 0xe5, 0x2d, 0xfa, 0xc4, 0x14, 0x0e, 0x79, 0xf4, 0xa8, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x54, 0x0b, 0xb2, 0x42, 0xe6, 0xec, 0x86, 0x15, 0x00, 0x01, 0x2d, 0x3c,
    0x43, 0x93, 0xc3, 0x2f, 0x1f, 0xb6, 0xf3, 0x7d, 0x01, 0x00, 0x00, 0x00, 0x00, 0x04, 0x59, 0x5a};
const Bytes kLzmaAlone = {0x5d, 0x00, 0x00, 0x80, 0x00, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
                          0xff, 0x00, 0x31, 0x9a, 0x0b, 0x11, 0x9f, 0x1a, 0xe5, 0x2d, 0xfa, 0xc4,
                          0x14, 0x0e, 0x7a, 0x0a, 0x9f, 0x37, 0xff, 0xff, 0xf5, 0xac, 0x80, 0x00};

struct Known {
  json codec;
  Bytes encoded;
  bool same_bytes;  // Our encoder writes these very bytes (the same library call).
};

std::vector<Known> KnownEncodings() {
  return {{{{"name", "numcodecs.zlib"}, {"configuration", {{"level", 1}}}}, kZlib, true},
          {{{"name", "numcodecs.lz4"}, {"configuration", {{"acceleration", 1}}}}, kLz4, false},
          {{{"name", "numcodecs.bz2"}, {"configuration", {{"level", 1}}}}, kBz2, true},
          {{{"name", "numcodecs.lzma"}}, kXz, false},
          {{{"name", "numcodecs.lzma"}, {"configuration", {{"format", 2}}}}, kLzmaAlone, false}};
}

TEST(NumcodecsCompressors, DecodeWhatNumcodecsWrote) {
  for (const Known& known : KnownEncodings()) {
    const auto codec = Make(known.codec);
    const Result<Bytes> decoded = codec->Decode(known.encoded, 1 << 20);
    ASSERT_TRUE(decoded.ok()) << known.codec << ": " << decoded.status().ToString();
    EXPECT_EQ(*decoded, Sample()) << known.codec;
    if (known.same_bytes) {
      const Result<Bytes> encoded = codec->Encode(Sample());
      ASSERT_TRUE(encoded.ok());
      EXPECT_EQ(*encoded, known.encoded) << known.codec;
    }
    // The lzma format 0 (auto) reads either container.
    if (known.codec["name"] == "numcodecs.lzma") {
      const auto automatic = Make({{"name", "numcodecs.lzma"}, {"configuration", {{"format", 0}}}});
      EXPECT_EQ(*automatic->Decode(known.encoded, 1 << 20), Sample());
    }
  }
}

TEST(NumcodecsCompressors, RoundTripAndLimits) {
  const std::vector<json> codecs = {
      {{"name", "numcodecs.zlib"}, {"configuration", {{"level", 9}}}},
      {{"name", "numcodecs.zlib"}, {"configuration", {{"level", -1}}}},
      {{"name", "numcodecs.lz4"}, {"configuration", {{"acceleration", 5}}}},
      {{"name", "numcodecs.bz2"}, {"configuration", {{"level", 9}}}},
      {{"name", "numcodecs.lzma"}, {"configuration", {{"preset", 1}, {"check", 0}}}},
      {{"name", "numcodecs.shuffle"}, {"configuration", {{"elementsize", 2}}}}};
  for (const json& codec_json : codecs) {
    const auto codec = Make(codec_json);
    for (std::size_t size : {0u, 2u, 4096u, 300000u}) {
      const Bytes data = testing::MicroscopyLike(size);
      const Result<Bytes> encoded = codec->Encode(data);
      ASSERT_TRUE(encoded.ok()) << codec_json << " " << size << encoded.status().ToString();
      const Result<Bytes> decoded = codec->Decode(*encoded, size);
      ASSERT_TRUE(decoded.ok()) << codec_json << " " << size << decoded.status().ToString();
      EXPECT_EQ(*decoded, data) << codec_json << " " << size;
      if (size > 0) {
        // One byte short of the decoded size: refused, whatever the codec.
        const Result<Bytes> over = codec->Decode(*encoded, size - 1);
        EXPECT_EQ(over.status().code(), StatusCode::kOutOfRange) << codec_json << " " << size;
      }
    }
    EXPECT_EQ(codec->ToJson()["name"], codec_json["name"]);
  }
}

TEST(NumcodecsCompressors, MalformedInputIsCorruption) {
  for (const Known& known : KnownEncodings()) {
    const auto codec = Make(known.codec);
    for (std::size_t cut : {std::size_t{0}, std::size_t{3}, known.encoded.size() - 1}) {
      const Bytes truncated(known.encoded.begin(),
                            known.encoded.begin() + static_cast<std::ptrdiff_t>(cut));
      EXPECT_EQ(codec->Decode(truncated, 1 << 20).status().code(), StatusCode::kCorruption)
          << known.codec << " cut at " << cut;
    }
    Bytes garbage = known.encoded;
    garbage.push_back(0x55);
    if (known.codec["name"] != "numcodecs.lz4") {  // lz4 blocks have no end marker.
      EXPECT_EQ(codec->Decode(garbage, 1 << 20).status().code(), StatusCode::kCorruption)
          << known.codec << " with a trailing byte";
    }
  }
}

// A header declaring 2 GiB - 32 MiB (LZ4's most) over a 2-byte block (one
// literal): LZ4 decodes at most 255 bytes a byte, so it is Corruption before
// the declared size is allocated, under any limit (a string chunk's is the
// process's memory).
TEST(NumcodecsCompressors, Lz4RefusesAHeaderDeclaringMoreThanItsBlockDecodesTo) {
  const auto lz4 = Make({{"name", "numcodecs.lz4"}});
  const Bytes forged = {0x00, 0x00, 0x00, 0x7e, 0x10, 'a'};
  for (const std::size_t limit : {std::size_t{1000}, std::size_t{1} << 40}) {
    const Status status = lz4->Decode(forged, limit).status();
    EXPECT_EQ(status.code(), StatusCode::kCorruption);
    EXPECT_NE(status.ToString().find("header declares 2113929216 decoded bytes, more than an "
                                     "LZ4 block of 2 bytes decodes to"),
              std::string::npos)
        << status.ToString();
  }
  // The bound is not tighter than LZ4: 16 MiB of zeros (near 255 to 1) decode.
  const Bytes zeros(std::size_t{16} << 20, 0);
  const Bytes encoded = *lz4->Encode(zeros);
  EXPECT_GT(zeros.size() / encoded.size(), 200u);
  const Result<Bytes> decoded = lz4->Decode(encoded, zeros.size());
  ASSERT_TRUE(decoded.ok()) << decoded.status().ToString();
  EXPECT_EQ(*decoded, zeros);
}

// A .lzma header naming a dictionary of 4 GiB - 1 and 8 bytes after it:
// liblzma allocates the dictionary a header names before it decodes, so past
// the allowance (128 MiB, every preset's) a dictionary larger than the input
// could decode to (64 KiB a byte) is refused before it is allocated, under any
// limit (a string chunk's is the process's memory).
TEST(NumcodecsCompressors, LzmaRefusesADictionaryPastWhatItsInputCouldNeed) {
  Bytes forged = {0x5d, 0xff, 0xff, 0xff, 0xff};
  forged.resize(13, 0xff);  // Unknown decoded size.
  forged.resize(21, 0);
  for (const int format : {0, 2}) {
    const auto lzma = Make({{"name", "numcodecs.lzma"}, {"configuration", {{"format", format}}}});
    const Status status = lzma->Decode(forged, std::size_t{1} << 40).status();
    EXPECT_EQ(status.code(), StatusCode::kOutOfRange) << status.ToString();
    EXPECT_NE(status.ToString().find("bytes of decoder memory, more than the 135593984 allowed "
                                     "for 21 bytes of input"),
              std::string::npos)
        << status.ToString();
  }
}

TEST(NumcodecsCompressors, ConcatenatedStreams) {
  const auto bz2 = Make({{"name", "numcodecs.bz2"}});
  Bytes twice = kBz2;
  twice.insert(twice.end(), kBz2.begin(), kBz2.end());
  Bytes expected = Sample();
  expected.insert(expected.end(), expected.begin(), expected.end());
  EXPECT_EQ(*bz2->Decode(twice, 1 << 20), expected);
  const auto xz = Make({{"name", "numcodecs.lzma"}});
  twice = kXz;
  twice.insert(twice.end(), kXz.begin(), kXz.end());
  EXPECT_EQ(*xz->Decode(twice, 1 << 20), expected);
}

TEST(NumcodecsShuffle, KnownBytes) {
  // numcodecs.Shuffle(4).encode(arange(16, dtype=u1)) and Shuffle(3) of arange(12).
  Bytes input(16);
  for (std::size_t i = 0; i < input.size(); ++i) input[i] = static_cast<std::uint8_t>(i);
  const Bytes four = {0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15};
  EXPECT_EQ(*Make({{"name", "numcodecs.shuffle"}})->Encode(input), four);
  EXPECT_EQ(*Make({{"name", "numcodecs.shuffle"}})->Decode(four, 16), input);
  input.resize(12);
  const auto three = Make({{"name", "numcodecs.shuffle"}, {"configuration", {{"elementsize", 3}}}});
  EXPECT_EQ(*three->Encode(input), (Bytes{0, 3, 6, 9, 1, 4, 7, 10, 2, 5, 8, 11}));
  EXPECT_EQ(three->Decode(Bytes(13), 100).status().code(), StatusCode::kCorruption);
  EXPECT_EQ(three->Decode(Bytes(12), 11).status().code(), StatusCode::kOutOfRange);
}

TEST(NumcodecsCompressors, Configurations) {
  const CodecRegistry registry = CodecRegistry::WithBuiltins();
  // Defaults are numcodecs' and are written out.
  EXPECT_EQ(Make({{"name", "numcodecs.zlib"}})->ToJson()["configuration"], json({{"level", 1}}));
  EXPECT_EQ(Make({{"name", "numcodecs.lzma"}})->ToJson()["configuration"],
            json::parse(R"({"format": 1, "check": -1, "preset": null, "filters": null})"));
  EXPECT_EQ(registry.Create({{"name", "numcodecs.zlib"}, {"configuration", {{"level", 10}}}})
                .status()
                .code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(registry.Create({{"name", "numcodecs.bz2"}, {"configuration", {{"level", 0}}}})
                .status()
                .code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(registry
                .Create({{"name", "numcodecs.lzma"},
                         {"configuration", {{"filters", json::array({{{"id", 33}}})}}}})
                .status()
                .code(),
            StatusCode::kUnsupported);
  EXPECT_EQ(registry.Create({{"name", "numcodecs.lzma"}, {"configuration", {{"format", 3}}}})
                .status()
                .code(),
            StatusCode::kUnsupported);
  // Writing .lzma ("alone") is not offered; reading it is.
  const auto alone = Make({{"name", "numcodecs.lzma"}, {"configuration", {{"format", 2}}}});
  EXPECT_EQ(alone->Encode(Sample()).status().code(), StatusCode::kUnsupported);
  const Result<std::shared_ptr<const Codec>> unknown =
      registry.Create({{"name", "numcodecs.jenkins_lookup3"}});
  EXPECT_EQ(unknown.status().code(), StatusCode::kUnsupported);
  EXPECT_NE(unknown.status().message().find("numcodecs.jenkins_lookup3"), std::string::npos);
}

}  // namespace
}  // namespace chunkwise::codec
