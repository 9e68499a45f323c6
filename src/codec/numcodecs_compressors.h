// numcodecs' compressors and its byte shuffle as bytes→bytes codecs, under
// the names zarr-python 3 gives them ("numcodecs.zlib", ...).
//
// Spec: docs/formats/zarr.md, "numcodecs codecs". A zarr v2 `.zarray` names
// these by `id` in its `compressor` or `filters`; the v2 translation
// (formats/zarr/v2_metadata.cc) turns {"id": "zlib", "level": 1} into
// {"name": "numcodecs.zlib", "configuration": {"level": 1}}, which is also how
// a zarr v3 array written by zarr-python with numcodecs' codecs spells them.
// Each configuration is written back as it was read (defaults filled in).
//
//   numcodecs.zlib    {"level": -1..9}              a zlib stream (RFC 1950)
//   numcodecs.lz4     {"acceleration": int}         4-byte little-endian decoded
//                                                   size, then one LZ4 block
//   numcodecs.bz2     {"level": 1..9}               one or more bzip2 streams
//   numcodecs.lzma    {"format": 0|1|2, "check": -1|0|1|4|10,
//                      "preset": null|0..9 (| 2^31 extreme), "filters": null}
//                     format 1 (.xz, the default), 2 (.lzma "alone") or 0
//                     (either, when decoding); written only as format 1
//   numcodecs.shuffle {"elementsize": int}          byte i of every element
//                                                   together, for i in order
//
// Decoders follow codec.h: Corruption on malformed input, OutOfRange before
// producing more than the caller's limit, never a write past it.
#ifndef CHUNKWISE_CODEC_NUMCODECS_COMPRESSORS_H_
#define CHUNKWISE_CODEC_NUMCODECS_COMPRESSORS_H_

#include <cstdint>
#include <memory>
#include <optional>

#include "codec/codec.h"

namespace chunkwise::codec {

class ZlibCodec final : public BytesToBytesCodec {
 public:
  // "level" defaults to 1, as numcodecs'; -1 is zlib's default (6).
  static Result<std::shared_ptr<const ZlibCodec>> FromJson(const nlohmann::json& configuration);
  std::string_view name() const override { return "numcodecs.zlib"; }
  nlohmann::json ToJson() const override;
  Result<Bytes> Encode(ByteView decoded) const override;
  // One stream; Corruption also for bytes after its end.
  Result<Bytes> Decode(ByteView encoded, std::size_t max_decoded_bytes) const override;

 private:
  explicit ZlibCodec(int level) : level_(level) {}
  int level_;
};

class Lz4Codec final : public BytesToBytesCodec {
 public:
  // "acceleration" defaults to 1; values below 1 mean 1, as in liblz4.
  static Result<std::shared_ptr<const Lz4Codec>> FromJson(const nlohmann::json& configuration);
  std::string_view name() const override { return "numcodecs.lz4"; }
  nlohmann::json ToJson() const override;
  // InvalidArgument for more than LZ4_MAX_INPUT_SIZE bytes.
  Result<Bytes> Encode(ByteView decoded) const override;
  // OutOfRange when the header's size passes the limit (checked before any
  // allocation); Corruption unless the block decodes to exactly that size.
  Result<Bytes> Decode(ByteView encoded, std::size_t max_decoded_bytes) const override;

 private:
  explicit Lz4Codec(int acceleration) : acceleration_(acceleration) {}
  int acceleration_;
};

class Bz2Codec final : public BytesToBytesCodec {
 public:
  // "level" (bzip2's block size in 100 kB) defaults to 1, as numcodecs'.
  static Result<std::shared_ptr<const Bz2Codec>> FromJson(const nlohmann::json& configuration);
  std::string_view name() const override { return "numcodecs.bz2"; }
  nlohmann::json ToJson() const override;
  // InvalidArgument for 4 GiB or more (bzip2's buffer calls count in 32 bits).
  Result<Bytes> Encode(ByteView decoded) const override;
  Result<Bytes> Decode(ByteView encoded, std::size_t max_decoded_bytes) const override;

 private:
  explicit Bz2Codec(int level) : level_(level) {}
  int level_;
};

class LzmaCodec final : public BytesToBytesCodec {
 public:
  // Unsupported for "filters" other than null (numcodecs itself cannot
  // decode .xz written with them) and for format 3 (raw).
  static Result<std::shared_ptr<const LzmaCodec>> FromJson(const nlohmann::json& configuration);
  std::string_view name() const override { return "numcodecs.lzma"; }
  nlohmann::json ToJson() const override;
  // Unsupported unless format is 1 (.xz).
  Result<Bytes> Encode(ByteView decoded) const override;
  // Concatenated streams are decoded one after another. The decoder's own
  // memory is capped too (its dictionary: 128 MiB beyond the limit, more
  // than any preset uses); a stream asking more is OutOfRange.
  Result<Bytes> Decode(ByteView encoded, std::size_t max_decoded_bytes) const override;

 private:
  LzmaCodec(int format, int check, std::optional<std::uint32_t> preset)
      : format_(format), check_(check), preset_(preset) {}
  int format_;
  int check_;
  std::optional<std::uint32_t> preset_;
};

class ShuffleCodec final : public BytesToBytesCodec {
 public:
  // "elementsize" defaults to 4, as numcodecs'; 1 or less leaves bytes as they are.
  static Result<std::shared_ptr<const ShuffleCodec>> FromJson(const nlohmann::json& configuration);
  std::string_view name() const override { return "numcodecs.shuffle"; }
  nlohmann::json ToJson() const override;
  // InvalidArgument when the size is not a multiple of the element size.
  Result<Bytes> Encode(ByteView decoded) const override;
  // Corruption when the size is not a multiple of the element size.
  Result<Bytes> Decode(ByteView encoded, std::size_t max_decoded_bytes) const override;

 private:
  explicit ShuffleCodec(std::int64_t element_size) : element_size_(element_size) {}
  std::int64_t element_size_;
};

}  // namespace chunkwise::codec

#endif  // CHUNKWISE_CODEC_NUMCODECS_COMPRESSORS_H_
