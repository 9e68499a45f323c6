#include "codec/gzip_codec.h"

#include <libdeflate.h>
#include <zlib.h>

#include <algorithm>
#include <array>
#include <climits>
#include <cstdint>
#include <string>

#include "config_json.h"
#include "encode_buffer.h"

namespace chunkwise::codec {
namespace {

constexpr std::string_view kCodec = "gzip";
constexpr int kMaxLevel = 9;
// A 10-byte header, at least one deflate byte, and the CRC32 + ISIZE trailer.
constexpr std::size_t kMinMemberSize = 10 + 1 + 8;
// Deflate's densest code: a 258-byte match in two bits (a 1-bit length code
// and a 1-bit distance code), 1032 decoded bytes a byte.
constexpr std::size_t kMostDecodedPerByte = 4 * 258;

struct CompressorDeleter {
  void operator()(libdeflate_compressor* c) const { libdeflate_free_compressor(c); }
};
struct DecompressorDeleter {
  void operator()(libdeflate_decompressor* d) const { libdeflate_free_decompressor(d); }
};

// libdeflate (de)compressors are not thread-safe and a compressor is bound to
// one level, so each thread keeps one per level, made on first use.
libdeflate_compressor* ThreadCompressor(int level) {
  thread_local std::array<std::unique_ptr<libdeflate_compressor, CompressorDeleter>, kMaxLevel + 1>
      compressors;
  auto& slot = compressors[level];
  if (slot == nullptr) slot.reset(libdeflate_alloc_compressor(level));
  return slot.get();
}
libdeflate_decompressor* ThreadDecompressor() {
  thread_local std::unique_ptr<libdeflate_decompressor, DecompressorDeleter> decompressor(
      libdeflate_alloc_decompressor());
  return decompressor.get();
}

Status OverLimit(std::size_t limit) {
  return Status::OutOfRange("gzip: decoded data exceeds the limit of " + std::to_string(limit) +
                            " bytes");
}

struct InflateStream {
  z_stream stream{};
  bool initialized = false;
  ~InflateStream() {
    if (initialized) inflateEnd(&stream);
  }
};

// One inflate() call over at most UINT_MAX bytes each way (z_stream counts are
// 32-bit); advances `in_pos` and `out_pos`.
int InflateStep(z_stream& stream, ByteView input, std::size_t& in_pos, Bytes& output,
                std::size_t& out_pos) {
  stream.next_in = const_cast<Bytef*>(input.data() + in_pos);
  stream.avail_in = static_cast<uInt>(std::min<std::size_t>(input.size() - in_pos, UINT_MAX));
  stream.next_out = output.data() + out_pos;
  stream.avail_out = static_cast<uInt>(std::min<std::size_t>(output.size() - out_pos, UINT_MAX));
  const uInt avail_in = stream.avail_in, avail_out = stream.avail_out;
  const int code = inflate(&stream, Z_NO_FLUSH);
  in_pos += avail_in - stream.avail_in;
  out_pos += avail_out - stream.avail_out;
  return code;
}

// The general path: zlib, member after member, into a buffer that grows to at
// most limit + 1 bytes, so reaching that size proves the data is over the limit.
Result<Bytes> InflateCapped(ByteView encoded, std::size_t limit, std::size_t size_hint) {
  const std::size_t capacity_max = limit == SIZE_MAX ? limit : limit + 1;
  Bytes decoded(std::clamp<std::size_t>(size_hint, 1 << 16, capacity_max));
  InflateStream inflater;
  if (inflateInit2(&inflater.stream, 15 + 16) != Z_OK) {  // 15 + 16: gzip wrapper only.
    return Status::Internal("gzip: inflateInit2 failed");
  }
  inflater.initialized = true;
  std::size_t in_pos = 0, out_pos = 0;
  while (true) {
    if (out_pos == decoded.size()) {
      if (decoded.size() >= capacity_max) return OverLimit(limit);
      decoded.resize(std::min(capacity_max, 2 * decoded.size()));
    }
    const int code = InflateStep(inflater.stream, encoded, in_pos, decoded, out_pos);
    if (code == Z_STREAM_END) {
      if (in_pos == encoded.size()) break;
      inflateReset(&inflater.stream);  // Another member follows.
      continue;
    }
    if (code == Z_BUF_ERROR && in_pos == encoded.size()) {
      return Status::Corruption("gzip: truncated member");
    }
    if (code != Z_OK && code != Z_BUF_ERROR) {
      return Status::Corruption(std::string("gzip: ") + (inflater.stream.msg != nullptr
                                                             ? inflater.stream.msg
                                                             : "bad data"));
    }
  }
  if (out_pos > limit) return OverLimit(limit);
  decoded.resize(out_pos);
  return decoded;
}

}  // namespace

Result<std::shared_ptr<const GzipCodec>> GzipCodec::Create(int level) {
  if (level < 0 || level > kMaxLevel) {
    return internal::BadField(kCodec, "level", "must be in 0..9, got " + std::to_string(level));
  }
  return std::shared_ptr<const GzipCodec>(new GzipCodec(level));
}

Result<std::shared_ptr<const GzipCodec>> GzipCodec::FromJson(const nlohmann::json& configuration) {
  CHUNKWISE_RETURN_IF_ERROR(internal::CheckConfigKeys(kCodec, configuration, {"level"}));
  CHUNKWISE_ASSIGN_OR_RETURN(auto level,
                             internal::GetInt(kCodec, configuration, "level", 0, kMaxLevel));
  if (!level) return internal::BadField(kCodec, "level", "is required");
  return Create(static_cast<int>(*level));
}

nlohmann::json GzipCodec::ToJson() const {
  return {{"name", "gzip"}, {"configuration", {{"level", level_}}}};
}

Result<Bytes> GzipCodec::Encode(ByteView decoded) const {
  libdeflate_compressor* compressor = ThreadCompressor(level_);
  if (compressor == nullptr) return Status::Internal("gzip: cannot allocate a compressor");
  return internal::CompressIntoBound(
      libdeflate_gzip_compress_bound(compressor, decoded.size()),
      [&](std::uint8_t* out, std::size_t capacity) -> Result<std::size_t> {
        const std::size_t written =
            libdeflate_gzip_compress(compressor, decoded.data(), decoded.size(), out, capacity);
        if (written == 0) return Status::Internal("gzip: output exceeded the compress bound");
        return written;
      });
}

Result<Bytes> GzipCodec::Decode(ByteView encoded, std::size_t max_decoded_bytes) const {
  if (encoded.size() < kMinMemberSize) {
    return Status::Corruption("gzip: input of " + std::to_string(encoded.size()) +
                              " bytes is shorter than a gzip member");
  }
  if (encoded[0] != 0x1f || encoded[1] != 0x8b || encoded[2] != 8) {
    return Status::Corruption("gzip: input does not start with a gzip member header");
  }
  // ISIZE is the last member's size mod 2^32. It can only understate the total
  // (multiple members, or 4 GiB or more), so a value over the limit is final.
  const std::uint32_t isize = LoadLittleEndian<std::uint32_t>(encoded.data() + encoded.size() - 4);
  // An ISIZE past what deflate can decode from the whole input is corrupt:
  // refused before it is allocated (a string chunk has no size of its own to
  // bound it).
  if (isize / kMostDecodedPerByte >= encoded.size()) {
    return Status::Corruption("gzip: the trailer declares " + std::to_string(isize) +
                              " decoded bytes, more than deflate can decode from " +
                              std::to_string(encoded.size()) + " bytes of input");
  }
  if (isize > max_decoded_bytes) {
    return Status::OutOfRange("gzip: trailer declares " + std::to_string(isize) +
                              " decoded bytes, over the limit of " +
                              std::to_string(max_decoded_bytes));
  }
  libdeflate_decompressor* decompressor = ThreadDecompressor();
  if (decompressor == nullptr) return Status::Internal("gzip: cannot allocate a decompressor");
  Bytes decoded(isize);
  std::uint8_t empty_output = 0;  // libdeflate wants a valid pointer even for 0 bytes.
  std::size_t consumed = 0, written = 0;
  const libdeflate_result result = libdeflate_gzip_decompress_ex(
      decompressor, encoded.data(), encoded.size(), isize == 0 ? &empty_output : decoded.data(),
      decoded.size(), &consumed, &written);
  if (result == LIBDEFLATE_SUCCESS && consumed == encoded.size()) return decoded;
  if (result == LIBDEFLATE_BAD_DATA) return Status::Corruption("gzip: malformed member");
  // More than one member, or the first member is larger than the last's ISIZE.
  return InflateCapped(encoded, max_decoded_bytes, isize);
}

}  // namespace chunkwise::codec
