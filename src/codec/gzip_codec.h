// The zarr v3 `gzip` bytes→bytes codec: one gzip member (RFC 1952).
//
// Spec: docs/formats/zarr.md, "Codec pipeline" and "Zarr v2 metadata": gzip,
// not a bare zlib stream. Configuration {"level": 0-9}. Compression runs
// libdeflate (one compressor per level and thread). Decoding runs libdeflate
// sized by the member's ISIZE trailer, and falls back to zlib streaming, capped
// at the caller's limit, for multi-member data or a trailer that does not
// match.
#ifndef CHUNKWISE_CODEC_GZIP_CODEC_H_
#define CHUNKWISE_CODEC_GZIP_CODEC_H_

#include <memory>

#include "codec/codec.h"

namespace chunkwise::codec {

class GzipCodec final : public BytesToBytesCodec {
 public:
  // InvalidArgument unless 0 <= level <= 9 (0 stores without compressing).
  static Result<std::shared_ptr<const GzipCodec>> Create(int level);
  // InvalidArgument naming the field if "level" is missing, unknown keys, or out of range.
  static Result<std::shared_ptr<const GzipCodec>> FromJson(const nlohmann::json& configuration);

  int level() const { return level_; }

  std::string_view name() const override { return "gzip"; }
  nlohmann::json ToJson() const override;
  // Internal only if the compressor cannot be allocated.
  Result<Bytes> Encode(ByteView decoded) const override;
  // Decodes one or more concatenated members. Corruption on malformed,
  // truncated or trailing data or a CRC mismatch; OutOfRange if the result
  // would pass `max_decoded_bytes`.
  Result<Bytes> Decode(ByteView encoded, std::size_t max_decoded_bytes) const override;

 private:
  explicit GzipCodec(int level) : level_(level) {}

  int level_;
};

}  // namespace chunkwise::codec

#endif  // CHUNKWISE_CODEC_GZIP_CODEC_H_
