#include "codec/lz4_block_encoder.h"

#include <gtest/gtest.h>
#include <lz4.h>

#include <string>
#include <vector>

#include "unit/codec/codec_test_data.h"

namespace chunkwise::codec::lz4 {
namespace {

// The sequences of an LZ4 block, as the format defines them.
struct Sequence {
  std::uint32_t literal_start;  // Position in the decoded block.
  std::uint32_t literal_bytes;
  std::uint32_t offset;  // 0 for the last, literals-only sequence.
  std::uint32_t match_bytes;
};

std::uint32_t ReadLength(const Bytes& block, std::size_t& at, std::uint32_t nibble) {
  std::uint32_t length = nibble;
  if (nibble != 15) return length;
  while (at < block.size()) {
    const std::uint8_t more = block[at++];
    length += more;
    if (more != 255) break;
  }
  return length;
}

std::vector<Sequence> ParseSequences(const Bytes& block) {
  std::vector<Sequence> sequences;
  std::size_t at = 0;
  std::uint32_t decoded = 0;
  while (at < block.size()) {
    const std::uint8_t token = block[at++];
    Sequence sequence{decoded, ReadLength(block, at, token >> 4), 0, 0};
    at += sequence.literal_bytes;
    decoded += sequence.literal_bytes;
    if (at < block.size()) {
      sequence.offset = block[at] | block[at + 1] << 8;
      at += 2;
      sequence.match_bytes = kMinMatch + ReadLength(block, at, token & 15);
      decoded += sequence.match_bytes;
    }
    sequences.push_back(sequence);
  }
  return sequences;
}

Bytes Encode(const Bytes& input) {
  std::vector<std::uint16_t> table(kHashEntries);
  Bytes out(Lz4MaxEncodedBytes(static_cast<std::uint32_t>(input.size())));
  const std::uint32_t size =
      Lz4EncodeBlock(input.data(), static_cast<std::uint32_t>(input.size()), out.data(),
                     static_cast<std::uint32_t>(out.size()), table.data());
  CHUNKWISE_CHECK(size > 0);
  out.resize(size);
  return out;
}

std::vector<Bytes> VariedInputs() {
  std::vector<Bytes> inputs;
  for (std::size_t size : {0u, 1u, 5u, 12u, 13u, 14u, 20u, 100u, 1000u, 65535u, 65536u}) {
    inputs.push_back(testing::RandomBytes(size));
    inputs.push_back(Bytes(size, 0x5a));
    inputs.push_back(testing::MicroscopyLike(size & ~std::size_t{1}));
    Bytes ramp(size);
    for (std::size_t i = 0; i < size; ++i) ramp[i] = static_cast<std::uint8_t>(i / 7 + i % 3);
    inputs.push_back(std::move(ramp));
  }
  Bytes text;
  while (text.size() < 40000) AppendBytes(text, AsBytes("the quick brown fox jumps over "));
  inputs.push_back(std::move(text));
  return inputs;
}

TEST(Lz4BlockEncoder, LibLz4DecodesEveryInput) {
  for (const Bytes& input : VariedInputs()) {
    const Bytes encoded = Encode(input);
    Bytes decoded(input.size() + 1);
    const int size = LZ4_decompress_safe(
        reinterpret_cast<const char*>(encoded.data()), reinterpret_cast<char*>(decoded.data()),
        static_cast<int>(encoded.size()), static_cast<int>(input.size()));
    ASSERT_EQ(size, static_cast<int>(input.size()));
    decoded.resize(input.size());
    EXPECT_EQ(decoded, input) << "input of " << input.size() << " bytes";
  }
}

TEST(Lz4BlockEncoder, HonoursTheBlockEndConditions) {
  for (const Bytes& input : VariedInputs()) {
    const std::vector<Sequence> sequences = ParseSequences(Encode(input));
    ASSERT_FALSE(sequences.empty());
    const auto n = static_cast<std::uint32_t>(input.size());
    EXPECT_EQ(sequences.back().match_bytes, 0u) << "the last sequence is literals only";
    for (const Sequence& s : sequences) {
      if (s.match_bytes == 0) continue;
      const std::uint32_t match_start = s.literal_start + s.literal_bytes;
      EXPECT_GE(s.match_bytes, kMinMatch);
      EXPECT_GE(s.offset, 1u);
      EXPECT_LE(s.offset, match_start) << "an offset reaches before the block";
      EXPECT_LE(match_start + kMatchFindLimit, n) << "a match starts in the last 12 bytes";
      EXPECT_LE(match_start + s.match_bytes + kLastLiterals, n) << "the last 5 bytes not literal";
    }
    if (n > 0 && n <= kMatchFindLimit) {
      EXPECT_EQ(sequences.size(), 1u);
    }
  }
}

TEST(Lz4BlockEncoder, CompressesRedundantData) {
  EXPECT_LT(Encode(Bytes(65536, 7)).size(), 300u);
  Bytes ramp(65536);  // Runs of 7 equal bytes: every run after the first repeats.
  for (std::size_t i = 0; i < ramp.size(); ++i) ramp[i] = static_cast<std::uint8_t>(i / 7);
  EXPECT_LT(Encode(ramp).size(), 65536u / 2);
}

TEST(Lz4BlockEncoder, ReportsZeroWhenTheOutputIsTooSmall) {
  const Bytes input = testing::RandomBytes(1000);
  std::vector<std::uint16_t> table(kHashEntries);
  Bytes out(999);
  EXPECT_EQ(Lz4EncodeBlock(input.data(), 1000, out.data(), 999, table.data()), 0u);
  EXPECT_EQ(Lz4EncodeBlock(input.data(), 0, out.data(), 0, table.data()), 0u);
  EXPECT_EQ(Lz4EncodeBlock(input.data(), 1000, out.data(), 0, table.data()), 0u);
}

TEST(Lz4BlockEncoder, RefusesInputsOver64KiB) {
  const Bytes input(kMaxInputBytes + 1, 0);
  std::vector<std::uint16_t> table(kHashEntries);
  Bytes out(Lz4MaxEncodedBytes(kMaxInputBytes + 1));
  EXPECT_EQ(Lz4EncodeBlock(input.data(), kMaxInputBytes + 1, out.data(),
                           static_cast<std::uint32_t>(out.size()), table.data()),
            0u);
}

TEST(Lz4BlockEncoder, OutputIgnoresTheTablesPriorContents) {
  const Bytes input = testing::MicroscopyLike(50000);
  std::vector<std::uint16_t> table(kHashEntries, 0xbeef);
  Bytes out(Lz4MaxEncodedBytes(50000));
  const std::uint32_t size = Lz4EncodeBlock(input.data(), 50000, out.data(),
                                            static_cast<std::uint32_t>(out.size()), table.data());
  out.resize(size);
  EXPECT_EQ(out, Encode(input));
}

}  // namespace
}  // namespace chunkwise::codec::lz4
