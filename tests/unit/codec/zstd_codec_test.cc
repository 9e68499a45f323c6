#include "codec/zstd_codec.h"

#include <gtest/gtest.h>
#include <zstd.h>

#include "unit/codec/codec_test_data.h"

namespace chunkwise::codec {
namespace {

std::shared_ptr<const ZstdCodec> Make(int level, bool checksum = false) {
  auto codec = ZstdCodec::Create({level, checksum});
  CHUNKWISE_CHECK(codec.ok());
  return *codec;
}

// A frame that does not record its content size, as streaming writers make.
Bytes UnknownSizeFrame(ByteView data) {
  ZSTD_CStream* stream = ZSTD_createCStream();
  ZSTD_initCStream(stream, 1);
  Bytes out(ZSTD_compressBound(data.size()) + 64);
  ZSTD_inBuffer input{data.data(), data.size(), 0};
  ZSTD_outBuffer output{out.data(), out.size(), 0};
  while (input.pos < input.size) ZSTD_compressStream(stream, &output, &input);
  while (ZSTD_endStream(stream, &output) != 0) {
  }
  ZSTD_freeCStream(stream);
  out.resize(output.pos);
  CHUNKWISE_CHECK(ZSTD_getFrameContentSize(out.data(), out.size()) == ZSTD_CONTENTSIZE_UNKNOWN);
  return out;
}

Bytes Concat(std::initializer_list<ByteView> parts) {
  Bytes out;
  for (ByteView part : parts) out.insert(out.end(), part.begin(), part.end());
  return out;
}

TEST(ZstdCodec, RoundTripLevelsAndChecksum) {
  for (std::size_t size : {0u, 1u, 1000u, 1u << 20}) {
    const Bytes data = testing::MicroscopyLike(size);
    for (int level : {-5, 0, 1, 3, 19}) {
      for (bool checksum : {false, true}) {
        const auto codec = Make(level, checksum);
        const Result<Bytes> encoded = codec->Encode(data);
        ASSERT_TRUE(encoded.ok());
        EXPECT_EQ(ZSTD_getFrameContentSize(encoded->data(), encoded->size()), size);
        const Result<Bytes> decoded = codec->Decode(*encoded, size);
        ASSERT_TRUE(decoded.ok()) << decoded.status().ToString();
        EXPECT_EQ(*decoded, data) << size << " " << level;
      }
    }
  }
}

TEST(ZstdCodec, TenMegabytesOfZerosOverOneMegabyteLimit) {
  const Bytes zeros(10'000'000, 0);
  const auto codec = Make(3);
  const Bytes known = *codec->Encode(zeros);
  EXPECT_EQ(codec->Decode(known, 1'000'000).status().code(), StatusCode::kOutOfRange);
  const Bytes unknown = UnknownSizeFrame(zeros);
  EXPECT_EQ(codec->Decode(unknown, 1'000'000).status().code(), StatusCode::kOutOfRange);
  const Result<Bytes> decoded = codec->Decode(unknown, zeros.size());
  ASSERT_TRUE(decoded.ok()) << decoded.status().ToString();
  EXPECT_EQ(*decoded, zeros);
  EXPECT_EQ(codec->Decode(unknown, zeros.size() - 1).status().code(), StatusCode::kOutOfRange);
}

TEST(ZstdCodec, DecodesConcatenatedAndSkippableFrames) {
  const auto codec = Make(1);
  const Bytes a = testing::MicroscopyLike(5000, 1), b = testing::MicroscopyLike(7000, 2);
  const Bytes frame_a = *codec->Encode(a), frame_b = *codec->Encode(b);
  const Bytes ab = Concat({a, b});
  EXPECT_EQ(*codec->Decode(Concat({frame_a, frame_b}), ab.size()), ab);
  EXPECT_EQ(codec->Decode(Concat({frame_a, frame_b}), ab.size() - 1).status().code(),
            StatusCode::kOutOfRange);
  const Bytes mixed = Concat({frame_a, UnknownSizeFrame(b)});
  EXPECT_EQ(*codec->Decode(mixed, ab.size()), ab);
  EXPECT_EQ(codec->Decode(mixed, ab.size() - 1).status().code(), StatusCode::kOutOfRange);
  // A skippable frame: magic 0x184D2A50, 4-byte size, payload.
  const Bytes skippable{0x50, 0x2A, 0x4D, 0x18, 3, 0, 0, 0, 9, 9, 9};
  EXPECT_EQ(*codec->Decode(Concat({frame_a, skippable, frame_b}), ab.size()), ab);
}

// A 17-byte frame whose header declares 4 GiB - 1 (single segment, an
// 8-byte content size) and whose one block is RLE of one byte: its blocks
// hold at most 128 KiB, so it is Corruption before anything is allocated,
// under any limit.
TEST(ZstdCodec, RefusesAFrameDeclaringMoreThanItsBlocksHold) {
  const Bytes frame{0x28, 0xB5, 0x2F, 0xFD, 0xE0, 0xFF, 0xFF, 0xFF, 0xFF,
                    0,    0,    0,    0,    0x0B, 0,    0,    0x41};
  ASSERT_EQ(ZSTD_getFrameContentSize(frame.data(), frame.size()), 0xFFFFFFFFULL);
  ASSERT_EQ(ZSTD_findFrameCompressedSize(frame.data(), frame.size()), frame.size());
  const auto codec = Make(3);
  const Status status = codec->Decode(frame, std::size_t{1} << 40).status();
  EXPECT_EQ(status.code(), StatusCode::kCorruption);
  EXPECT_NE(status.ToString().find("a frame of 17 bytes declares 4294967295 decoded bytes"),
            std::string::npos)
      << status.ToString();
  Bytes out(16);
  EXPECT_EQ(codec->DecodeInto(frame, out).status().code(), StatusCode::kCorruption);
}

TEST(ZstdCodec, RejectsEmptyTruncatedAndTrailingInput) {
  const auto codec = Make(3);
  EXPECT_EQ(codec->Decode(Bytes(), 100).status().code(), StatusCode::kCorruption);
  const Bytes data = testing::MicroscopyLike(40'000);
  for (const Bytes& encoded : {*codec->Encode(data), UnknownSizeFrame(data)}) {
    for (std::size_t size = 1; size < encoded.size(); size += 1 + size / 16) {
      EXPECT_EQ(codec->Decode(ByteView(encoded).first(size), 1 << 20).status().code(),
                StatusCode::kCorruption)
          << size;
    }
    EXPECT_FALSE(codec->Decode(Concat({encoded, Bytes{1, 2, 3}}), 1 << 20).ok());
  }
}

// A few bits are unused (e.g. frame header descriptor bit 4), so a flip either
// fails or, with the content checksum, provably changed nothing decoded.
TEST(ZstdCodec, FlippedBytesWithChecksumFailOrDecodeTheOriginal) {
  const auto codec = Make(3, /*checksum=*/true);
  const Bytes data = testing::MicroscopyLike(6000);
  const Bytes encoded = *codec->Encode(data);
  testing::ExpectEveryFlipFailsOrDecodesOriginal(*codec, encoded, data, 0x10);
}

TEST(ZstdCodec, Json) {
  const auto plain = ZstdCodec::FromJson({{"level", 3}});
  ASSERT_TRUE(plain.ok());
  EXPECT_EQ((*plain)->ToJson(),
            nlohmann::json::parse(R"({"name":"zstd","configuration":{"level":3}})"));
  const auto explicit_false = ZstdCodec::FromJson({{"level", 3}, {"checksum", false}});
  ASSERT_TRUE(explicit_false.ok());
  EXPECT_EQ((*explicit_false)->ToJson(), (*plain)->ToJson());
  const nlohmann::json with_checksum =
      nlohmann::json::parse(R"({"name":"zstd","configuration":{"level":-7,"checksum":true}})");
  const auto checked = ZstdCodec::FromJson(with_checksum["configuration"]);
  ASSERT_TRUE(checked.ok());
  EXPECT_EQ((*checked)->ToJson(), with_checksum);
  EXPECT_EQ((*ZstdCodec::FromJson(nlohmann::json::object()))->options().level, 0);
  for (const char* bad : {R"({"level":23})", R"({"level":"3"})", R"({"level":3,"checksum":1})",
                          R"({"level":3,"window":20})", R"({"level":2.5})"}) {
    const Status status = ZstdCodec::FromJson(nlohmann::json::parse(bad)).status();
    EXPECT_EQ(status.code(), StatusCode::kInvalidArgument) << bad;
  }
}

}  // namespace
}  // namespace chunkwise::codec
