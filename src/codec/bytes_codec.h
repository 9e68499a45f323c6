// The zarr v3 `bytes` array→bytes codec: elements in C order in a stated byte order.
//
// Spec: docs/formats/zarr.md, "Codec pipeline". Configuration {"endian":
// "little"|"big"}; the field may be omitted only for 1-byte data types, so a
// codec without it fails on wider types when it encodes or decodes, not when it
// is created (the data type is not known then). Complex types swap each half.
#ifndef CHUNKWISE_CODEC_BYTES_CODEC_H_
#define CHUNKWISE_CODEC_BYTES_CODEC_H_

#include <memory>
#include <optional>

#include "codec/codec.h"

namespace chunkwise::codec {

class BytesCodec final : public ArrayToBytesCodec {
 public:
  // `endian` nullopt means "not stated", valid for 1-byte data types only.
  static std::shared_ptr<const BytesCodec> Create(std::optional<core::Endian> endian);
  // InvalidArgument on unknown keys or an endian other than "little" or "big".
  static Result<std::shared_ptr<const BytesCodec>> FromJson(const nlohmann::json& configuration);

  const std::optional<core::Endian>& endian() const { return endian_; }

  std::string_view name() const override { return "bytes"; }
  nlohmann::json ToJson() const override;
  // InvalidArgument if data.size() != spec.num_bytes() or the endian is missing
  // for a multi-byte type.
  Result<Bytes> Encode(const ChunkSpec& spec, ByteView data) const override;
  // Corruption if encoded.size() != spec.num_bytes(); InvalidArgument as Encode.
  Result<Bytes> Decode(const ChunkSpec& spec, ByteView encoded) const override;
  // One-byte types, or the host's byte order stated.
  bool PassesThrough(const ChunkSpec& spec) const override;

 private:
  explicit BytesCodec(std::optional<core::Endian> endian) : endian_(endian) {}
  // Copies `input`, swapping bytes when the stated order is not the host's.
  Result<Bytes> Convert(const ChunkSpec& spec, ByteView input) const;

  std::optional<core::Endian> endian_;
};

}  // namespace chunkwise::codec

#endif  // CHUNKWISE_CODEC_BYTES_CODEC_H_
