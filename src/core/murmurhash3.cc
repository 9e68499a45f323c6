#include "core/murmurhash3.h"

#include <algorithm>
#include <bit>

namespace chunkwise::core {
namespace {

constexpr std::uint32_t kC1 = 0x239b961b;
constexpr std::uint32_t kC2 = 0xab0e9789;
constexpr std::uint32_t kC3 = 0x38b34ae5;
constexpr std::uint32_t kC4 = 0xa1e38b93;

std::uint32_t FinalMix(std::uint32_t h) {
  h ^= h >> 16;
  h *= 0x85ebca6b;
  h ^= h >> 13;
  h *= 0xc2b2ae35;
  h ^= h >> 16;
  return h;
}

// One lane's key scrambling: multiply, rotate, multiply.
std::uint32_t Scramble(std::uint32_t k, std::uint32_t c_first, int rotate, std::uint32_t c_second) {
  return std::rotl(k * c_first, rotate) * c_second;
}

// Little-endian word of up to 4 bytes starting at `p` (the tail's partial words).
std::uint32_t LoadPartial(const std::uint8_t* p, std::size_t n) {
  std::uint32_t k = 0;
  for (std::size_t i = 0; i < n; ++i) k |= std::uint32_t{p[i]} << (8 * i);
  return k;
}

}  // namespace

std::array<std::uint32_t, 4> MurmurHash3X86_128(ByteView data, std::uint32_t seed) {
  std::uint32_t h1 = seed, h2 = seed, h3 = seed, h4 = seed;
  const std::uint8_t* bytes = data.data();
  const std::size_t length = data.size();
  const std::size_t num_blocks = length / 16;
  for (std::size_t b = 0; b < num_blocks; ++b) {
    const std::uint8_t* block = bytes + 16 * b;
    h1 ^= Scramble(LoadPartial(block, 4), kC1, 15, kC2);
    h1 = (std::rotl(h1, 19) + h2) * 5 + 0x561ccd1b;
    h2 ^= Scramble(LoadPartial(block + 4, 4), kC2, 16, kC3);
    h2 = (std::rotl(h2, 17) + h3) * 5 + 0x0bcaa747;
    h3 ^= Scramble(LoadPartial(block + 8, 4), kC3, 17, kC4);
    h3 = (std::rotl(h3, 15) + h4) * 5 + 0x96cd1c35;
    h4 ^= Scramble(LoadPartial(block + 12, 4), kC4, 18, kC1);
    h4 = (std::rotl(h4, 13) + h1) * 5 + 0x32ac3b17;
  }
  // The tail: the lanes it reaches are scrambled, but not rotated or added.
  const std::uint8_t* tail = bytes + 16 * num_blocks;
  const std::size_t rest = length % 16;
  if (rest > 12) h4 ^= Scramble(LoadPartial(tail + 12, rest - 12), kC4, 18, kC1);
  if (rest > 8)
    h3 ^= Scramble(LoadPartial(tail + 8, std::min<std::size_t>(rest - 8, 4)), kC3, 17, kC4);
  if (rest > 4)
    h2 ^= Scramble(LoadPartial(tail + 4, std::min<std::size_t>(rest - 4, 4)), kC2, 16, kC3);
  if (rest > 0) h1 ^= Scramble(LoadPartial(tail, std::min<std::size_t>(rest, 4)), kC1, 15, kC2);

  const auto len32 = static_cast<std::uint32_t>(length);
  h1 ^= len32;
  h2 ^= len32;
  h3 ^= len32;
  h4 ^= len32;
  h1 += h2 + h3 + h4;
  h2 += h1;
  h3 += h1;
  h4 += h1;
  h1 = FinalMix(h1);
  h2 = FinalMix(h2);
  h3 = FinalMix(h3);
  h4 = FinalMix(h4);
  h1 += h2 + h3 + h4;
  h2 += h1;
  h3 += h1;
  h4 += h1;
  return {h1, h2, h3, h4};
}

std::uint64_t MurmurHash3X86_128Uint64(std::uint64_t key) {
  std::uint8_t le[8];
  for (int i = 0; i < 8; ++i) le[i] = static_cast<std::uint8_t>(key >> (8 * i));
  const auto digest = MurmurHash3X86_128(ByteView(le, 8), 0);
  return std::uint64_t{digest[0]} | (std::uint64_t{digest[1]} << 32);
}

}  // namespace chunkwise::core
