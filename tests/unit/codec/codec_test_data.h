// Deterministic inputs for the codec tests.
//
// MicroscopyLike gives uint16 images of smooth gradients plus a little noise,
// which compress about as well as real microscopy tiles; RandomBytes gives
// incompressible data. Both depend only on their seed (std::mt19937 output is
// specified by the standard, unlike its distributions).
#ifndef CHUNKWISE_TESTS_UNIT_CODEC_CODEC_TEST_DATA_H_
#define CHUNKWISE_TESTS_UNIT_CODEC_CODEC_TEST_DATA_H_

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>

#include "chunkwise/core/bytes.h"
#include "codec/codec.h"

namespace chunkwise::codec::testing {

// `num_bytes` (even) bytes of a little-endian uint16 image 1024 pixels wide.
inline Bytes MicroscopyLike(std::size_t num_bytes, std::uint32_t seed = 1) {
  std::mt19937 random(seed);
  Bytes bytes(num_bytes);
  constexpr std::size_t kWidth = 1024;
  for (std::size_t i = 0; i + 1 < num_bytes; i += 2) {
    const double x = static_cast<double>((i / 2) % kWidth), y = static_cast<double>(i / 2 / kWidth);
    const double smooth = 1200 + 600 * std::sin(x / 90.0) * std::cos(y / 70.0) + 2 * x / 10;
    const auto value = static_cast<std::uint16_t>(smooth + static_cast<double>(random() % 32));
    StoreLittleEndian(value, bytes.data() + i);
  }
  return bytes;
}

inline Bytes RandomBytes(std::size_t num_bytes, std::uint32_t seed = 7) {
  std::mt19937 random(seed);
  Bytes bytes(num_bytes);
  for (auto& b : bytes) b = static_cast<std::uint8_t>(random());
  return bytes;
}

// Flips `mask` in each byte of `encoded` in turn: every decode must fail with
// Corruption (or OutOfRange, when a size field now claims too much) or give
// back exactly `original`. What codecs with checksums promise.
inline void ExpectEveryFlipFailsOrDecodesOriginal(const BytesToBytesCodec& codec,
                                                  const Bytes& encoded, const Bytes& original,
                                                  std::uint8_t mask) {
  for (std::size_t i = 0; i < encoded.size(); ++i) {
    Bytes flipped = encoded;
    flipped[i] ^= mask;
    const Result<Bytes> decoded = codec.Decode(flipped, 1 << 20);
    if (decoded.ok()) {
      EXPECT_EQ(*decoded, original) << "flipped byte " << i;
    } else {
      EXPECT_TRUE(decoded.status().code() == StatusCode::kCorruption ||
                  decoded.status().code() == StatusCode::kOutOfRange)
          << "flipped byte " << i << ": " << decoded.status().ToString();
    }
  }
}

}  // namespace chunkwise::codec::testing

#endif  // CHUNKWISE_TESTS_UNIT_CODEC_CODEC_TEST_DATA_H_
