#include "codec/blosc_codec.h"

#include <blosc.h>
#include <gtest/gtest.h>

#include <algorithm>

#include "unit/codec/codec_test_data.h"

namespace chunkwise::codec {
namespace {

std::shared_ptr<const BloscCodec> Make(std::string cname, int clevel, BloscShuffle shuffle,
                                       int typesize = 2) {
  auto codec = BloscCodec::Create({std::move(cname), clevel, shuffle, typesize, 0});
  CHUNKWISE_CHECK(codec.ok());
  return *codec;
}

TEST(BloscCodec, CompressorsIncludeTheCommonOnes) {
  const std::vector<std::string> names = BloscCompressors();
  for (const char* name : {"blosclz", "lz4", "lz4hc", "zlib", "zstd"}) {
    EXPECT_NE(std::find(names.begin(), names.end(), name), names.end()) << name;
  }
}

TEST(BloscCodec, RoundTripEveryCompressorAndShuffle) {
  const Bytes data = testing::MicroscopyLike(300'000);
  for (const std::string& cname : BloscCompressors()) {
    for (BloscShuffle shuffle :
         {BloscShuffle::kNoShuffle, BloscShuffle::kShuffle, BloscShuffle::kBitShuffle}) {
      const auto codec = Make(cname, 5, shuffle);
      const Result<Bytes> encoded = codec->Encode(data);
      ASSERT_TRUE(encoded.ok()) << cname;
      // Without a shuffle the noisy low bytes defeat blosclz and snappy.
      if (shuffle != BloscShuffle::kNoShuffle) {
        EXPECT_LT(encoded->size(), data.size()) << cname;
      }
      const Result<Bytes> decoded = codec->Decode(*encoded, data.size());
      ASSERT_TRUE(decoded.ok()) << cname << " " << decoded.status().ToString();
      EXPECT_EQ(*decoded, data) << cname << " " << static_cast<int>(shuffle);
    }
  }
}

TEST(BloscCodec, HeaderRecordsOptions) {
  const Bytes data = testing::MicroscopyLike(400'000);
  const Bytes encoded = *Make("zstd", 3, BloscShuffle::kBitShuffle, 2)->Encode(data);
  EXPECT_EQ(encoded[0], 2);         // Format version.
  EXPECT_EQ(encoded[2] >> 5, 4);    // zstd's header code.
  EXPECT_NE(encoded[2] & 0x04, 0);  // Bit shuffle.
  EXPECT_EQ(encoded[3], 2);         // typesize.
  EXPECT_EQ(LoadLittleEndian<std::uint32_t>(encoded.data() + 4), data.size());
  EXPECT_EQ(LoadLittleEndian<std::uint32_t>(encoded.data() + 12), encoded.size());
}

TEST(BloscCodec, SmallEmptyAndStoredInputs) {
  for (std::size_t size : {0u, 1u, 30u, 127u, 128u, 5000u}) {
    const Bytes data = testing::RandomBytes(size);
    for (int clevel : {0, 5}) {
      const auto codec = Make("lz4", clevel, BloscShuffle::kShuffle);
      const Result<Bytes> encoded = codec->Encode(data);
      ASSERT_TRUE(encoded.ok()) << size;
      const Result<Bytes> decoded = codec->Decode(*encoded, size);
      ASSERT_TRUE(decoded.ok()) << size << " " << decoded.status().ToString();
      EXPECT_EQ(*decoded, data);
    }
  }
}

TEST(BloscCodec, HeaderClaimingTooMuchIsOutOfRange) {
  const auto codec = Make("lz4", 5, BloscShuffle::kShuffle);
  const Bytes encoded = *codec->Encode(Bytes(2'000'000, 0));
  EXPECT_EQ(codec->Decode(encoded, 1'000'000).status().code(), StatusCode::kOutOfRange);
  EXPECT_TRUE(codec->Decode(encoded, 2'000'000).ok());
  // A forged header: nbytes raised to 1 GiB.
  Bytes forged = encoded;
  StoreLittleEndian<std::uint32_t>(1u << 30, forged.data() + 4);
  const Status status = codec->Decode(forged, 1 << 20).status();
  EXPECT_TRUE(status.code() == StatusCode::kOutOfRange || status.code() == StatusCode::kCorruption)
      << status.ToString();
}

// A 32-byte chunk (an lz4 header and 16 bytes) declaring 2 GiB - 17: no
// compressor of blosc's decodes more than zstd's 128 KiB a 3-byte block, so it
// is Corruption before its nbytes is allocated, under any limit (a string
// chunk's is the process's memory).
TEST(BloscCodec, RefusesAHeaderDeclaringMoreThanItsCompressorsDecode) {
  Bytes forged(32, 0);
  forged[0] = 2;     // Format version.
  forged[1] = 1;     // Compressor version.
  forged[2] = 0x20;  // lz4 (format 1 in bits 5-7), no shuffle.
  forged[3] = 1;     // Typesize.
  StoreLittleEndian<std::uint32_t>(BLOSC_MAX_BUFFERSIZE, forged.data() + 4);
  StoreLittleEndian<std::uint32_t>(BLOSC_MAX_BUFFERSIZE, forged.data() + 8);
  StoreLittleEndian<std::uint32_t>(32, forged.data() + 12);
  const auto codec = Make("lz4", 5, BloscShuffle::kNoShuffle, 1);
  const Status status = codec->Decode(forged, std::size_t{1} << 40).status();
  EXPECT_EQ(status.code(), StatusCode::kCorruption);
  EXPECT_NE(status.ToString().find("header declares 2147483631 decoded bytes, more than its "
                                   "compressors decode from a chunk of 32 bytes"),
            std::string::npos)
      << status.ToString();
  Bytes out(16);
  EXPECT_EQ(codec->DecodeInto(forged, out).status().code(), StatusCode::kCorruption);
}

// The bound is not tighter than blosc's densest compressors: 16 MiB of zeros
// decode whatever compresses them.
TEST(BloscCodec, DecodesTheDensestChunks) {
  const Bytes zeros(std::size_t{16} << 20, 0);
  for (const std::string& cname : BloscCompressors()) {
    const auto codec = Make(cname, 9, BloscShuffle::kShuffle, 4);
    const Result<Bytes> encoded = codec->Encode(zeros);
    ASSERT_TRUE(encoded.ok()) << cname;
    const Result<Bytes> decoded = codec->Decode(*encoded, zeros.size());
    ASSERT_TRUE(decoded.ok()) << cname << " " << decoded.status().ToString();
    EXPECT_EQ(*decoded, zeros) << cname;
  }
}

TEST(BloscCodec, RejectsTruncatedInput) {
  const auto codec = Make("lz4", 5, BloscShuffle::kShuffle);
  const Bytes encoded = *codec->Encode(testing::MicroscopyLike(50'000));
  for (std::size_t size = 0; size < encoded.size(); size += 1 + size / 8) {
    EXPECT_EQ(codec->Decode(ByteView(encoded).first(size), 1 << 20).status().code(),
              StatusCode::kCorruption)
        << size;
  }
  Bytes longer = encoded;
  longer.push_back(0);
  EXPECT_EQ(codec->Decode(longer, 1 << 20).status().code(), StatusCode::kCorruption);
}

TEST(BloscCodec, FlippedBytesNeverCrash) {
  // Blosc1 has no checksum: a flipped body byte may decode to other data, but
  // decoding must fail cleanly or stay within the chunk's nbytes.
  const Bytes data = testing::MicroscopyLike(20'000);
  for (const std::string& cname : BloscCompressors()) {
    const Bytes encoded = *Make(cname, 5, BloscShuffle::kShuffle)->Encode(data);
    for (std::size_t i = 0; i < encoded.size(); ++i) {
      Bytes flipped = encoded;
      flipped[i] ^= 0xA5;
      const Result<Bytes> decoded =
          Make(cname, 5, BloscShuffle::kShuffle)->Decode(flipped, 1 << 16);
      if (decoded.ok()) {
        EXPECT_LE(decoded->size(), std::size_t{1} << 16);
      }
      if (i < 16 && i != 2 && !decoded.ok()) {
        EXPECT_NE(decoded.status().code(), StatusCode::kInternal);
      }
    }
  }
}

TEST(BloscCodec, RejectsBlosc2Headers) {
  const auto codec = Make("lz4", 5, BloscShuffle::kShuffle);
  Bytes encoded = *codec->Encode(testing::MicroscopyLike(10'000));
  Bytes version3 = encoded;
  version3[0] = 3;
  EXPECT_EQ(codec->Decode(version3, 1 << 20).status().code(), StatusCode::kUnsupported);
  Bytes extended = encoded;
  extended[2] |= 0x05;
  EXPECT_EQ(codec->Decode(extended, 1 << 20).status().code(), StatusCode::kUnsupported);
}

TEST(BloscCodec, Json) {
  const nlohmann::json json = nlohmann::json::parse(
      R"({"name":"blosc","configuration":{"cname":"zstd","clevel":3,"shuffle":"bitshuffle",
          "typesize":2,"blocksize":0}})");
  const auto codec = BloscCodec::FromJson(json["configuration"]);
  ASSERT_TRUE(codec.ok()) << codec.status().ToString();
  EXPECT_EQ((*codec)->ToJson(), json);
  EXPECT_EQ((*codec)->options().shuffle, BloscShuffle::kBitShuffle);
  // typesize may be omitted with noshuffle; ToJson then writes 1.
  const auto noshuffle = BloscCodec::FromJson(
      nlohmann::json::parse(R"({"cname":"lz4","clevel":5,"shuffle":"noshuffle"})"));
  ASSERT_TRUE(noshuffle.ok());
  EXPECT_EQ((*noshuffle)->ToJson()["configuration"]["typesize"], 1);
  EXPECT_EQ((*noshuffle)->ToJson()["configuration"]["blocksize"], 0);
}

TEST(BloscCodec, RejectsBadConfiguration) {
  for (const char* bad :
       {R"({"cname":"lz5","clevel":5,"shuffle":"shuffle","typesize":2})",
        R"({"cname":"lz4","clevel":10,"shuffle":"shuffle","typesize":2})",
        R"({"cname":"lz4","clevel":5,"shuffle":1,"typesize":2})",
        R"({"cname":"lz4","clevel":5,"shuffle":"byteshuffle","typesize":2})",
        R"({"cname":"lz4","clevel":5,"shuffle":"shuffle"})",
        R"({"cname":"lz4","clevel":5,"shuffle":"shuffle","typesize":256})",
        R"({"cname":"lz4","clevel":5,"shuffle":"shuffle","typesize":2,"blocksize":-1})",
        R"({"cname":"lz4","clevel":5,"shuffle":"shuffle","typesize":2,"id":"blosc"})",
        R"({"clevel":5,"shuffle":"shuffle","typesize":2})",
        R"({"cname":"lz4","clevel":"5","shuffle":"shuffle","typesize":2})"}) {
    const Status status = BloscCodec::FromJson(nlohmann::json::parse(bad)).status();
    EXPECT_EQ(status.code(), StatusCode::kInvalidArgument) << bad;
    EXPECT_NE(status.message().find("blosc"), std::string_view::npos) << status.ToString();
  }
}

TEST(BloscCodec, DeterministicEncoderRoundTripsWithTheSameJson) {
  BloscOptions options{"lz4", 5, BloscShuffle::kShuffle, 2, 0, BloscEncoder::kDeterministic};
  const auto deterministic = BloscCodec::Create(options);
  ASSERT_TRUE(deterministic.ok()) << deterministic.status().ToString();
  EXPECT_EQ((*deterministic)->ToJson(), Make("lz4", 5, BloscShuffle::kShuffle)->ToJson());
  const Bytes data = testing::MicroscopyLike(1'000'000);
  const Result<Bytes> encoded = (*deterministic)->Encode(data);
  ASSERT_TRUE(encoded.ok());
  EXPECT_LT(encoded->size(), data.size());
  EXPECT_EQ(*(*deterministic)->Encode(data), *encoded);  // Same bytes every time.
  EXPECT_EQ(*Make("lz4", 5, BloscShuffle::kShuffle)->Decode(*encoded, data.size()), data);
  // EncodeInto with exactly the room the chunk needs gives the same bytes.
  Bytes exact(encoded->size());
  ASSERT_TRUE((*deterministic)->EncodeInto(data, exact).ok());
  EXPECT_EQ(exact, *encoded);
}

TEST(BloscCodec, DeterministicEncoderFromJsonAndClevelZero) {
  const nlohmann::json configuration = {
      {"cname", "lz4"}, {"clevel", 0}, {"shuffle", "noshuffle"}, {"typesize", 4}, {"blocksize", 0}};
  const auto codec = BloscCodec::FromJson(configuration, BloscEncoder::kDeterministic);
  ASSERT_TRUE(codec.ok()) << codec.status().ToString();
  EXPECT_EQ((*codec)->options().encoder, BloscEncoder::kDeterministic);
  const Bytes data(10'000, 5);
  const Bytes stored = *(*codec)->Encode(data);
  EXPECT_EQ(stored.size(), data.size() + 16);  // clevel 0 stores.
  EXPECT_EQ(*(*codec)->Decode(stored, data.size()), data);
}

TEST(BloscCodec, DeterministicEncoderRefusesOtherCombinations) {
  const auto refused = [](BloscOptions options, const char* field) {
    options.encoder = BloscEncoder::kDeterministic;
    const auto codec = BloscCodec::Create(options);
    ASSERT_FALSE(codec.ok()) << field;
    EXPECT_EQ(codec.status().code(), StatusCode::kInvalidArgument);
    EXPECT_NE(codec.status().message().find(field), std::string::npos) << codec.status().ToString();
    EXPECT_NE(codec.status().message().find("deterministic"), std::string::npos);
  };
  refused({"zstd", 5, BloscShuffle::kShuffle, 2, 0}, "cname");
  refused({"lz4hc", 5, BloscShuffle::kShuffle, 2, 0}, "cname");
  refused({"lz4", 5, BloscShuffle::kBitShuffle, 2, 0}, "shuffle");
  refused({"lz4", 5, BloscShuffle::kShuffle, 2, 1 << 16}, "blocksize");
}

TEST(BloscCodec, ParseBloscEncoder) {
  EXPECT_EQ(*ParseBloscEncoder("c-blosc"), BloscEncoder::kCBlosc);
  EXPECT_EQ(*ParseBloscEncoder("deterministic"), BloscEncoder::kDeterministic);
  EXPECT_FALSE(ParseBloscEncoder("lz4").ok());
}

}  // namespace
}  // namespace chunkwise::codec
