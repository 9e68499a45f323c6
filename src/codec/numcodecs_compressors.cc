#include "codec/numcodecs_compressors.h"

#include <bzlib.h>
#include <lz4.h>
#include <lzma.h>
#include <zlib.h>

#include <algorithm>
#include <climits>
#include <string>

#include "capped_stream.h"
#include "config_json.h"
#include "encode_buffer.h"

namespace chunkwise::codec {
namespace {

using internal::BadField;
using internal::CheckConfigKeys;
using internal::GetInt;
using internal::StreamStep;

template <typename T>
unsigned int ClampUInt(T size) {
  return static_cast<unsigned int>(std::min<std::size_t>(size, UINT_MAX));
}

// --- zlib --------------------------------------------------------------------

struct Inflater {
  z_stream stream{};
  bool initialized = false;
  ~Inflater() {
    if (initialized) inflateEnd(&stream);
  }
};

// --- lz4 ---------------------------------------------------------------------

// LZ4's densest code: a match whose length takes one more byte for each 255
// decoded bytes (a sequence of 3 + k bytes decodes to at most 19 + 255 k).
constexpr std::size_t kLz4MostDecodedPerByte = 255;

// --- bzip2 -------------------------------------------------------------------

struct Bunzipper {
  bz_stream stream{};
  bool initialized = false;
  ~Bunzipper() { End(); }
  int Init() {
    End();
    stream = bz_stream{};
    const int code = BZ2_bzDecompressInit(&stream, 0, 0);
    initialized = code == BZ_OK;
    return code;
  }
  void End() {
    if (initialized) BZ2_bzDecompressEnd(&stream);
    initialized = false;
  }
};

// --- lzma --------------------------------------------------------------------

constexpr int kLzmaFormatAuto = 0, kLzmaFormatXz = 1, kLzmaFormatAlone = 2;
constexpr std::uint32_t kLzmaExtreme = 0x80000000u;
// Enough for the dictionary of every preset (9: 64 MiB) with room to spare.
constexpr std::uint64_t kLzmaMemoryAllowance = std::uint64_t{128} << 20;
// Past the allowance, a dictionary is allowed only as large as the data the
// input could decode to at this many bytes a byte: well over LZMA's densest
// code (a 273-byte match in some 14 binary decisions of at least 0.022 bits
// each, about 7000 bytes a byte).
constexpr std::uint64_t kLzmaMostDecodedPerByte = std::uint64_t{1} << 16;

struct LzmaStream {
  lzma_stream stream = LZMA_STREAM_INIT;
  ~LzmaStream() { lzma_end(&stream); }
};

Status LzmaError(lzma_ret code) {
  switch (code) {
    case LZMA_MEM_ERROR:
      return Status::Internal("numcodecs.lzma: out of memory");
    case LZMA_MEMLIMIT_ERROR:
      return Status::OutOfRange(
          "numcodecs.lzma: the stream needs more decoder memory than allowed");
    case LZMA_FORMAT_ERROR:
      return Status::Corruption("numcodecs.lzma: not an .xz or .lzma stream");
    case LZMA_OPTIONS_ERROR:
      return Status::Corruption("numcodecs.lzma: unsupported options in the stream header");
    case LZMA_BUF_ERROR:
      return Status::Corruption("numcodecs.lzma: truncated stream");
    default:
      return Status::Corruption("numcodecs.lzma: corrupt data (liblzma code " +
                                std::to_string(static_cast<int>(code)) + ")");
  }
}

}  // namespace

// --- numcodecs.zlib ----------------------------------------------------------

Result<std::shared_ptr<const ZlibCodec>> ZlibCodec::FromJson(const nlohmann::json& configuration) {
  constexpr std::string_view kName = "numcodecs.zlib";
  CHUNKWISE_RETURN_IF_ERROR(CheckConfigKeys(kName, configuration, {"level"}));
  CHUNKWISE_ASSIGN_OR_RETURN(auto level, GetInt(kName, configuration, "level", -1, 9));
  return std::shared_ptr<const ZlibCodec>(new ZlibCodec(static_cast<int>(level.value_or(1))));
}

nlohmann::json ZlibCodec::ToJson() const {
  return {{"name", name()}, {"configuration", {{"level", level_}}}};
}

Result<Bytes> ZlibCodec::Encode(ByteView decoded) const {
  // zlib's own compress2, as Python's zlib.compress: the same bytes numcodecs writes.
  return internal::CompressIntoBound(
      compressBound(decoded.size()),
      [&](std::uint8_t* out, std::size_t capacity) -> Result<std::size_t> {
        uLongf written = capacity;
        const int code = compress2(out, &written, decoded.data(), decoded.size(), level_);
        if (code != Z_OK) {
          return Status::Internal("numcodecs.zlib: compress2 failed (" + std::to_string(code) +
                                  ")");
        }
        return static_cast<std::size_t>(written);
      });
}

Result<Bytes> ZlibCodec::Decode(ByteView encoded, std::size_t max_decoded_bytes) const {
  Inflater inflater;
  if (inflateInit(&inflater.stream) != Z_OK) {
    return Status::Internal("numcodecs.zlib: inflateInit failed");
  }
  inflater.initialized = true;
  z_stream& stream = inflater.stream;
  std::size_t consumed = 0;
  CHUNKWISE_ASSIGN_OR_RETURN(
      Bytes decoded,
      internal::DecodeCapped(
          name(), encoded, max_decoded_bytes, &consumed,
          [&](const std::uint8_t* in, std::size_t in_size, std::uint8_t* out,
              std::size_t out_size) -> Result<StreamStep> {
            stream.next_in = const_cast<Bytef*>(in);
            stream.avail_in = ClampUInt(in_size);
            stream.next_out = out;
            stream.avail_out = ClampUInt(out_size);
            const uInt avail_in = stream.avail_in, avail_out = stream.avail_out;
            const int code = inflate(&stream, Z_NO_FLUSH);
            if (code != Z_OK && code != Z_STREAM_END && code != Z_BUF_ERROR) {
              return Status::Corruption(std::string("numcodecs.zlib: ") +
                                        (stream.msg != nullptr ? stream.msg : "bad data"));
            }
            return StreamStep{avail_in - stream.avail_in, avail_out - stream.avail_out,
                              code == Z_STREAM_END};
          }));
  if (consumed != encoded.size()) {
    return Status::Corruption("numcodecs.zlib: " + std::to_string(encoded.size() - consumed) +
                              " bytes after the end of the stream");
  }
  return decoded;
}

// --- numcodecs.lz4 -----------------------------------------------------------

Result<std::shared_ptr<const Lz4Codec>> Lz4Codec::FromJson(const nlohmann::json& configuration) {
  constexpr std::string_view kName = "numcodecs.lz4";
  CHUNKWISE_RETURN_IF_ERROR(CheckConfigKeys(kName, configuration, {"acceleration"}));
  CHUNKWISE_ASSIGN_OR_RETURN(auto acceleration,
                             GetInt(kName, configuration, "acceleration", INT_MIN, INT_MAX));
  return std::shared_ptr<const Lz4Codec>(new Lz4Codec(static_cast<int>(acceleration.value_or(1))));
}

nlohmann::json Lz4Codec::ToJson() const {
  return {{"name", name()}, {"configuration", {{"acceleration", acceleration_}}}};
}

Result<Bytes> Lz4Codec::Encode(ByteView decoded) const {
  if (decoded.size() > LZ4_MAX_INPUT_SIZE) {
    return Status::InvalidArgument("numcodecs.lz4: " + std::to_string(decoded.size()) +
                                   " bytes is more than one LZ4 block holds");
  }
  const int size = static_cast<int>(decoded.size());
  return internal::CompressIntoBound(
      4 + static_cast<std::size_t>(LZ4_compressBound(size)),
      [&](std::uint8_t* out, std::size_t capacity) -> Result<std::size_t> {
        StoreLittleEndian(static_cast<std::uint32_t>(size), out);
        const int written = LZ4_compress_fast(
            reinterpret_cast<const char*>(decoded.data()), reinterpret_cast<char*>(out + 4), size,
            static_cast<int>(capacity - 4), std::max(1, acceleration_));
        if (written <= 0) return Status::Internal("numcodecs.lz4: LZ4_compress_fast failed");
        return 4 + static_cast<std::size_t>(written);
      });
}

Result<Bytes> Lz4Codec::Decode(ByteView encoded, std::size_t max_decoded_bytes) const {
  if (encoded.size() < 4) {
    return Status::Corruption("numcodecs.lz4: " + std::to_string(encoded.size()) +
                              " bytes is shorter than the 4-byte size header");
  }
  const std::uint32_t size = LoadLittleEndian<std::uint32_t>(encoded.data());
  // A size past what the block can decode to is corrupt: refused before it is
  // allocated (a string chunk has no size of its own to bound it).
  if (size > 0 && size / kLz4MostDecodedPerByte >= encoded.size() - 4) {
    return Status::Corruption("numcodecs.lz4: header declares " + std::to_string(size) +
                              " decoded bytes, more than an LZ4 block of " +
                              std::to_string(encoded.size() - 4) + " bytes decodes to");
  }
  if (size > max_decoded_bytes) {
    return Status::OutOfRange("numcodecs.lz4: header declares " + std::to_string(size) +
                              " decoded bytes, over the limit of " +
                              std::to_string(max_decoded_bytes));
  }
  if (size > LZ4_MAX_INPUT_SIZE || encoded.size() - 4 > INT_MAX) {
    return Status::Corruption("numcodecs.lz4: block larger than LZ4 allows");
  }
  Bytes decoded(size);
  std::uint8_t empty = 0;  // LZ4 wants a valid pointer even for no output.
  const int written =
      LZ4_decompress_safe(reinterpret_cast<const char*>(encoded.data() + 4),
                          reinterpret_cast<char*>(size == 0 ? &empty : decoded.data()),
                          static_cast<int>(encoded.size() - 4), static_cast<int>(size));
  if (written < 0 || static_cast<std::uint32_t>(written) != size) {
    return Status::Corruption("numcodecs.lz4: malformed block (header declares " +
                              std::to_string(size) + " bytes)");
  }
  return decoded;
}

// --- numcodecs.bz2 -----------------------------------------------------------

Result<std::shared_ptr<const Bz2Codec>> Bz2Codec::FromJson(const nlohmann::json& configuration) {
  constexpr std::string_view kName = "numcodecs.bz2";
  CHUNKWISE_RETURN_IF_ERROR(CheckConfigKeys(kName, configuration, {"level"}));
  CHUNKWISE_ASSIGN_OR_RETURN(auto level, GetInt(kName, configuration, "level", 1, 9));
  return std::shared_ptr<const Bz2Codec>(new Bz2Codec(static_cast<int>(level.value_or(1))));
}

nlohmann::json Bz2Codec::ToJson() const {
  return {{"name", name()}, {"configuration", {{"level", level_}}}};
}

Result<Bytes> Bz2Codec::Encode(ByteView decoded) const {
  if (decoded.size() >= UINT_MAX / 2) {
    return Status::InvalidArgument("numcodecs.bz2: " + std::to_string(decoded.size()) +
                                   " bytes is more than one call compresses");
  }
  // bzip2's documented bound: 1% more than the input, plus 600 bytes.
  const std::size_t bound = decoded.size() + decoded.size() / 100 + 601;
  return internal::CompressIntoBound(
      bound, [&](std::uint8_t* out, std::size_t capacity) -> Result<std::size_t> {
        unsigned int written = static_cast<unsigned int>(capacity);
        char empty = 0;  // bzip2 refuses a null source even for no bytes.
        const int code = BZ2_bzBuffToBuffCompress(
            reinterpret_cast<char*>(out), &written,
            decoded.empty() ? &empty
                            : const_cast<char*>(reinterpret_cast<const char*>(decoded.data())),
            static_cast<unsigned int>(decoded.size()), level_, 0, 0);
        if (code != BZ_OK) {
          return Status::Internal("numcodecs.bz2: compression failed (" + std::to_string(code) +
                                  ")");
        }
        return static_cast<std::size_t>(written);
      });
}

Result<Bytes> Bz2Codec::Decode(ByteView encoded, std::size_t max_decoded_bytes) const {
  Bunzipper bunzip;
  if (bunzip.Init() != BZ_OK) return Status::Internal("numcodecs.bz2: cannot start a decoder");
  std::size_t consumed = 0;
  return internal::DecodeCapped(
      name(), encoded, max_decoded_bytes, &consumed,
      [&](const std::uint8_t* in, std::size_t in_size, std::uint8_t* out,
          std::size_t out_size) -> Result<StreamStep> {
        bz_stream& stream = bunzip.stream;
        stream.next_in = const_cast<char*>(reinterpret_cast<const char*>(in));
        stream.avail_in = ClampUInt(in_size);
        stream.next_out = reinterpret_cast<char*>(out);
        stream.avail_out = ClampUInt(out_size);
        const unsigned int avail_in = stream.avail_in, avail_out = stream.avail_out;
        const int code = BZ2_bzDecompress(&stream);
        if (code != BZ_OK && code != BZ_STREAM_END) {
          return Status::Corruption("numcodecs.bz2: malformed stream (bzip2 code " +
                                    std::to_string(code) + ")");
        }
        StreamStep step{avail_in - stream.avail_in, avail_out - stream.avail_out, false};
        if (code == BZ_STREAM_END) {
          // As Python's bz2.decompress: another stream may follow.
          if (step.consumed == in_size) {
            step.ended = true;
          } else if (bunzip.Init() != BZ_OK) {
            return Status::Internal("numcodecs.bz2: cannot start a decoder");
          }
        }
        return step;
      });
}

// --- numcodecs.lzma ----------------------------------------------------------

Result<std::shared_ptr<const LzmaCodec>> LzmaCodec::FromJson(const nlohmann::json& configuration) {
  constexpr std::string_view kName = "numcodecs.lzma";
  CHUNKWISE_RETURN_IF_ERROR(
      CheckConfigKeys(kName, configuration, {"format", "check", "preset", "filters"}));
  CHUNKWISE_ASSIGN_OR_RETURN(auto format, GetInt(kName, configuration, "format", 0, 3));
  CHUNKWISE_ASSIGN_OR_RETURN(auto check, GetInt(kName, configuration, "check", -1, 15));
  if (format.value_or(kLzmaFormatXz) == 3) {
    return Status::Unsupported("codec 'numcodecs.lzma': format 3 (raw) is not supported");
  }
  if (configuration.is_object() && configuration.contains("filters") &&
      !configuration["filters"].is_null()) {
    return Status::Unsupported("codec 'numcodecs.lzma': filters " +
                               internal::ShowJson(configuration["filters"]) +
                               " are not supported (only null)");
  }
  const int check_value = static_cast<int>(check.value_or(-1));
  if (check_value != -1 && check_value != LZMA_CHECK_NONE && check_value != LZMA_CHECK_CRC32 &&
      check_value != LZMA_CHECK_CRC64 && check_value != LZMA_CHECK_SHA256) {
    return BadField(kName, "check",
                    "must be -1, 0, 1, 4 or 10, got " + std::to_string(check_value));
  }
  std::optional<std::uint32_t> preset;
  if (configuration.is_object() && configuration.contains("preset") &&
      !configuration["preset"].is_null()) {
    CHUNKWISE_ASSIGN_OR_RETURN(auto value, GetInt(kName, configuration, "preset", 0, UINT32_MAX));
    const auto bits = static_cast<std::uint32_t>(*value);
    if ((bits & ~kLzmaExtreme) > 9) {
      return BadField(kName, "preset", "must be 0..9, optionally with the extreme flag 2^31");
    }
    preset = bits;
  }
  return std::shared_ptr<const LzmaCodec>(
      new LzmaCodec(static_cast<int>(format.value_or(kLzmaFormatXz)), check_value, preset));
}

nlohmann::json LzmaCodec::ToJson() const {
  return {{"name", name()},
          {"configuration",
           {{"format", format_},
            {"check", check_},
            {"preset", preset_ ? nlohmann::json(*preset_) : nlohmann::json()},
            {"filters", nullptr}}}};
}

Result<Bytes> LzmaCodec::Encode(ByteView decoded) const {
  if (format_ != kLzmaFormatXz) {
    return Status::Unsupported("numcodecs.lzma: writing format " + std::to_string(format_) +
                               " is not supported (only 1, .xz)");
  }
  // Python's lzma defaults: preset 6, and a CRC64 check for .xz.
  const std::uint32_t preset = preset_.value_or(LZMA_PRESET_DEFAULT);
  const auto check = static_cast<lzma_check>(check_ == -1 ? LZMA_CHECK_CRC64 : check_);
  return internal::CompressIntoBound(
      lzma_stream_buffer_bound(decoded.size()),
      [&](std::uint8_t* out, std::size_t capacity) -> Result<std::size_t> {
        std::size_t written = 0;
        const lzma_ret code = lzma_easy_buffer_encode(preset, check, nullptr, decoded.data(),
                                                      decoded.size(), out, &written, capacity);
        if (code != LZMA_OK) {
          return Status::Internal("numcodecs.lzma: compression failed (liblzma code " +
                                  std::to_string(static_cast<int>(code)) + ")");
        }
        return written;
      });
}

Result<Bytes> LzmaCodec::Decode(ByteView encoded, std::size_t max_decoded_bytes) const {
  LzmaStream lzma;
  // The decoder allocates the dictionary its header names: one larger than
  // the data could need is refused before it is allocated (a string chunk has
  // no size of its own to bound it).
  const std::uint64_t could_decode =
      std::min<std::uint64_t>(max_decoded_bytes, encoded.size() * kLzmaMostDecodedPerByte);
  const std::uint64_t memory_limit = could_decode + kLzmaMemoryAllowance;
  lzma_ret code = LZMA_OK;
  if (format_ == kLzmaFormatAlone) {
    code = lzma_alone_decoder(&lzma.stream, memory_limit);
  } else if (format_ == kLzmaFormatAuto) {
    code = lzma_auto_decoder(&lzma.stream, memory_limit, LZMA_CONCATENATED);
  } else {
    code = lzma_stream_decoder(&lzma.stream, memory_limit, LZMA_CONCATENATED);
  }
  if (code != LZMA_OK) return LzmaError(code);
  std::size_t consumed = 0;
  CHUNKWISE_ASSIGN_OR_RETURN(
      Bytes decoded,
      internal::DecodeCapped(
          name(), encoded, max_decoded_bytes, &consumed,
          [&](const std::uint8_t* in, std::size_t in_size, std::uint8_t* out,
              std::size_t out_size) -> Result<StreamStep> {
            lzma_stream& stream = lzma.stream;
            stream.next_in = in;
            stream.avail_in = in_size;
            stream.next_out = out;
            stream.avail_out = out_size;
            // The whole input is here, so every call may say so.
            const lzma_ret step = lzma_code(&stream, LZMA_FINISH);
            const StreamStep done{in_size - stream.avail_in, out_size - stream.avail_out,
                                  step == LZMA_STREAM_END};
            if (step == LZMA_OK || step == LZMA_STREAM_END) return done;
            if (step == LZMA_BUF_ERROR && done.consumed + done.produced > 0) return done;
            if (step == LZMA_MEMLIMIT_ERROR) {
              return Status::OutOfRange("numcodecs.lzma: the stream's header asks for " +
                                        std::to_string(lzma_memusage(&stream)) +
                                        " bytes of decoder memory, more than the " +
                                        std::to_string(memory_limit) + " allowed for " +
                                        std::to_string(encoded.size()) + " bytes of input");
            }
            return LzmaError(step);
          }));
  if (consumed != encoded.size()) {
    return Status::Corruption("numcodecs.lzma: " + std::to_string(encoded.size() - consumed) +
                              " bytes after the end of the stream");
  }
  return decoded;
}

// --- numcodecs.shuffle -------------------------------------------------------

Result<std::shared_ptr<const ShuffleCodec>> ShuffleCodec::FromJson(
    const nlohmann::json& configuration) {
  constexpr std::string_view kName = "numcodecs.shuffle";
  CHUNKWISE_RETURN_IF_ERROR(CheckConfigKeys(kName, configuration, {"elementsize"}));
  CHUNKWISE_ASSIGN_OR_RETURN(auto size,
                             GetInt(kName, configuration, "elementsize", INT32_MIN, INT32_MAX));
  return std::shared_ptr<const ShuffleCodec>(new ShuffleCodec(size.value_or(4)));
}

nlohmann::json ShuffleCodec::ToJson() const {
  return {{"name", name()}, {"configuration", {{"elementsize", element_size_}}}};
}

namespace {

// Byte b of element i moves to b * count + i (shuffle), or back (unshuffle).
void Transpose(const std::uint8_t* in, std::uint8_t* out, std::size_t count, std::size_t width,
               bool shuffle) {
  for (std::size_t i = 0; i < count; ++i) {
    for (std::size_t b = 0; b < width; ++b) {
      if (shuffle) {
        out[b * count + i] = in[i * width + b];
      } else {
        out[i * width + b] = in[b * count + i];
      }
    }
  }
}

}  // namespace

Result<Bytes> ShuffleCodec::Encode(ByteView decoded) const {
  Bytes out(decoded.begin(), decoded.end());
  if (element_size_ <= 1) return out;
  const auto width = static_cast<std::size_t>(element_size_);
  if (decoded.size() % width != 0) {
    return Status::InvalidArgument("numcodecs.shuffle: " + std::to_string(decoded.size()) +
                                   " bytes is not a multiple of the element size " +
                                   std::to_string(width));
  }
  Transpose(decoded.data(), out.data(), decoded.size() / width, width, true);
  return out;
}

Result<Bytes> ShuffleCodec::Decode(ByteView encoded, std::size_t max_decoded_bytes) const {
  if (encoded.size() > max_decoded_bytes) {
    return Status::OutOfRange("numcodecs.shuffle: " + std::to_string(encoded.size()) +
                              " bytes, over the limit of " + std::to_string(max_decoded_bytes));
  }
  Bytes out(encoded.begin(), encoded.end());
  if (element_size_ <= 1) return out;
  const auto width = static_cast<std::size_t>(element_size_);
  if (encoded.size() % width != 0) {
    return Status::Corruption("numcodecs.shuffle: " + std::to_string(encoded.size()) +
                              " bytes is not a multiple of the element size " +
                              std::to_string(width));
  }
  Transpose(encoded.data(), out.data(), encoded.size() / width, width, false);
  return out;
}

}  // namespace chunkwise::codec
