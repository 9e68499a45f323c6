#include "core/murmurhash3.h"

#include <gtest/gtest.h>

#include <vector>

namespace chunkwise::core {
namespace {

// Vectors of docs/formats/precomputed.md, "Sharding" (neuroglancer's use: 8-byte
// little-endian key, seed 0, first 8 digest bytes).
TEST(MurmurHash3, NeuroglancerVectors) {
  EXPECT_EQ(MurmurHash3X86_128Uint64(0), 0x4772b084e028ae41u);
  EXPECT_EQ(MurmurHash3X86_128Uint64(1), 0xe8bd67d616d4ce9au);
  EXPECT_EQ(MurmurHash3X86_128Uint64(42), 0xc20b94f95119f47au);
}

TEST(MurmurHash3, EmptyInputSeedZeroIsZero) {
  const auto digest = MurmurHash3X86_128(ByteView(), 0);
  EXPECT_EQ(digest, (std::array<std::uint32_t, 4>{0, 0, 0, 0}));
}

TEST(MurmurHash3, Uint64FormIsDigestOfLittleEndianBytes) {
  const std::uint64_t key = 0x0102030405060708u;
  const std::vector<std::uint8_t> le{8, 7, 6, 5, 4, 3, 2, 1};
  const auto digest = MurmurHash3X86_128(le, 0);
  EXPECT_EQ(MurmurHash3X86_128Uint64(key),
            std::uint64_t{digest[0]} | (std::uint64_t{digest[1]} << 32));
}

TEST(MurmurHash3, EveryLengthAndSeedChangesTheDigest) {
  // Lengths 0..40 cover whole blocks and every tail size; a one-byte change
  // or another seed must change the digest.
  std::vector<std::uint8_t> data(40);
  for (std::size_t i = 0; i < data.size(); ++i) data[i] = static_cast<std::uint8_t>(i * 37 + 1);
  for (std::size_t n = 1; n <= data.size(); ++n) {
    const ByteView view(data.data(), n);
    const auto base = MurmurHash3X86_128(view, 0);
    EXPECT_NE(base, MurmurHash3X86_128(view, 1)) << n;
    std::vector<std::uint8_t> changed(data.begin(), data.begin() + n);
    changed[n - 1] ^= 0x80;
    EXPECT_NE(base, MurmurHash3X86_128(changed, 0)) << n;
    EXPECT_NE(base, MurmurHash3X86_128(ByteView(data.data(), n - 1), 0)) << n;
  }
}

}  // namespace
}  // namespace chunkwise::core
