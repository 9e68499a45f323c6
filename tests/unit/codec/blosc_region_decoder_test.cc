// BloscCodec::DecodeIntoRegion against c-blosc's own decode followed by a
// strided copy: the same bytes in the same places, for every layout it
// takes on, and "not handled" (nothing written) for those it leaves to c-blosc.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "codec/blosc_codec.h"
#include "unit/codec/codec_test_data.h"

namespace chunkwise::codec {
namespace {

using core::DataType;
using core::DataTypeId;
using core::Region;
using core::Shape;

constexpr std::uint8_t kUntouched = 0xA5;

std::shared_ptr<const BloscCodec> Make(BloscOptions options) {
  auto codec = BloscCodec::Create(std::move(options));
  CHUNKWISE_CHECK(codec.ok());
  return *codec;
}

DataType TypeOfSize(std::size_t size) {
  switch (size) {
    case 1:
      return DataType(DataTypeId::kUInt8);
    case 2:
      return DataType(DataTypeId::kUInt16);
    case 4:
      return DataType(DataTypeId::kUInt32);
    default:
      return DataType(DataTypeId::kFloat64);
  }
}

// A destination larger than the chunk on every side, the chunk's box at
// (1, 2, 3, 1, 2, 3, ...), starting `misalign` bytes into its buffer: 0 puts
// the rows of 64³ chunks on 16-byte boundaries, 1 none of them.
struct Destination {
  Destination(const Shape& chunk_shape, std::size_t element_size, std::size_t misalign)
      : shape(chunk_shape), origin(chunk_shape.size()), misalign(misalign) {
    std::size_t elements = 1;
    for (std::size_t d = 0; d < shape.size(); ++d) {
      origin[d] = static_cast<core::Index>(1 + d % 3);
      shape[d] += (d % 3 == 2) ? 5 : origin[d] + 1;
      elements *= static_cast<std::size_t>(shape[d]);
    }
    bytes.assign(elements * element_size + misalign, kUntouched);
  }
  core::StridedDestination Target(bool streaming) {
    return {bytes.data() + misalign, shape, origin, streaming};
  }
  Shape shape;
  Shape origin;
  std::size_t misalign;
  Bytes bytes;
};

// What c-blosc's decode and a strided copy of `box` give.
Bytes Expected(const BloscCodec& codec, const Bytes& encoded, const ChunkSpec& spec,
               const Region& box, std::size_t misalign) {
  Destination expected(spec.shape, spec.dtype.size(), misalign);
  const Result<Bytes> decoded = codec.Decode(encoded, spec.num_bytes());
  CHUNKWISE_CHECK(decoded.ok());
  core::CopyStridedRegion({decoded->data(), spec.shape, box.start()}, expected.Target(false),
                          box.shape(), spec.dtype.size());
  return expected.bytes;
}

// The whole chunk, then boxes a region read cuts out of it: for 3-d chunks
// one plane, an inner box, one column, the last element; for other ranks an
// inner box and the last element.
std::vector<Region> Boxes(const Shape& c) {
  if (c.size() == 3) {
    return {Region::Full(c), Region({c[0] / 2, 0, 0}, {c[0] / 2 + 1, c[1], c[2]}),
            Region({c[0] > 2 ? 1 : 0, 1, 3}, {c[0] > 2 ? c[0] - 1 : c[0], c[1], c[2] - 2}),
            Region({0, 0, c[2] / 3}, {c[0], c[1], c[2] / 3 + 1}),
            Region({c[0] - 1, c[1] - 1, c[2] - 1}, c)};
  }
  core::Coord inner_start(c.size()), inner_stop(c), last(c.size());
  for (std::size_t d = 0; d < c.size(); ++d) {
    if (c[d] > 2) inner_start[d] = 1, inner_stop[d] = c[d] - 1;
    last[d] = c[d] - 1;
  }
  return {Region::Full(c), Region(inner_start, inner_stop), Region(last, c)};
}

struct Case {
  std::size_t element_size;
  BloscShuffle shuffle;
  int clevel;
  Shape chunk_shape;
  BloscEncoder encoder = BloscEncoder::kCBlosc;
};

std::string Describe(const Case& c) {
  return "element " + std::to_string(c.element_size) + " shuffle " +
         std::to_string(static_cast<int>(c.shuffle)) + " clevel " + std::to_string(c.clevel) +
         " chunk [" + core::FormatShape(c.chunk_shape) + "]" +
         (c.encoder == BloscEncoder::kDeterministic ? " deterministic" : "");
}

// Decodes each box of `c` both ways, streamed and not, into aligned and
// unaligned destinations, and expects equal destinations.
void ExpectSameAsCBlosc(const Case& c) {
  SCOPED_TRACE(Describe(c));
  const ChunkSpec spec{TypeOfSize(c.element_size), c.chunk_shape};
  const auto codec = Make({.cname = "lz4",
                           .clevel = c.clevel,
                           .shuffle = c.shuffle,
                           .typesize = static_cast<int>(c.element_size),
                           .encoder = c.encoder});
  const Bytes data = testing::MicroscopyLike(spec.num_bytes(), 3);
  const Result<Bytes> encoded = codec->Encode(data);
  ASSERT_TRUE(encoded.ok());
  for (const Region& box : Boxes(spec.shape)) {
    for (const std::size_t misalign : {0, 1}) {
      const Bytes expected = Expected(*codec, *encoded, spec, box, misalign);
      for (const bool streaming : {false, true}) {
        Destination got(spec.shape, spec.dtype.size(), misalign);
        const Result<bool> handled =
            codec->DecodeIntoRegion(*encoded, spec, box, got.Target(streaming));
        ASSERT_TRUE(handled.ok()) << handled.status().ToString();
        EXPECT_TRUE(*handled);
        EXPECT_EQ(got.bytes, expected) << "box " << box.ToString() << " streaming " << streaming
                                       << " misaligned by " << misalign;
      }
    }
  }
}

TEST(BloscRegionDecoder, MatchesCBloscForEveryElementSizeShuffleAndLevel) {
  for (const std::size_t element_size : {1, 2, 4, 8}) {
    for (const BloscShuffle shuffle : {BloscShuffle::kNoShuffle, BloscShuffle::kShuffle}) {
      for (const int clevel : {0, 1, 5, 9}) {
        // 64³ uint16 is the benchmark's chunk; 9×11×64 leaves a partial last block.
        for (const Shape& chunk : {Shape{64, 64, 64}, Shape{9, 11, 64}, Shape{2, 3, 40}}) {
          ExpectSameAsCBlosc({element_size, shuffle, clevel, chunk});
        }
      }
    }
  }
}

TEST(BloscRegionDecoder, MatchesCBloscForChunksOfOtherRanks) {
  for (const std::size_t element_size : {2, 8}) {
    for (const BloscShuffle shuffle : {BloscShuffle::kNoShuffle, BloscShuffle::kShuffle}) {
      // A 1-d chunk is one row; a 5-d chunk's rows run along dimension 3.
      for (const Shape& chunk :
           {Shape{1000}, Shape{48, 64}, Shape{3, 4, 5, 64}, Shape{2, 3, 4, 5, 16}}) {
        ExpectSameAsCBlosc({element_size, shuffle, 5, chunk});
      }
    }
  }
}

TEST(BloscRegionDecoder, MatchesCBloscForTheDeterministicEncoder) {
  for (const std::size_t element_size : {2, 4}) {
    for (const BloscShuffle shuffle : {BloscShuffle::kNoShuffle, BloscShuffle::kShuffle}) {
      ExpectSameAsCBlosc(
          {element_size, shuffle, 5, Shape{20, 30, 64}, BloscEncoder::kDeterministic});
    }
  }
}

// Layouts it leaves to c-blosc: nothing may be written.
void ExpectNotHandled(const BloscOptions& options, const ChunkSpec& spec) {
  const auto codec = Make(options);
  const Result<Bytes> encoded = codec->Encode(testing::MicroscopyLike(spec.num_bytes()));
  ASSERT_TRUE(encoded.ok());
  Destination got(spec.shape, spec.dtype.size(), 1);
  const Result<bool> handled =
      codec->DecodeIntoRegion(*encoded, spec, Region::Full(spec.shape), got.Target(true));
  ASSERT_TRUE(handled.ok()) << handled.status().ToString();
  EXPECT_FALSE(*handled);
  EXPECT_EQ(got.bytes, Bytes(got.bytes.size(), kUntouched));
}

TEST(BloscRegionDecoder, LeavesOtherLayoutsToCBlosc) {
  const ChunkSpec uint16_chunk{DataType(DataTypeId::kUInt16), {16, 16, 64}};
  {
    SCOPED_TRACE("zstd inside blosc");
    ExpectNotHandled({.cname = "zstd", .clevel = 3, .typesize = 2}, uint16_chunk);
  }
  {
    SCOPED_TRACE("bit shuffle");
    ExpectNotHandled({.shuffle = BloscShuffle::kBitShuffle, .typesize = 2}, uint16_chunk);
  }
  {
    SCOPED_TRACE("a shuffle typesize other than the element size");
    ExpectNotHandled({.typesize = 4}, uint16_chunk);
  }
  {
    SCOPED_TRACE("64 KiB blocks, which rows of 96 bytes straddle");
    ExpectNotHandled({.typesize = 2, .encoder = BloscEncoder::kDeterministic},
                     {DataType(DataTypeId::kUInt16), {32, 32, 48}});
  }
}

// A valid 64³ uint16 chunk to damage.
struct Damaged {
  ChunkSpec spec{DataType(DataTypeId::kUInt16), {64, 64, 64}};
  std::shared_ptr<const BloscCodec> codec = Make({.typesize = 2});
  Bytes encoded = *codec->Encode(testing::MicroscopyLike(spec.num_bytes()));

  Status Decode() const {
    Destination got(spec.shape, spec.dtype.size(), 1);
    return codec->DecodeIntoRegion(encoded, spec, Region::Full(spec.shape), got.Target(false))
        .status();
  }
};

TEST(BloscRegionDecoder, RejectsABlockStartOutsideTheChunk) {
  Damaged chunk;
  StoreLittleEndian<std::uint32_t>(static_cast<std::uint32_t>(chunk.encoded.size()) + 1,
                                   chunk.encoded.data() + 16);
  const Status status = chunk.Decode();
  EXPECT_EQ(status.code(), StatusCode::kCorruption);
  EXPECT_NE(status.message().find("block 0 starts outside the chunk"), std::string::npos)
      << status.ToString();
}

TEST(BloscRegionDecoder, RejectsAStreamSizePastTheEnd) {
  Damaged chunk;
  const std::uint32_t first_block = LoadLittleEndian<std::uint32_t>(chunk.encoded.data() + 16);
  StoreLittleEndian<std::uint32_t>(1u << 30, chunk.encoded.data() + first_block);
  const Status status = chunk.Decode();
  EXPECT_EQ(status.code(), StatusCode::kCorruption);
  EXPECT_NE(status.message().find("stream size past the end"), std::string::npos)
      << status.ToString();
}

TEST(BloscRegionDecoder, RejectsAStreamThatDecodesShort) {
  Damaged chunk;
  const std::uint32_t first_block = LoadLittleEndian<std::uint32_t>(chunk.encoded.data() + 16);
  // One byte fewer: the LZ4 stream ends early.
  const std::uint32_t size = LoadLittleEndian<std::uint32_t>(chunk.encoded.data() + first_block);
  StoreLittleEndian<std::uint32_t>(size - 1, chunk.encoded.data() + first_block);
  const Status status = chunk.Decode();
  EXPECT_EQ(status.code(), StatusCode::kCorruption);
  EXPECT_NE(status.message().find("does not decode to"), std::string::npos) << status.ToString();
}

// A box that meets only the first block does not decompress the second, so
// damage there goes unseen; the whole chunk sees it.
TEST(BloscRegionDecoder, DecompressesOnlyTheBlocksTheBoxMeets) {
  Damaged chunk;  // Two blocks of 32 planes (c-blosc's 256 KiB for this chunk).
  ASSERT_EQ(LoadLittleEndian<std::uint32_t>(chunk.encoded.data() + 8), 256u * 1024u);
  const std::uint32_t second_block = LoadLittleEndian<std::uint32_t>(chunk.encoded.data() + 20);
  StoreLittleEndian<std::uint32_t>(1u << 30, chunk.encoded.data() + second_block);
  Destination got(chunk.spec.shape, 2, 1);
  const Region first_planes({0, 0, 0}, {32, 64, 64});
  const Result<bool> handled =
      chunk.codec->DecodeIntoRegion(chunk.encoded, chunk.spec, first_planes, got.Target(false));
  ASSERT_TRUE(handled.ok()) << handled.status().ToString();
  EXPECT_TRUE(*handled);
  Damaged intact;
  EXPECT_EQ(got.bytes, Expected(*intact.codec, intact.encoded, intact.spec, first_planes, 1));
  EXPECT_EQ(chunk.Decode().code(), StatusCode::kCorruption);
}

TEST(BloscRegionDecoder, RejectsATruncatedChunkAndAWrongSize) {
  Damaged chunk;
  chunk.encoded.resize(chunk.encoded.size() - 10);
  EXPECT_EQ(chunk.Decode().code(), StatusCode::kCorruption);  // cbytes no longer matches.
  Damaged other;
  other.spec.shape = {64, 64, 32};  // The chunk holds twice what this spec says.
  EXPECT_FALSE(other.Decode().ok());
}

// Flips every byte of the header and block table and every `step`-th byte
// after them: each decode must fail, leave the chunk to c-blosc, or give what
// c-blosc gives for the same bytes.
void ExpectFlipsFailOrDecodeLikeCBlosc(const BloscCodec& codec, const ChunkSpec& spec,
                                       std::size_t step) {
  const Bytes encoded = *codec.Encode(testing::MicroscopyLike(spec.num_bytes()));
  const std::size_t table_end = 16 + 4 * LoadLittleEndian<std::uint32_t>(encoded.data() + 4) /
                                         LoadLittleEndian<std::uint32_t>(encoded.data() + 8);
  for (std::size_t i = 0; i < encoded.size(); i += i < table_end ? 1 : step) {
    Bytes flipped = encoded;
    flipped[i] ^= 0x5A;
    Destination got(spec.shape, spec.dtype.size(), 1);
    const Result<bool> handled =
        codec.DecodeIntoRegion(flipped, spec, Region::Full(spec.shape), got.Target(false));
    if (!handled.ok() || !*handled) continue;
    const Result<Bytes> decoded = codec.Decode(flipped, spec.num_bytes());
    ASSERT_TRUE(decoded.ok()) << "flipped byte " << i << ": " << decoded.status().ToString();
    EXPECT_EQ(got.bytes, Expected(codec, flipped, spec, Region::Full(spec.shape), 1))
        << "flipped byte " << i;
  }
}

TEST(BloscRegionDecoder, EveryByteFlipFailsOrDecodesLikeCBlosc) {
  ExpectFlipsFailOrDecodeLikeCBlosc(*Make({.typesize = 2}),
                                    {DataType(DataTypeId::kUInt16), {4, 8, 64}}, 1);
  // Two 64 KiB blocks, split into two streams each.
  ExpectFlipsFailOrDecodeLikeCBlosc(*Make({.typesize = 2, .encoder = BloscEncoder::kDeterministic}),
                                    {DataType(DataTypeId::kUInt16), {32, 32, 64}}, 13);
}

}  // namespace
}  // namespace chunkwise::codec
