// The zarr v3 `crc32c` bytes→bytes codec: appends a CRC32C and verifies it.
//
// Spec: docs/formats/zarr.md, "Codec pipeline". Encoded = input ‖ CRC32C(input)
// as a little-endian uint32. It takes no configuration and is written as
// {"name": "crc32c"}. Shard indexes end in this codec
// (docs/formats/zarr-shard-index.md).
#ifndef CHUNKWISE_CODEC_CRC32C_CODEC_H_
#define CHUNKWISE_CODEC_CRC32C_CODEC_H_

#include <memory>

#include "codec/codec.h"

namespace chunkwise::codec {

class Crc32cCodec final : public BytesToBytesCodec {
 public:
  static constexpr std::size_t kChecksumSize = 4;

  static std::shared_ptr<const Crc32cCodec> Create();
  // InvalidArgument unless `configuration` is null or an empty object.
  static Result<std::shared_ptr<const Crc32cCodec>> FromJson(const nlohmann::json& configuration);

  std::string_view name() const override { return "crc32c"; }
  nlohmann::json ToJson() const override;
  // Never fails.
  Result<Bytes> Encode(ByteView decoded) const override;
  // Corruption if `encoded` is shorter than 4 bytes or its checksum does not
  // match; OutOfRange if the payload exceeds `max_decoded_bytes`.
  Result<Bytes> Decode(ByteView encoded, std::size_t max_decoded_bytes) const override;

  // The payload of `encoded` (all but its checksum) once the checksum
  // matches: Decode's checks without its copy, for chains that decode the
  // payload in place. Corruption as Decode.
  static Result<ByteView> Verify(ByteView encoded);
  // Appends the checksum of out[0, size) at out[size, size + 4).
  // REQUIRES: out.size() >= size + 4.
  static void AppendTo(MutableByteView out, std::size_t size);

 private:
  Crc32cCodec() = default;
};

}  // namespace chunkwise::codec

#endif  // CHUNKWISE_CODEC_CRC32C_CODEC_H_
