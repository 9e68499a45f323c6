// libFuzzer target: numcodecs' codecs (codec/numcodecs_compressors.h and
// codec/numcodecs_filters.h), the decoders zarr v2 arrays reach.
//
// The first byte chooses the codec, the rest is its input. A bytes→bytes
// decoder must return a value or an error, never crash, read out of bounds or
// produce more than its limit; one that can encode must then give its input
// back from its own encoding. An array filter decodes the rest as a chunk of
// as many elements as it holds, which must give exactly that many decoded
// elements or an error, and encodes and decodes it again.
#include <array>
#include <memory>
#include <vector>

#include "bytes_codec_fuzz.h"
#include "codec/codec_registry.h"

namespace {

using chunkwise::Bytes;
using chunkwise::ByteView;
using chunkwise::Result;
using nlohmann::json;
namespace codec = chunkwise::codec;

const std::array<json, 13>& Codecs() {
  static const std::array<json, 13> codecs = {
      json::parse(R"({"name": "numcodecs.zlib", "configuration": {"level": 1}})"),
      json::parse(R"({"name": "numcodecs.lz4"})"),
      json::parse(R"({"name": "numcodecs.bz2", "configuration": {"level": 1}})"),
      json::parse(R"({"name": "numcodecs.lzma", "configuration": {"preset": 0}})"),
      json::parse(R"({"name": "numcodecs.lzma", "configuration": {"format": 0}})"),
      json::parse(R"({"name": "numcodecs.lzma", "configuration": {"format": 2}})"),
      json::parse(R"({"name": "numcodecs.shuffle", "configuration": {"elementsize": 3}})"),
      json::parse(
          R"({"name": "numcodecs.delta", "configuration": {"dtype": "<i4", "astype": "<i2"}})"),
      json::parse(R"({"name": "numcodecs.delta", "configuration": {"dtype": "<f8"}})"),
      json::parse(R"({"name": "numcodecs.fixedscaleoffset",
                      "configuration": {"offset": 3.5, "scale": 100.0, "dtype": "<f4", "astype": "<i2"}})"),
      json::parse(
          R"({"name": "numcodecs.quantize", "configuration": {"digits": 3, "dtype": "<f8", "astype": "<f4"}})"),
      json::parse(R"({"name": "numcodecs.packbits"})"),
      json::parse(R"({"name": "numcodecs.astype",
                      "configuration": {"encode_dtype": "|u1", "decode_dtype": "<f8"}})"),
  };
  return codecs;
}

void CheckArrayFilter(const codec::ArrayToArrayCodec& filter, const std::uint8_t* data,
                      std::size_t size) {
  // The decoded type is the one EncodedSpec accepts.
  for (const chunkwise::core::DataType type : chunkwise::core::DataType::All()) {
    const codec::ChunkSpec one{type, {1}};
    const Result<codec::ChunkSpec> encoded_one = filter.EncodedSpec(one);
    if (!encoded_one.ok()) continue;
    // PackBits gives one byte per 8 elements plus a header; the others one
    // element per element.
    const std::size_t item = encoded_one->dtype.size();
    const bool packed = encoded_one->shape[0] == 2;
    const std::size_t n = !packed ? size / item : size < 2 ? 0 : 8 * (size - 1) - data[0] % 8;
    const codec::ChunkSpec spec{type, {static_cast<std::int64_t>(n)}};
    const Result<Bytes> decoded = filter.Decode(spec, ByteView(data, packed ? size : n * item));
    if (decoded.ok()) CHUNKWISE_CHECK(decoded->size() == spec.num_bytes());
    // Encoding what was decoded, then decoding it, must be stable.
    if (decoded.ok()) {
      const Result<Bytes> encoded = filter.Encode(spec, *decoded);
      CHUNKWISE_CHECK(encoded.ok());
      const Result<Bytes> again = filter.Decode(spec, *encoded);
      CHUNKWISE_CHECK(again.ok() && again->size() == spec.num_bytes());
    }
    return;
  }
  CHUNKWISE_CHECK(false && "no type fits the filter");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const auto built = [] {
    std::vector<std::shared_ptr<const codec::Codec>> list;
    const codec::CodecRegistry registry = codec::CodecRegistry::WithBuiltins();
    for (const json& codec_json : Codecs()) list.push_back(*registry.Create(codec_json));
    return list;
  }();
  if (size == 0) return 0;
  const auto& chosen = built[data[0] % built.size()];
  ++data;
  --size;
  if (const auto* bytes = dynamic_cast<const codec::BytesToBytesCodec*>(chosen.get())) {
    const json configuration = chosen->ToJson()["configuration"];
    if (configuration.contains("format") && configuration["format"] != 1) {  // lzma: read only.
      const Result<Bytes> decoded =
          bytes->Decode(ByteView(data, size), chunkwise::fuzz::kDecodeLimit);
      if (decoded.ok()) CHUNKWISE_CHECK(decoded->size() <= chunkwise::fuzz::kDecodeLimit);
      return 0;
    }
    if (chosen->name() == "numcodecs.shuffle") size -= size % 3;  // Whole elements only.
    chunkwise::fuzz::CheckBytesCodec(*bytes, data, size);
    return 0;
  }
  CheckArrayFilter(*std::dynamic_pointer_cast<const codec::ArrayToArrayCodec>(chosen), data, size);
  return 0;
}
