#include "formats/dvid/value_envelope.h"

#include <lz4.h>
#include <snappy.h>
#include <zlib.h>

#include <algorithm>
#include <climits>
#include <string>

#include "codec/gzip_codec.h"

namespace chunkwise::formats::dvid {
namespace {

constexpr int kGoDefaultGzipLevel = 6;

Status TooLarge(std::string_view name, std::uint64_t size, std::size_t limit) {
  return Status::OutOfRange(std::string(name) + ": DVID value payload of " + std::to_string(size) +
                            " bytes exceeds the limit of " + std::to_string(limit));
}

std::uint32_t Crc32Ieee(ByteView bytes) {
  uLong crc = crc32(0L, Z_NULL, 0);
  std::size_t at = 0;
  while (at < bytes.size()) {  // zlib takes 32-bit lengths.
    const uInt piece = static_cast<uInt>(std::min<std::size_t>(bytes.size() - at, 1u << 30));
    crc = crc32(crc, bytes.data() + at, piece);
    at += piece;
  }
  return static_cast<std::uint32_t>(crc);
}

Result<Bytes> DecodeSnappy(ByteView data, std::size_t limit, std::string_view name) {
  const char* input = reinterpret_cast<const char*>(data.data());
  std::size_t size = 0;
  if (!snappy::GetUncompressedLength(input, data.size(), &size)) {
    return Status::Corruption(std::string(name) + ": snappy value has no valid length");
  }
  if (size > limit) return TooLarge(name, size, limit);
  Bytes out(size);
  if (!snappy::RawUncompress(input, data.size(), reinterpret_cast<char*>(out.data()))) {
    return Status::Corruption(std::string(name) + ": snappy value does not decode");
  }
  return out;
}

Result<Bytes> DecodeLz4(ByteView data, std::size_t limit, std::string_view name) {
  if (data.size() < 4) {
    return Status::Corruption(std::string(name) + ": lz4 value has no 4-byte size");
  }
  const std::uint32_t size = LoadLittleEndian<std::uint32_t>(data.data());
  if (size > limit) return TooLarge(name, size, limit);
  if (data.size() - 4 > static_cast<std::size_t>(INT32_MAX) || size > INT32_MAX) {
    return Status::Unsupported(std::string(name) + ": lz4 value over 2 GiB");
  }
  Bytes out(size);
  const int got = LZ4_decompress_safe(reinterpret_cast<const char*>(data.data() + 4),
                                      reinterpret_cast<char*>(out.data()),
                                      static_cast<int>(data.size() - 4), static_cast<int>(size));
  if (got < 0 || static_cast<std::uint32_t>(got) != size) {
    return Status::Corruption(std::string(name) + ": lz4 value does not decode to its stated " +
                              std::to_string(size) + " bytes");
  }
  return out;
}

}  // namespace

Result<Bytes> EncodeGzipValue(ByteView payload) {
  CHUNKWISE_ASSIGN_OR_RETURN(auto gzip, codec::GzipCodec::Create(kGoDefaultGzipLevel));
  CHUNKWISE_ASSIGN_OR_RETURN(Bytes compressed, gzip->Encode(payload));
  Bytes value;
  value.reserve(compressed.size() + 1);
  value.push_back(kGzipEnvelope);
  AppendBytes(value, compressed);
  return value;
}

Bytes EncodeUncompressedValue(ByteView payload, bool with_crc32) {
  Bytes value;
  value.push_back(with_crc32 ? 0x08 : 0x00);
  if (with_crc32) AppendLittleEndian(Crc32Ieee(payload), value);
  AppendBytes(value, payload);
  return value;
}

Result<Bytes> DecodeValue(ByteView value, std::size_t max_payload_bytes, std::string_view name) {
  if (value.empty()) return Status::Corruption(std::string(name) + ": empty DVID value");
  const std::uint8_t format = value[0];
  const std::uint32_t compression = format >> 5;
  const std::uint32_t checksum = (format >> 3) & 3;
  ByteView data = value.subspan(1);
  if (checksum > 1 || (format & 7) != 0) {
    return Status::Unsupported(std::string(name) + ": DVID value format byte " +
                               std::to_string(format) + " names an unknown checksum");
  }
  if (checksum == 1) {
    if (data.size() < 4) return Status::Corruption(std::string(name) + ": CRC32 missing");
    const std::uint32_t stored = LoadLittleEndian<std::uint32_t>(data.data());
    data = data.subspan(4);
    if (Crc32Ieee(data) != stored) {
      return Status::Corruption(std::string(name) + ": DVID value fails its CRC32 check");
    }
  }
  switch (static_cast<ValueCompression>(compression)) {
    case ValueCompression::kNone:
      if (data.size() > max_payload_bytes) return TooLarge(name, data.size(), max_payload_bytes);
      return CopyToBytes(data);
    case ValueCompression::kSnappy:
      return DecodeSnappy(data, max_payload_bytes, name);
    case ValueCompression::kGzip: {
      CHUNKWISE_ASSIGN_OR_RETURN(auto gzip, codec::GzipCodec::Create(kGoDefaultGzipLevel));
      Result<Bytes> payload = gzip->Decode(data, max_payload_bytes);
      if (!payload.ok()) return payload.status().WithContext(name);
      return payload;
    }
    case ValueCompression::kLz4:
      return DecodeLz4(data, max_payload_bytes, name);
    default:
      return Status::Unsupported(std::string(name) + ": DVID value compression " +
                                 std::to_string(compression) + " is not supported");
  }
}

Result<Bytes> GunzipIfGzip(Bytes bytes, std::string_view name, std::size_t max_bytes) {
  if (bytes.size() < 2 || bytes[0] != 0x1f || bytes[1] != 0x8b) return bytes;
  CHUNKWISE_ASSIGN_OR_RETURN(auto gzip, codec::GzipCodec::Create(kGoDefaultGzipLevel));
  Result<Bytes> out = gzip->Decode(bytes, max_bytes);
  if (!out.ok()) return out.status().WithContext(name);
  return out;
}

}  // namespace chunkwise::formats::dvid
