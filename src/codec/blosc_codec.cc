#include "codec/blosc_codec.h"

#include <blosc.h>

#include <algorithm>
#include <climits>
#include <string>

#include "blosc_region_decoder.h"
#include "codec/deterministic_blosc_lz4.h"
#include "codec/zstd_codec.h"
#include "config_json.h"
#include "encode_buffer.h"

namespace chunkwise::codec {
namespace {

constexpr std::string_view kCodec = "blosc";
// The compressors zarr v3 names; c-blosc may lack some (e.g. snappy).
constexpr std::string_view kZarrCompressors[] = {"lz4",  "lz4hc",  "blosclz",
                                                 "zstd", "snappy", "zlib"};
constexpr std::string_view kShuffleNames[] = {"noshuffle", "shuffle", "bitshuffle"};

// Blosc1 header fields (docs/formats/bcolz.md, "Blosc1 chunk format").
constexpr std::uint8_t kFlagMemcpyed = 0x02;
// Byte and bit shuffle both set announce a Blosc2 extended header (same section).
constexpr std::uint8_t kFlagsBlosc2Extended = 0x05;

Status CheckCompressor(const std::string& cname) {
  const bool zarr_name = std::find(std::begin(kZarrCompressors), std::end(kZarrCompressors),
                                   cname) != std::end(kZarrCompressors);
  if (zarr_name && blosc_compname_to_compcode(cname.c_str()) >= 0) return Status::Ok();
  std::string accepted;
  for (const std::string& name : BloscCompressors()) {
    accepted += (accepted.empty() ? "" : ", ") + name;
  }
  return internal::BadField(kCodec, "cname",
                            "\"" + cname + "\" is not supported (this build: " + accepted + ")");
}

Result<BloscShuffle> ParseShuffle(const std::string& text) {
  for (int i = 0; i < 3; ++i) {
    if (text == kShuffleNames[i]) return static_cast<BloscShuffle>(i);
  }
  return internal::BadField(
      kCodec, "shuffle",
      "must be \"noshuffle\", \"shuffle\" or \"bitshuffle\", got \"" + text + "\"");
}

// Reads the required or optional fields of FromJson into `options`.
Status ReadOptions(const nlohmann::json& configuration, BloscOptions& options) {
  CHUNKWISE_ASSIGN_OR_RETURN(auto cname, internal::GetString(kCodec, configuration, "cname"));
  CHUNKWISE_ASSIGN_OR_RETURN(auto clevel, internal::GetInt(kCodec, configuration, "clevel", 0, 9));
  CHUNKWISE_ASSIGN_OR_RETURN(auto shuffle, internal::GetString(kCodec, configuration, "shuffle"));
  CHUNKWISE_ASSIGN_OR_RETURN(auto typesize,
                             internal::GetInt(kCodec, configuration, "typesize", 1, 255));
  CHUNKWISE_ASSIGN_OR_RETURN(auto blocksize,
                             internal::GetInt(kCodec, configuration, "blocksize", 0, INT_MAX));
  if (!cname) return internal::BadField(kCodec, "cname", "is required");
  if (!clevel) return internal::BadField(kCodec, "clevel", "is required");
  if (!shuffle) return internal::BadField(kCodec, "shuffle", "is required");
  options.cname = *cname;
  options.clevel = static_cast<int>(*clevel);
  CHUNKWISE_ASSIGN_OR_RETURN(options.shuffle, ParseShuffle(*shuffle));
  if (!typesize && options.shuffle != BloscShuffle::kNoShuffle) {
    return internal::BadField(kCodec, "typesize", "is required unless shuffle is \"noshuffle\"");
  }
  options.typesize = static_cast<int>(typesize.value_or(1));
  options.blocksize = static_cast<std::size_t>(blocksize.value_or(0));
  return Status::Ok();
}

// Checks the 16-byte header of an untrusted chunk and returns its nbytes.
Result<std::size_t> ValidateHeader(ByteView encoded, std::size_t max_decoded_bytes) {
  if (encoded.size() < BLOSC_MIN_HEADER_LENGTH) {
    return Status::Corruption("blosc: chunk of " + std::to_string(encoded.size()) +
                              " bytes is shorter than the 16-byte header");
  }
  const std::uint8_t version = encoded[0], flags = encoded[2];
  if (version > BLOSC_VERSION_FORMAT) {
    return Status::Unsupported("blosc: chunk format version " + std::to_string(version) +
                               " is Blosc2; only Blosc1 (version 1-2) is supported");
  }
  if (version == 0 || encoded[1] == 0 || encoded[3] == 0) {
    return Status::Corruption("blosc: header has a zero version, codec version or typesize");
  }
  if ((flags & kFlagsBlosc2Extended) == kFlagsBlosc2Extended) {
    return Status::Unsupported("blosc: chunk has a Blosc2 extended header");
  }
  const std::uint32_t nbytes = LoadLittleEndian<std::uint32_t>(encoded.data() + 4);
  const std::uint32_t cbytes = LoadLittleEndian<std::uint32_t>(encoded.data() + 12);
  if (cbytes != encoded.size()) {
    return Status::Corruption("blosc: header says cbytes " + std::to_string(cbytes) +
                              " but the chunk is " + std::to_string(encoded.size()) + " bytes");
  }
  // No compressor of blosc's decodes more than zstd does, so a chunk
  // declaring more is corrupt: refused before its nbytes is allocated (a
  // string chunk has no size of its own to bound it). Blocks that share
  // their bytes, which no encoder writes, can reach past this too, and are
  // refused as well.
  if (nbytes > ZstdMostDecodedBytes(cbytes)) {
    return Status::Corruption("blosc: header declares " + std::to_string(nbytes) +
                              " decoded bytes, more than its compressors decode from a chunk of " +
                              std::to_string(cbytes) + " bytes");
  }
  std::size_t validated_nbytes = 0;
  if (blosc_cbuffer_validate(encoded.data(), encoded.size(), &validated_nbytes) != 0 ||
      validated_nbytes != nbytes) {
    return Status::Corruption("blosc: blosc_cbuffer_validate rejected the header");
  }
  if ((flags & kFlagMemcpyed) != 0 && std::size_t{nbytes} + BLOSC_MIN_HEADER_LENGTH != cbytes) {
    return Status::Corruption("blosc: stored (memcpyed) chunk size does not match nbytes");
  }
  if (nbytes > max_decoded_bytes) {
    return Status::OutOfRange("blosc: chunk decodes to " + std::to_string(nbytes) +
                              " bytes, over the limit of " + std::to_string(max_decoded_bytes));
  }
  return std::size_t{nbytes};
}

// The deterministic encoder's fixed rules leave no room for other choices.
Status CheckDeterministicOptions(const BloscOptions& options) {
  if (options.cname != "lz4") {
    return internal::BadField(
        kCodec, "cname",
        "must be \"lz4\" for the deterministic encoder, got \"" + options.cname + "\"");
  }
  if (options.shuffle == BloscShuffle::kBitShuffle) {
    return internal::BadField(
        kCodec, "shuffle",
        "must be \"noshuffle\" or \"shuffle\" for the deterministic encoder, got \"bitshuffle\"");
  }
  if (options.blocksize != 0) {
    return internal::BadField(kCodec, "blocksize",
                              "must be 0 for the deterministic encoder (its blocks are a fixed "
                              "64 KiB), got " +
                                  std::to_string(options.blocksize));
  }
  return Status::Ok();
}

}  // namespace

Result<BloscEncoder> ParseBloscEncoder(std::string_view text) {
  if (text == "c-blosc") return BloscEncoder::kCBlosc;
  if (text == "deterministic") return BloscEncoder::kDeterministic;
  return Status::InvalidArgument("blosc encoder must be \"c-blosc\" or \"deterministic\", got \"" +
                                 std::string(text) + "\"");
}

std::vector<std::string> BloscCompressors() {
  std::vector<std::string> names;
  std::string_view list = blosc_list_compressors();
  while (!list.empty()) {
    const std::size_t comma = std::min(list.find(','), list.size());
    names.emplace_back(list.substr(0, comma));
    list.remove_prefix(std::min(comma + 1, list.size()));
  }
  return names;
}

Result<std::shared_ptr<const BloscCodec>> BloscCodec::Create(BloscOptions options) {
  CHUNKWISE_RETURN_IF_ERROR(CheckCompressor(options.cname));
  if (options.clevel < 0 || options.clevel > 9) {
    return internal::BadField(kCodec, "clevel",
                              "must be in 0..9, got " + std::to_string(options.clevel));
  }
  if (options.typesize < 1 || options.typesize > 255) {
    return internal::BadField(kCodec, "typesize",
                              "must be in 1..255, got " + std::to_string(options.typesize));
  }
  if (options.blocksize > static_cast<std::size_t>(INT_MAX)) {
    return internal::BadField(kCodec, "blocksize", "must be at most " + std::to_string(INT_MAX));
  }
  const auto shuffle = static_cast<int>(options.shuffle);
  if (shuffle < 0 || shuffle > 2)
    return internal::BadField(kCodec, "shuffle", "is not a valid mode");
  if (options.encoder == BloscEncoder::kDeterministic) {
    CHUNKWISE_RETURN_IF_ERROR(CheckDeterministicOptions(options));
  }
  return std::shared_ptr<const BloscCodec>(new BloscCodec(std::move(options)));
}

Result<std::shared_ptr<const BloscCodec>> BloscCodec::FromJson(const nlohmann::json& configuration,
                                                               BloscEncoder encoder) {
  CHUNKWISE_RETURN_IF_ERROR(internal::CheckConfigKeys(
      kCodec, configuration, {"cname", "clevel", "shuffle", "typesize", "blocksize"}));
  BloscOptions options;
  CHUNKWISE_RETURN_IF_ERROR(ReadOptions(configuration, options));
  options.encoder = encoder;
  return Create(std::move(options));
}

nlohmann::json BloscCodec::ToJson() const {
  return {{"name", "blosc"},
          {"configuration",
           {{"cname", options_.cname},
            {"clevel", options_.clevel},
            {"shuffle", kShuffleNames[static_cast<int>(options_.shuffle)]},
            {"typesize", options_.typesize},
            {"blocksize", options_.blocksize}}}};
}

Result<Bytes> BloscCodec::Encode(ByteView decoded) const {
  // With room for nbytes + 16, blosc_compress_ctx always fits (it stores raw).
  return internal::CompressIntoBound(decoded.size() + BLOSC_MAX_OVERHEAD,
                                     [&](std::uint8_t* out, std::size_t capacity) {
                                       return EncodeInto(decoded, {out, capacity});
                                     });
}

Result<std::size_t> BloscCodec::EncodeInto(ByteView decoded, MutableByteView out) const {
  if (decoded.size() > static_cast<std::size_t>(BLOSC_MAX_BUFFERSIZE)) {
    return Status::OutOfRange("blosc: input of " + std::to_string(decoded.size()) +
                              " bytes exceeds the Blosc1 limit of " +
                              std::to_string(BLOSC_MAX_BUFFERSIZE) + " bytes (INT_MAX - 16)");
  }
  if (options_.encoder == BloscEncoder::kDeterministic) {
    const DeterministicBloscLz4Options deterministic{
        .typesize = options_.typesize,
        .shuffle = options_.shuffle == BloscShuffle::kShuffle,
        .store_only = options_.clevel == 0};
    return EncodeDeterministicBloscLz4(decoded, deterministic, out);
  }
  // Blosc's choices depend on the room it is given: offering exactly the
  // bound whatever `out` holds keeps the bytes the same as Encode's.
  const std::size_t room = std::min(out.size(), decoded.size() + BLOSC_MAX_OVERHEAD);
  const int written = blosc_compress_ctx(options_.clevel, static_cast<int>(options_.shuffle),
                                         static_cast<std::size_t>(options_.typesize),
                                         decoded.size(), decoded.data(), out.data(), room,
                                         options_.cname.c_str(), options_.blocksize,
                                         /*numinternalthreads=*/1);
  if (written == 0) {
    return Status::OutOfRange("blosc: the output of " + std::to_string(out.size()) +
                              " bytes is too small");
  }
  if (written < 0) {
    return Status::Internal("blosc: blosc_compress_ctx failed with code " +
                            std::to_string(written));
  }
  return static_cast<std::size_t>(written);
}

Result<Bytes> BloscCodec::Decode(ByteView encoded, std::size_t max_decoded_bytes) const {
  CHUNKWISE_ASSIGN_OR_RETURN(const std::size_t nbytes, ValidateHeader(encoded, max_decoded_bytes));
  Bytes decoded(nbytes);
  CHUNKWISE_RETURN_IF_ERROR(DecodeInto(encoded, decoded).status());
  return decoded;
}

Result<std::size_t> BloscCodec::DecodeInto(ByteView encoded, MutableByteView out) const {
  CHUNKWISE_ASSIGN_OR_RETURN(const std::size_t nbytes, ValidateHeader(encoded, out.size()));
  if (nbytes == 0) return nbytes;
  const int written =
      blosc_decompress_ctx(encoded.data(), out.data(), nbytes, /*numinternalthreads=*/1);
  if (written < 0 || static_cast<std::size_t>(written) != nbytes) {
    return Status::Corruption("blosc: blosc_decompress_ctx failed with code " +
                              std::to_string(written));
  }
  return nbytes;
}

Result<bool> BloscCodec::DecodeIntoRegion(ByteView encoded, const ChunkSpec& spec,
                                          const core::Region& box,
                                          const core::StridedDestination& target) const {
  CHUNKWISE_ASSIGN_OR_RETURN(const std::size_t nbytes, ValidateHeader(encoded, spec.num_bytes()));
  if (nbytes != spec.num_bytes()) {
    return Status::Corruption("blosc: chunk decodes to " + std::to_string(nbytes) +
                              " bytes, expected " + std::to_string(spec.num_bytes()));
  }
  return internal::DecodeBloscLz4IntoRegion(encoded, spec.shape, spec.dtype.size(), box, target);
}

}  // namespace chunkwise::codec
