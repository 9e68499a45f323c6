#include "codec/gzip_codec.h"

#include <gtest/gtest.h>
#include <zlib.h>

#include "unit/codec/codec_test_data.h"

namespace chunkwise::codec {
namespace {

std::shared_ptr<const GzipCodec> Make(int level) {
  auto codec = GzipCodec::Create(level);
  CHUNKWISE_CHECK(codec.ok());
  return *codec;
}

// A gzip member (window_bits 15 + 16) or zlib stream (15) written by zlib.
Bytes ZlibDeflate(ByteView data, int window_bits) {
  z_stream stream{};
  deflateInit2(&stream, 6, Z_DEFLATED, window_bits, 8, Z_DEFAULT_STRATEGY);
  Bytes out(deflateBound(&stream, data.size()) + 32);
  stream.next_in = const_cast<Bytef*>(data.data());
  stream.avail_in = static_cast<uInt>(data.size());
  stream.next_out = out.data();
  stream.avail_out = static_cast<uInt>(out.size());
  CHUNKWISE_CHECK(deflate(&stream, Z_FINISH) == Z_STREAM_END);
  out.resize(stream.total_out);
  deflateEnd(&stream);
  return out;
}

Bytes Concat(std::initializer_list<ByteView> parts) {
  Bytes out;
  for (ByteView part : parts) out.insert(out.end(), part.begin(), part.end());
  return out;
}

TEST(GzipCodec, RoundTripEveryLevel) {
  for (std::size_t size : {0u, 1u, 1000u, 1u << 20}) {
    const Bytes data = testing::MicroscopyLike(size);
    for (int level = 0; level <= 9; ++level) {
      const auto codec = Make(level);
      const Result<Bytes> encoded = codec->Encode(data);
      ASSERT_TRUE(encoded.ok());
      ASSERT_GE(encoded->size(), 18u);
      EXPECT_EQ((*encoded)[0], 0x1f);  // gzip magic and method 8 (deflate).
      EXPECT_EQ((*encoded)[1], 0x8b);
      EXPECT_EQ((*encoded)[2], 8);
      const Result<Bytes> decoded = codec->Decode(*encoded, size);
      ASSERT_TRUE(decoded.ok()) << decoded.status().ToString();
      EXPECT_EQ(*decoded, data) << size << " " << level;
    }
  }
}

TEST(GzipCodec, DecodesZlibWrittenAndMultiMemberData) {
  const auto codec = Make(6);
  const Bytes a = testing::MicroscopyLike(30'000, 1), b = testing::MicroscopyLike(1000, 2);
  EXPECT_EQ(*codec->Decode(ZlibDeflate(a, 15 + 16), a.size()), a);
  const Bytes ab = Concat({a, b});
  const Bytes two_members = Concat({*codec->Encode(a), ZlibDeflate(b, 15 + 16)});
  const Result<Bytes> decoded = codec->Decode(two_members, ab.size());
  ASSERT_TRUE(decoded.ok()) << decoded.status().ToString();
  EXPECT_EQ(*decoded, ab);
  EXPECT_EQ(codec->Decode(two_members, ab.size() - 1).status().code(), StatusCode::kOutOfRange);
}

TEST(GzipCodec, OverLimitIsOutOfRange) {
  const auto codec = Make(6);
  const Bytes zeros(10'000'000, 0);
  const Bytes encoded = *codec->Encode(zeros);
  EXPECT_EQ(codec->Decode(encoded, 1'000'000).status().code(), StatusCode::kOutOfRange);
  // The last member's ISIZE is small, so only the capped fallback sees the excess.
  const Bytes hidden = Concat({encoded, *codec->Encode(Bytes(10, 1))});
  EXPECT_EQ(codec->Decode(hidden, 1'000'000).status().code(), StatusCode::kOutOfRange);
}

TEST(GzipCodec, RejectsZlibStreamsTruncationAndForgedTrailers) {
  const auto codec = Make(6);
  const Bytes data = testing::MicroscopyLike(20'000);
  EXPECT_EQ(codec->Decode(ZlibDeflate(data, 15), 1 << 20).status().code(), StatusCode::kCorruption);
  const Bytes encoded = *codec->Encode(data);
  for (std::size_t size = 0; size < encoded.size(); size += 1 + size / 16) {
    const Status status = codec->Decode(ByteView(encoded).first(size), 1 << 20).status();
    EXPECT_TRUE(status.code() == StatusCode::kCorruption ||
                status.code() == StatusCode::kOutOfRange)
        << size << " " << status.ToString();
  }
  Bytes forged = encoded;  // ISIZE one smaller than the truth.
  StoreLittleEndian<std::uint32_t>(data.size() - 1, forged.data() + forged.size() - 4);
  EXPECT_EQ(codec->Decode(forged, 1 << 20).status().code(), StatusCode::kCorruption);
  EXPECT_EQ(codec->Decode(Concat({encoded, Bytes(8, 0)}), 1 << 20).status().code(),
            StatusCode::kCorruption);
}

// A 20-byte member (an empty final block) whose trailer declares 4 GiB - 1:
// deflate decodes at most 1032 bytes a byte, so it is Corruption before its
// ISIZE is allocated, under any limit (a string chunk's is the process's
// memory).
TEST(GzipCodec, RefusesATrailerDeclaringMoreThanDeflateDecodes) {
  const Bytes member{0x1f, 0x8b, 8, 0, 0, 0, 0,    0,    0,    3,
                     0x03, 0x00, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff};
  const Status status = Make(6)->Decode(member, std::size_t{1} << 40).status();
  EXPECT_EQ(status.code(), StatusCode::kCorruption);
  EXPECT_NE(status.ToString().find("the trailer declares 4294967295 decoded bytes, more than "
                                   "deflate can decode from 20 bytes of input"),
            std::string::npos)
      << status.ToString();
}

// The bound is not tighter than deflate: 16 MiB of zeros, as dense as zlib
// and libdeflate write them (over 950 to 1 of at most 1032), decode.
TEST(GzipCodec, DecodesTheDensestMembers) {
  const Bytes zeros(std::size_t{16} << 20, 0);
  for (const Bytes& encoded : {*Make(9)->Encode(zeros), ZlibDeflate(zeros, 15 + 16)}) {
    EXPECT_GT(zeros.size() / encoded.size(), 950u);
    const Result<Bytes> decoded = Make(6)->Decode(encoded, zeros.size());
    ASSERT_TRUE(decoded.ok()) << decoded.status().ToString();
    EXPECT_EQ(*decoded, zeros);
  }
}

// Header bytes 4-9 (MTIME, XFL, OS) are checked by no one, and some deflate
// bits are redundant; the CRC32 and ISIZE trailer catch every other change.
TEST(GzipCodec, FlippedBytesFailOrDecodeTheOriginal) {
  const auto codec = Make(6);
  const Bytes data = testing::MicroscopyLike(6000);
  const Bytes encoded = *codec->Encode(data);
  testing::ExpectEveryFlipFailsOrDecodesOriginal(*codec, encoded, data, 0x01);
}

TEST(GzipCodec, Json) {
  const nlohmann::json json =
      nlohmann::json::parse(R"({"name":"gzip","configuration":{"level":1}})");
  const auto codec = GzipCodec::FromJson(json["configuration"]);
  ASSERT_TRUE(codec.ok());
  EXPECT_EQ((*codec)->level(), 1);
  EXPECT_EQ((*codec)->ToJson(), json);
  for (const char* bad : {R"({})", R"({"level":10})", R"({"level":-1})", R"({"level":"1"})",
                          R"({"level":1,"wbits":15})"}) {
    const Status status = GzipCodec::FromJson(nlohmann::json::parse(bad)).status();
    EXPECT_EQ(status.code(), StatusCode::kInvalidArgument) << bad;
    EXPECT_NE(status.message().find("level"), std::string_view::npos) << status.ToString();
  }
}

}  // namespace
}  // namespace chunkwise::codec
