#include "chunkwise/facade/codec_bytes.h"

#include "codec/codec_chain.h"
#include "codec/codec_measurement.h"
#include "codec/codec_registry.h"
#include "codec/codec_shorthand.h"
#include "codec/crc32c.h"

namespace chunkwise {
namespace {

// The chain, built with the encoders its shorthand picks (lz4det).
Result<codec::CodecChain> Chain(std::string_view shorthand, std::size_t typesize) {
  CHUNKWISE_ASSIGN_OR_RETURN(const codec::CodecShorthand parsed,
                             codec::ParseCodecShorthandWithEncoders(shorthand, typesize));
  return codec::CodecChain::BytesOnly(parsed.codecs,
                                      codec::CodecRegistry::WithBuiltins(parsed.build));
}

}  // namespace

std::vector<std::string> CodecNames() { return codec::CodecRegistry::WithBuiltins().names(); }

Result<std::string> CodecsJson(std::string_view shorthand, std::size_t typesize) {
  CHUNKWISE_ASSIGN_OR_RETURN(const codec::CodecChain chain, Chain(shorthand, typesize));
  return chain.ToJson().dump();
}

Result<Bytes> EncodeBytes(std::string_view shorthand, std::size_t typesize, ByteView data) {
  CHUNKWISE_ASSIGN_OR_RETURN(const codec::CodecChain chain, Chain(shorthand, typesize));
  return chain.EncodeBytes(data);
}

Result<Bytes> DecodeBytes(std::string_view shorthand, std::size_t typesize, ByteView encoded,
                          std::uint64_t max_decoded_bytes) {
  CHUNKWISE_ASSIGN_OR_RETURN(const codec::CodecChain chain, Chain(shorthand, typesize));
  return chain.DecodeBytes(encoded, static_cast<std::size_t>(max_decoded_bytes));
}

Result<CodecMeasurement> MeasureCodecs(std::string_view shorthand, std::size_t typesize,
                                       ByteView data, std::size_t chunk_bytes, int repetitions) {
  CHUNKWISE_ASSIGN_OR_RETURN(const codec::CodecChain chain, Chain(shorthand, typesize));
  CHUNKWISE_ASSIGN_OR_RETURN(const codec::CodecFigures figures,
                             codec::MeasureCodecChain(chain, data, chunk_bytes, repetitions));
  return CodecMeasurement{.decoded_bytes = figures.decoded_bytes,
                          .encoded_bytes = figures.encoded_bytes,
                          .ratio = figures.ratio(),
                          .encode_bytes_per_second = figures.encode_bytes_per_second(),
                          .decode_bytes_per_second = figures.decode_bytes_per_second()};
}

std::uint32_t Crc32cOf(ByteView data) { return codec::Crc32c(data); }

}  // namespace chunkwise
