// libFuzzer target: the gzip codec's Decode on arbitrary bytes (meant to be gzip members).
//
// Decode must return a value or an error, never crash, read out of bounds or
// produce more than its limit. As a second check the input is encoded and
// decoded back, which must reproduce it exactly.
#include <cstddef>
#include <cstdint>

#include "chunkwise/codec/gzip_codec.h"
#include "chunkwise/core/check.h"

namespace {

constexpr std::size_t kLimit = std::size_t{1} << 20;

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const auto codec = *chunkwise::codec::GzipCodec::Create(1);
  const chunkwise::ByteView input(data, size);
  const chunkwise::Result<chunkwise::Bytes> decoded = codec->Decode(input, kLimit);
  if (decoded.ok()) CHUNKWISE_CHECK(decoded->size() <= kLimit);
  const chunkwise::Result<chunkwise::Bytes> encoded = codec->Encode(input);
  CHUNKWISE_CHECK(encoded.ok());
  const chunkwise::Result<chunkwise::Bytes> round_trip = codec->Decode(*encoded, size);
  CHUNKWISE_CHECK(round_trip.ok() && *round_trip == chunkwise::Bytes(data, data + size));
  return 0;
}
