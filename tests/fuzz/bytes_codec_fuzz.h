// The check every bytes→bytes codec's fuzz target makes.
//
// Decode on arbitrary bytes must return a value or an error, never crash,
// read out of bounds or produce more than its limit. As a second check the
// input is encoded and decoded back, which must reproduce it exactly.
#ifndef CHUNKWISE_TESTS_FUZZ_BYTES_CODEC_FUZZ_H_
#define CHUNKWISE_TESTS_FUZZ_BYTES_CODEC_FUZZ_H_

#include <cstddef>
#include <cstdint>

#include "chunkwise/core/check.h"
#include "codec/codec.h"

namespace chunkwise::fuzz {

inline constexpr std::size_t kDecodeLimit = std::size_t{1} << 20;

inline void CheckBytesCodec(const codec::BytesToBytesCodec& codec, const std::uint8_t* data,
                            std::size_t size) {
  const ByteView input(data, size);
  const Result<Bytes> decoded = codec.Decode(input, kDecodeLimit);
  if (decoded.ok()) CHUNKWISE_CHECK(decoded->size() <= kDecodeLimit);
  const Result<Bytes> encoded = codec.Encode(input);
  CHUNKWISE_CHECK(encoded.ok());
  const Result<Bytes> round_trip = codec.Decode(*encoded, size);
  CHUNKWISE_CHECK(round_trip.ok() && *round_trip == Bytes(data, data + size));
}

}  // namespace chunkwise::fuzz

#endif  // CHUNKWISE_TESTS_FUZZ_BYTES_CODEC_FUZZ_H_
