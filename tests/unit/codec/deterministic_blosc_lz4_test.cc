#include "codec/deterministic_blosc_lz4.h"

#include <blosc.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "codec/blosc_lz4_layout.h"
#include "codec/crc32c.h"
#include "unit/codec/codec_test_data.h"

namespace chunkwise::codec {

namespace {

struct Header {
  std::uint8_t version, versionlz, flags, typesize;
  std::uint32_t nbytes, blocksize, cbytes;
};

Header ReadHeader(const Bytes& chunk) {
  CHUNKWISE_CHECK(chunk.size() >= 16);
  return {chunk[0],
          chunk[1],
          chunk[2],
          chunk[3],
          LoadLittleEndian<std::uint32_t>(chunk.data() + 4),
          LoadLittleEndian<std::uint32_t>(chunk.data() + 8),
          LoadLittleEndian<std::uint32_t>(chunk.data() + 12)};
}

Bytes EncodeOrDie(const Bytes& input, int typesize, bool shuffle,
                  core::ThreadPool* pool = nullptr) {
  Result<Bytes> chunk = EncodeDeterministicBloscLz4(input, {typesize, shuffle, false}, pool);
  CHUNKWISE_CHECK(chunk.ok());
  return *std::move(chunk);
}

// c-blosc's own decoder, with its own header validation.
Bytes DecodeWithCBlosc(const Bytes& chunk) {
  std::size_t nbytes = 0;
  EXPECT_EQ(blosc_cbuffer_validate(chunk.data(), chunk.size(), &nbytes), 0);
  Bytes decoded(nbytes);
  const int size = blosc_decompress_ctx(chunk.data(), decoded.data(), nbytes, 1);
  EXPECT_EQ(size, static_cast<int>(nbytes));
  return decoded;
}

std::vector<std::pair<std::string, Bytes>> VariedData(std::size_t size) {
  Bytes constant(size, 0x42), ramp(size), sparse(size, 0);
  for (std::size_t i = 0; i < size; ++i) ramp[i] = static_cast<std::uint8_t>(i * 3 / 5);
  for (std::size_t i = 0; i < size; i += 101) sparse[i] = static_cast<std::uint8_t>(i);
  return {{"random", testing::RandomBytes(size)},
          {"smooth", testing::MicroscopyLike(size & ~std::size_t{1})},
          {"constant", std::move(constant)},
          {"ramp", std::move(ramp)},
          {"sparse", std::move(sparse)}};
}

TEST(DeterministicBloscLz4, CBloscDecodesVariedData) {
  for (std::size_t size : {0u, 1u, 7u, 100u, 127u, 128u, 129u, 1000u, 4099u, 65535u, 65536u, 65537u,
                           131075u, 300005u, 1u << 20}) {
    for (const auto& [kind, data] : VariedData(size)) {
      for (int typesize : {1, 2, 3, 4, 8, 16, 17, 255}) {
        for (bool shuffle : {false, true}) {
          const Bytes chunk = EncodeOrDie(data, typesize, shuffle);
          const Header header = ReadHeader(chunk);
          EXPECT_EQ(header.cbytes, chunk.size());
          EXPECT_LE(chunk.size(), data.size() + 16);
          EXPECT_EQ(DecodeWithCBlosc(chunk), data)
              << kind << " of " << data.size() << " bytes, typesize " << typesize << ", shuffle "
              << shuffle;
        }
      }
    }
  }
}

TEST(DeterministicBloscLz4, HeaderFollowsTheFixedRules) {
  const Bytes data = testing::MicroscopyLike(300'000);
  Header h = ReadHeader(EncodeOrDie(data, 2, true));
  EXPECT_EQ(h.version, 2);
  EXPECT_EQ(h.versionlz, 1);
  EXPECT_EQ(h.flags, 0x20 | 0x01);  // lz4, byte shuffle, split, compressed.
  EXPECT_EQ(h.typesize, 2);
  EXPECT_EQ(h.nbytes, 300'000u);
  EXPECT_EQ(h.blocksize, 65536u);
  EXPECT_EQ(ReadHeader(EncodeOrDie(data, 3, false)).blocksize, 65535u);  // A multiple of 3.
  EXPECT_EQ(ReadHeader(EncodeOrDie(data, 3, false)).flags, 0x20);
  // More than 16 bytes per element, or under 128 elements per block: not split.
  EXPECT_EQ(ReadHeader(EncodeOrDie(data, 17, true)).flags, 0x20 | 0x10 | 0x01);
  const Bytes small(1000, 1);
  h = ReadHeader(EncodeOrDie(small, 8, true));
  EXPECT_EQ(h.blocksize, 1000u);
  EXPECT_EQ(h.flags, 0x20 | 0x10 | 0x01);
  EXPECT_EQ(ReadHeader(EncodeOrDie(small, 4, true)).flags, 0x20 | 0x01);  // 250 elements.
  // Under one element, the empty input included: blocksize 1, as c-blosc writes.
  for (std::size_t size : {0u, 3u, 200u}) {
    const Bytes chunk = EncodeOrDie(Bytes(size, 0), 255, true);
    EXPECT_EQ(ReadHeader(chunk).blocksize, 1u) << size;
    EXPECT_EQ(chunk.size(), size + 16);
    EXPECT_EQ(DecodeWithCBlosc(chunk), Bytes(size, 0));
  }
}

TEST(DeterministicBloscLz4, SmallAndIncompressibleInputsAreStoredMemcpyed) {
  for (std::size_t size : {0u, 1u, 127u}) {
    const Bytes data(size, 0);  // Compressible, but under 128 bytes.
    const Bytes chunk = EncodeOrDie(data, 4, true);
    ASSERT_EQ(chunk.size(), size + 16);
    EXPECT_NE(chunk[2] & 0x02, 0);
    EXPECT_EQ(Bytes(chunk.begin() + 16, chunk.end()), data);
  }
  const Bytes random = testing::RandomBytes(200'000);
  const Bytes chunk = EncodeOrDie(random, 1, false);
  EXPECT_EQ(chunk.size(), random.size() + 16);
  EXPECT_NE(chunk[2] & 0x02, 0);
  const Result<Bytes> stored = EncodeDeterministicBloscLz4(Bytes(5000, 3), {2, true, true});
  ASSERT_TRUE(stored.ok());
  EXPECT_EQ(stored->size(), 5016u);  // clevel 0.
}

// Under 128 bytes both store the input, and every header field follows the
// same rules, so the chunks must be c-blosc 1.21's to the byte.
TEST(DeterministicBloscLz4, ChunksUnder128BytesAreCBloscsExactly) {
  for (std::size_t size = 0; size < 128; ++size) {
    const Bytes data = testing::RandomBytes(size);
    for (int typesize : {1, 2, 3, 4, 8, 16, 17, 255}) {
      for (bool shuffle : {false, true}) {
        Bytes theirs(size + 16);
        const int written =
            blosc_compress_ctx(5, shuffle ? BLOSC_SHUFFLE : BLOSC_NOSHUFFLE, typesize, size,
                               data.data(), theirs.data(), theirs.size(), "lz4", 0, 1);
        ASSERT_EQ(written, static_cast<int>(size + 16));
        EXPECT_EQ(EncodeOrDie(data, typesize, shuffle), theirs)
            << size << " bytes, typesize " << typesize << ", shuffle " << shuffle;
      }
    }
  }
}

TEST(DeterministicBloscLz4, CompressesLikeLz4) {
  EXPECT_LT(EncodeOrDie(Bytes(1 << 20, 9), 2, true).size(), 1u << 13);
  const Bytes smooth = testing::MicroscopyLike(1 << 20);
  EXPECT_LT(EncodeOrDie(smooth, 2, true).size(), smooth.size() * 3 / 4);
}

TEST(DeterministicBloscLz4, SameBytesOnEveryThreadCountAndCall) {
  const Bytes data = testing::MicroscopyLike(3'000'001 & ~1);
  const Bytes serial = EncodeOrDie(data, 2, true);
  EXPECT_EQ(EncodeOrDie(data, 2, true), serial);
  for (std::size_t threads : {1u, 2u, 3u, 8u}) {
    core::ThreadPool pool(threads);
    EXPECT_EQ(EncodeOrDie(data, 2, true, &pool), serial) << threads << " threads";
  }
  const Bytes random = testing::RandomBytes(500'000);
  core::ThreadPool pool(4);
  EXPECT_EQ(EncodeOrDie(random, 4, true, &pool), EncodeOrDie(random, 4, true));
}

// The bytes are a format the CUDA kernel reproduces and stored shards hold:
// a change to any rule must be deliberate. These checksums pin them.
TEST(DeterministicBloscLz4, BytesArePinned) {
  const Bytes smooth = EncodeOrDie(testing::MicroscopyLike(300'000), 2, true);
  EXPECT_EQ(smooth.size(), 164669u);
  EXPECT_EQ(Crc32c(smooth), 3698387053u);
  Bytes text;
  while (text.size() < 100'000) AppendBytes(text, AsBytes("chunkwise writes blosc-lz4; "));
  const Bytes text_chunk = EncodeOrDie(text, 4, false);
  EXPECT_EQ(text_chunk.size(), 630u);
  EXPECT_EQ(Crc32c(text_chunk), 1286408449u);
}

TEST(DeterministicBloscLz4, OutputRoomDoesNotChangeTheBytes) {
  const Bytes data = testing::MicroscopyLike(200'000);
  const Bytes whole = EncodeOrDie(data, 2, true);
  Bytes exact(whole.size());
  const Result<std::size_t> written = EncodeDeterministicBloscLz4(data, {2, true, false}, exact);
  ASSERT_TRUE(written.ok()) << written.status().ToString();
  EXPECT_EQ(exact, whole);
  Bytes short_by_one(whole.size() - 1);
  const Result<std::size_t> refused =
      EncodeDeterministicBloscLz4(data, {2, true, false}, short_by_one);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), StatusCode::kOutOfRange);
}

TEST(DeterministicBloscLz4, RefusesBadTypesize) {
  for (int typesize : {0, 256, -1}) {
    const Result<Bytes> chunk = EncodeDeterministicBloscLz4(Bytes(10), {typesize, true, false});
    ASSERT_FALSE(chunk.ok());
    EXPECT_EQ(chunk.status().code(), StatusCode::kInvalidArgument);
  }
}

// The CPU gathers whole blocks (GatherBlock), the GPU each byte of a stream
// on its own thread (GatheredStreamByte); GatherStream is the reference:
// all three must see the same bytes.
TEST(DeterministicBloscLz4, StreamAndBlockGatherAgree) {
  const Bytes data = testing::RandomBytes(70'000);
  for (std::uint32_t typesize = 1; typesize <= 20; ++typesize) {
    for (bool shuffle : {false, true}) {
      const blosc_lz4::ChunkGeometry g = blosc_lz4::MakeGeometry(70'000, typesize, shuffle, false);
      for (std::uint32_t block = 0; block < g.block_count; ++block) {
        const std::uint32_t bytes = blosc_lz4::BlockBytes(g, block);
        const std::uint32_t streams = blosc_lz4::StreamCount(g, block);
        const std::uint8_t* at = data.data() + std::size_t{block} * g.blocksize;
        Bytes whole(bytes), one(bytes), by_byte(bytes);
        blosc_lz4::GatherBlock(g, at, bytes, whole.data());
        const std::uint32_t stream_bytes = bytes / streams;
        for (std::uint32_t s = 0; s < streams; ++s) {
          blosc_lz4::GatherStream(g, at, bytes, s, streams,
                                  one.data() + std::size_t{s} * stream_bytes);
          for (std::uint32_t o = 0; o < stream_bytes; ++o) {
            by_byte[s * stream_bytes + o] =
                blosc_lz4::GatheredStreamByte(g, at, bytes, s, streams, o);
          }
        }
        ASSERT_EQ(one, whole) << "typesize " << typesize << " shuffle " << shuffle << " block "
                              << block;
        ASSERT_EQ(by_byte, whole) << "typesize " << typesize << " shuffle " << shuffle << " block "
                                  << block;
      }
    }
  }
}

// The CUDA kernels' decomposition run on the CPU: every (block, stream)
// encoded on its own into a slot, then the chunk assembled from the slots.
Bytes EncodeStreamByStream(const Bytes& input, std::uint32_t typesize, bool shuffle) {
  const blosc_lz4::ChunkGeometry g =
      blosc_lz4::MakeGeometry(static_cast<std::uint32_t>(input.size()), typesize, shuffle, false);
  Bytes chunk(input.size() + 16);
  std::vector<std::uint16_t> table(lz4::kHashEntries);
  std::uint64_t position = blosc_lz4::BlocksOffset(g);
  for (std::uint32_t block = 0; !g.memcpyed_only && block < g.block_count; ++block) {
    blosc_lz4::Store32(chunk.data() + 16 + 4 * block, static_cast<std::uint32_t>(position));
    const std::uint32_t bytes = blosc_lz4::BlockBytes(g, block);
    const std::uint32_t streams = blosc_lz4::StreamCount(g, block);
    for (std::uint32_t s = 0; s < streams; ++s) {
      Bytes gathered(bytes / streams), slot(bytes / streams + 4);
      blosc_lz4::GatherStream(g, input.data() + std::size_t{block} * g.blocksize, bytes, s, streams,
                              gathered.data());
      const std::uint32_t size =
          blosc_lz4::EncodeStream(gathered.data(), bytes / streams, slot.data(), table.data());
      if (position + size <= chunk.size()) std::memcpy(chunk.data() + position, slot.data(), size);
      position += size;
    }
  }
  const bool memcpyed = g.memcpyed_only || position > input.size() + 16;
  if (memcpyed) {
    position = input.size() + 16;
    std::memcpy(chunk.data() + 16, input.data(), input.size());
  }
  blosc_lz4::WriteHeader(g, memcpyed, static_cast<std::uint32_t>(position), chunk.data());
  chunk.resize(position);
  return chunk;
}

TEST(DeterministicBloscLz4, TheKernelsDecompositionGivesTheSameBytes) {
  for (std::size_t size : {0u, 100u, 128u, 5000u, 65536u, 200'003u}) {
    for (const auto& [kind, data] : VariedData(size)) {
      for (std::uint32_t typesize : {1u, 2u, 4u, 8u, 12u, 17u}) {
        for (bool shuffle : {false, true}) {
          ASSERT_EQ(EncodeStreamByStream(data, typesize, shuffle),
                    EncodeOrDie(data, static_cast<int>(typesize), shuffle))
              << kind << " of " << data.size() << " bytes, typesize " << typesize;
        }
      }
    }
  }
}

}  // namespace
}  // namespace chunkwise::codec
