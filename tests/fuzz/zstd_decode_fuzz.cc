// libFuzzer target: the zstd codec's Decode on arbitrary bytes (meant to be zstd frames).
//
// Decode must return a value or an error, never crash, read out of bounds or
// produce more than its limit. As a second check the input is encoded and
// decoded back, which must reproduce it exactly.
#include "bytes_codec_fuzz.h"
#include "codec/zstd_codec.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const auto codec = *chunkwise::codec::ZstdCodec::Create({1, false});
  chunkwise::fuzz::CheckBytesCodec(*codec, data, size);
  return 0;
}
