#include "codec/zstd_codec.h"

#include <zstd.h>
#include <zstd_errors.h>

#include <algorithm>
#include <cstdint>
#include <string>

#include "config_json.h"
#include "encode_buffer.h"

namespace chunkwise::codec {
namespace {

constexpr std::string_view kCodec = "zstd";

struct CompressionContextDeleter {
  void operator()(ZSTD_CCtx* context) const { ZSTD_freeCCtx(context); }
};
struct DecompressionContextDeleter {
  void operator()(ZSTD_DCtx* context) const { ZSTD_freeDCtx(context); }
};

// Contexts hold hundreds of KiB of tables; making one per call costs more than
// compressing a small chunk, and a context serves one call at a time.
ZSTD_CCtx* ThreadCompressionContext() {
  thread_local std::unique_ptr<ZSTD_CCtx, CompressionContextDeleter> context(ZSTD_createCCtx());
  return context.get();
}
ZSTD_DCtx* ThreadDecompressionContext() {
  thread_local std::unique_ptr<ZSTD_DCtx, DecompressionContextDeleter> context(ZSTD_createDCtx());
  return context.get();
}

Status ZstdError(std::string_view what, std::size_t code) {
  return Status::Corruption("zstd: " + std::string(what) + ": " + ZSTD_getErrorName(code));
}

Status OverLimit(std::size_t limit) {
  return Status::OutOfRange("zstd: decoded data exceeds the limit of " + std::to_string(limit) +
                            " bytes");
}

// For frames that do not record their content size: decompress into a buffer
// that grows geometrically to at most limit + 1 bytes, so reaching that size
// proves the data is over the limit without decoding the rest.
Result<Bytes> DecodeStreaming(ZSTD_DCtx* context, ByteView encoded, std::size_t limit) {
  const std::size_t capacity_max = limit == SIZE_MAX ? limit : limit + 1;
  Bytes decoded(std::min(capacity_max, std::max(ZSTD_DStreamOutSize(), 4 * encoded.size())));
  ZSTD_inBuffer input{encoded.data(), encoded.size(), 0};
  ZSTD_outBuffer output{decoded.data(), decoded.size(), 0};
  std::size_t remaining_in_frame = 1;  // ZSTD_decompressStream returns 0 at a frame's end.
  while (input.pos < input.size || remaining_in_frame != 0) {
    if (output.pos == output.size) {
      if (output.size >= capacity_max) return OverLimit(limit);
      decoded.resize(std::min(capacity_max, 2 * output.size));
      output.dst = decoded.data();
      output.size = decoded.size();
    }
    remaining_in_frame = ZSTD_decompressStream(context, &output, &input);
    if (ZSTD_isError(remaining_in_frame)) return ZstdError("malformed frame", remaining_in_frame);
    // With room left in the output, the decoder has flushed all it can: a frame
    // still open after all input is consumed was cut short.
    if (input.pos == input.size && output.pos < output.size && remaining_in_frame != 0) {
      return Status::Corruption("zstd: truncated frame");
    }
  }
  if (output.pos > limit) return OverLimit(limit);
  decoded.resize(output.pos);
  return decoded;
}

Status CheckDeclared(unsigned long long total, std::size_t limit) {
  if (total <= limit) return Status::Ok();
  return Status::OutOfRange("zstd: frames declare " + std::to_string(total) +
                            " decoded bytes, over the limit of " + std::to_string(limit));
}

// The decoded size summed over all frames (skippable frames count 0),
// ZSTD_CONTENTSIZE_UNKNOWN if a frame omits it, or Corruption. Only the stable
// API is used: ZSTD_findDecompressedSize needs ZSTD_STATIC_LINKING_ONLY.
Result<unsigned long long> DeclaredSize(ByteView encoded) {
  unsigned long long total = 0;
  while (!encoded.empty()) {
    const unsigned long long size = ZSTD_getFrameContentSize(encoded.data(), encoded.size());
    if (size == ZSTD_CONTENTSIZE_ERROR) return Status::Corruption("zstd: malformed frame header");
    if (size == ZSTD_CONTENTSIZE_UNKNOWN) return size;
    const std::size_t frame_size = ZSTD_findFrameCompressedSize(encoded.data(), encoded.size());
    if (ZSTD_isError(frame_size)) return ZstdError("malformed frame", frame_size);
    // A frame declaring more than its blocks can hold is refused before its
    // declared size is allocated (a string chunk has no size of its own to
    // bound it).
    if (size > ZstdMostDecodedBytes(frame_size)) {
      return Status::Corruption("zstd: a frame of " + std::to_string(frame_size) +
                                " bytes declares " + std::to_string(size) +
                                " decoded bytes, more than its blocks can hold");
    }
    // Saturate: a sum past 2^64 is as over the limit as 2^64 - 1.
    total = size > ZSTD_CONTENTSIZE_ERROR - 1 - total ? ZSTD_CONTENTSIZE_ERROR - 1 : total + size;
    encoded = encoded.subspan(frame_size);
  }
  return total;
}

}  // namespace

Result<std::shared_ptr<const ZstdCodec>> ZstdCodec::Create(ZstdOptions options) {
  if (options.level < ZSTD_minCLevel() || options.level > ZSTD_maxCLevel()) {
    return internal::BadField(kCodec, "level",
                              "must be in " + std::to_string(ZSTD_minCLevel()) + ".." +
                                  std::to_string(ZSTD_maxCLevel()) + ", got " +
                                  std::to_string(options.level));
  }
  return std::shared_ptr<const ZstdCodec>(new ZstdCodec(options));
}

Result<std::shared_ptr<const ZstdCodec>> ZstdCodec::FromJson(const nlohmann::json& configuration) {
  CHUNKWISE_RETURN_IF_ERROR(
      internal::CheckConfigKeys(kCodec, configuration, {"level", "checksum"}));
  CHUNKWISE_ASSIGN_OR_RETURN(auto level, internal::GetInt(kCodec, configuration, "level",
                                                          ZSTD_minCLevel(), ZSTD_maxCLevel()));
  CHUNKWISE_ASSIGN_OR_RETURN(auto checksum, internal::GetBool(kCodec, configuration, "checksum"));
  return Create({static_cast<int>(level.value_or(0)), checksum.value_or(false)});
}

nlohmann::json ZstdCodec::ToJson() const {
  // zarr-extensions: "checksum" may be omitted when false (docs/formats/zarr.md, "Codec pipeline").
  nlohmann::json configuration = {{"level", options_.level}};
  if (options_.checksum) configuration["checksum"] = true;
  return {{"name", "zstd"}, {"configuration", std::move(configuration)}};
}

Result<Bytes> ZstdCodec::Encode(ByteView decoded) const {
  return internal::CompressIntoBound(ZSTD_compressBound(decoded.size()),
                                     [&](std::uint8_t* out, std::size_t capacity) {
                                       return EncodeInto(decoded, {out, capacity});
                                     });
}

Result<std::size_t> ZstdCodec::EncodeInto(ByteView decoded, MutableByteView out) const {
  ZSTD_CCtx* context = ThreadCompressionContext();
  if (context == nullptr) return Status::Internal("zstd: cannot allocate a compression context");
  ZSTD_CCtx_reset(context, ZSTD_reset_session_and_parameters);
  std::size_t status = ZSTD_CCtx_setParameter(context, ZSTD_c_compressionLevel, options_.level);
  if (!ZSTD_isError(status)) {
    status = ZSTD_CCtx_setParameter(context, ZSTD_c_checksumFlag, options_.checksum ? 1 : 0);
  }
  if (ZSTD_isError(status)) {
    return Status::Internal(std::string("zstd: cannot set parameters: ") +
                            ZSTD_getErrorName(status));
  }
  const std::size_t written =
      ZSTD_compress2(context, out.data(), out.size(), decoded.data(), decoded.size());
  if (ZSTD_getErrorCode(written) == ZSTD_error_dstSize_tooSmall) {
    return Status::OutOfRange("zstd: the output of " + std::to_string(out.size()) +
                              " bytes is too small");
  }
  if (ZSTD_isError(written)) {
    return Status::Internal(std::string("zstd: compression failed: ") + ZSTD_getErrorName(written));
  }
  return written;
}

Result<Bytes> ZstdCodec::Decode(ByteView encoded, std::size_t max_decoded_bytes) const {
  if (encoded.empty()) return Status::Corruption("zstd: empty input holds no frame");
  CHUNKWISE_ASSIGN_OR_RETURN(const unsigned long long total, DeclaredSize(encoded));
  if (total == ZSTD_CONTENTSIZE_UNKNOWN) {
    ZSTD_DCtx* context = ThreadDecompressionContext();
    if (context == nullptr)
      return Status::Internal("zstd: cannot allocate a decompression context");
    ZSTD_DCtx_reset(context, ZSTD_reset_session_only);
    return DecodeStreaming(context, encoded, max_decoded_bytes);
  }
  CHUNKWISE_RETURN_IF_ERROR(CheckDeclared(total, max_decoded_bytes));
  Bytes decoded(static_cast<std::size_t>(total));
  CHUNKWISE_RETURN_IF_ERROR(DecodeInto(encoded, decoded).status());
  return decoded;
}

Result<std::size_t> ZstdCodec::DecodeInto(ByteView encoded, MutableByteView out) const {
  if (encoded.empty()) return Status::Corruption("zstd: empty input holds no frame");
  CHUNKWISE_ASSIGN_OR_RETURN(const unsigned long long total, DeclaredSize(encoded));
  if (total == ZSTD_CONTENTSIZE_UNKNOWN) return BytesToBytesCodec::DecodeInto(encoded, out);
  CHUNKWISE_RETURN_IF_ERROR(CheckDeclared(total, out.size()));
  ZSTD_DCtx* context = ThreadDecompressionContext();
  if (context == nullptr) return Status::Internal("zstd: cannot allocate a decompression context");
  ZSTD_DCtx_reset(context, ZSTD_reset_session_only);
  // libzstd checks each frame's declared size against what it decodes.
  const std::size_t written = ZSTD_decompressDCtx(
      context, out.data(), static_cast<std::size_t>(total), encoded.data(), encoded.size());
  if (ZSTD_isError(written)) return ZstdError("malformed frame", written);
  if (written != total) return Status::Corruption("zstd: decoded size differs from header");
  return written;
}

}  // namespace chunkwise::codec
