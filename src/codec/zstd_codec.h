// The zarr v3 `zstd` bytes→bytes codec (zarr-extensions): Zstandard frames.
//
// Spec: docs/formats/zarr.md, "Codec pipeline" (zstd `checksum`). Configuration
// {"level": int, "checksum": bool}; level 0 means the library default (3),
// negative levels are the fast modes. `checksum` is read in either form and
// written only when true. Each thread keeps one compression and one
// decompression context, so codecs are cheap to share across threads.
#ifndef CHUNKWISE_CODEC_ZSTD_CODEC_H_
#define CHUNKWISE_CODEC_ZSTD_CODEC_H_

#include <cstdint>
#include <memory>

#include "codec/codec.h"

namespace chunkwise::codec {

// The most `encoded_bytes` of zstd frames can decode to: every block has a
// 3-byte header and decodes to at most 128 KiB. A frame declaring more is
// corrupt, and so is a blosc chunk (zstd is the densest of its compressors).
constexpr std::uint64_t ZstdMostDecodedBytes(std::uint64_t encoded_bytes) {
  return (encoded_bytes / 3 + 1) * (std::uint64_t{128} << 10);
}

struct ZstdOptions {
  int level = 0;          // ZSTD_minCLevel() to ZSTD_maxCLevel(); 0 = default.
  bool checksum = false;  // Append a content checksum (XXH64) to each frame.
};

class ZstdCodec final : public BytesToBytesCodec {
 public:
  // InvalidArgument if the level is outside libzstd's range.
  static Result<std::shared_ptr<const ZstdCodec>> Create(ZstdOptions options);
  // InvalidArgument naming the field on unknown or bad fields; "level" defaults to 0.
  static Result<std::shared_ptr<const ZstdCodec>> FromJson(const nlohmann::json& configuration);

  const ZstdOptions& options() const { return options_; }

  std::string_view name() const override { return "zstd"; }
  nlohmann::json ToJson() const override;
  // One frame with its content size recorded. Internal if libzstd fails.
  Result<Bytes> Encode(ByteView decoded) const override;
  Result<std::size_t> EncodeInto(ByteView decoded, MutableByteView out) const override;
  // Decodes one or more concatenated frames. Corruption on malformed or
  // truncated frames; OutOfRange as soon as the output would pass the limit,
  // whether or not the frames record their content size.
  Result<Bytes> Decode(ByteView encoded, std::size_t max_decoded_bytes) const override;
  // Frames that omit their content size go through Decode.
  Result<std::size_t> DecodeInto(ByteView encoded, MutableByteView out) const override;

 private:
  explicit ZstdCodec(ZstdOptions options) : options_(options) {}

  ZstdOptions options_;
};

}  // namespace chunkwise::codec

#endif  // CHUNKWISE_CODEC_ZSTD_CODEC_H_
