// libFuzzer target: the gzip codec's Decode on arbitrary bytes (meant to be gzip members).
//
// Decode must return a value or an error, never crash, read out of bounds or
// produce more than its limit. As a second check the input is encoded and
// decoded back, which must reproduce it exactly.
#include "bytes_codec_fuzz.h"
#include "codec/gzip_codec.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const auto codec = *chunkwise::codec::GzipCodec::Create(1);
  chunkwise::fuzz::CheckBytesCodec(*codec, data, size);
  return 0;
}
