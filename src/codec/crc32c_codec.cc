#include "codec/crc32c_codec.h"

#include <cstdio>
#include <cstring>
#include <string>

#include "codec/crc32c.h"
#include "config_json.h"

namespace chunkwise::codec {

std::shared_ptr<const Crc32cCodec> Crc32cCodec::Create() {
  return std::shared_ptr<const Crc32cCodec>(new Crc32cCodec());
}

Result<std::shared_ptr<const Crc32cCodec>> Crc32cCodec::FromJson(
    const nlohmann::json& configuration) {
  CHUNKWISE_RETURN_IF_ERROR(internal::CheckConfigKeys("crc32c", configuration, {}));
  return Create();
}

nlohmann::json Crc32cCodec::ToJson() const { return {{"name", "crc32c"}}; }

Result<Bytes> Crc32cCodec::Encode(ByteView decoded) const {
  Bytes encoded(decoded.size() + kChecksumSize);
  if (!decoded.empty()) std::memcpy(encoded.data(), decoded.data(), decoded.size());
  StoreLittleEndian(Crc32c(decoded), encoded.data() + decoded.size());
  return encoded;
}

// The messages leave out the codec's name: the chain that calls this puts it
// in front ("crc32c: checksum mismatch ...").
Result<ByteView> Crc32cCodec::Verify(ByteView encoded) {
  if (encoded.size() < kChecksumSize) {
    return Status::Corruption("encoded data is " + std::to_string(encoded.size()) +
                              " bytes, shorter than its 4-byte checksum");
  }
  const ByteView payload = encoded.first(encoded.size() - kChecksumSize);
  const std::uint32_t stored = LoadLittleEndian<std::uint32_t>(encoded.data() + payload.size());
  const std::uint32_t computed = Crc32c(payload);
  if (stored != computed) {
    char message[96];
    std::snprintf(message, sizeof(message), "checksum mismatch (stored %08x, computed %08x)",
                  stored, computed);
    return Status::Corruption(message);
  }
  return payload;
}

void Crc32cCodec::AppendTo(MutableByteView out, std::size_t size) {
  StoreLittleEndian(Crc32c(ByteView(out.data(), size)), out.data() + size);
}

Result<Bytes> Crc32cCodec::Decode(ByteView encoded, std::size_t max_decoded_bytes) const {
  if (encoded.size() >= kChecksumSize && encoded.size() - kChecksumSize > max_decoded_bytes) {
    return Status::OutOfRange("crc32c: payload of " +
                              std::to_string(encoded.size() - kChecksumSize) +
                              " bytes exceeds the limit of " + std::to_string(max_decoded_bytes));
  }
  CHUNKWISE_ASSIGN_OR_RETURN(const ByteView payload, Verify(encoded));
  return CopyToBytes(payload);
}

}  // namespace chunkwise::codec
