#include "chunkwise/facade/options.h"

#include "chunkwise/core/index.h"
#include "codec/codec_shorthand.h"
#include "core/dtype_text.h"
#include "core/json.h"

namespace chunkwise {
namespace {

std::string ElementShorthand(const CodecSpec& spec) {
  const std::string level = spec.level >= 0 ? ":" + std::to_string(spec.level) : "";
  switch (spec.kind) {
    case CodecSpec::Kind::kZstd:
      if (spec.zstd_checksum)
        return "zstd:" + std::to_string(spec.level >= 0 ? spec.level : 3) + ":checksum";
      return "zstd" + level;
    case CodecSpec::Kind::kGzip:
      return "gzip" + level;
    case CodecSpec::Kind::kBlosc:
      return "blosc:" + spec.blosc_compressor + ":" +
             std::to_string(spec.level >= 0 ? spec.level : 5) + ":" + spec.blosc_shuffle;
    case CodecSpec::Kind::kCrc32c:
      return "crc32c";
    case CodecSpec::Kind::kZlib:
      return "zlib" + level;
    case CodecSpec::Kind::kLz4:
      return "lz4" + level;
    case CodecSpec::Kind::kBz2:
      return "bz2" + level;
    case CodecSpec::Kind::kLzma:
      return "lzma" + level;
  }
  return "";
}

}  // namespace

std::string CodecChainSpec::ToShorthand() const {
  if (codecs.empty()) return "none";
  std::string text;
  for (const CodecSpec& spec : codecs) text += (text.empty() ? "" : "+") + ElementShorthand(spec);
  return text;
}

Result<CodecChainSpec> ParseCodecs(std::string_view shorthand) {
  // The codec layer checks the spelling and every value's range; this only
  // reads its answer back into the struct.
  CHUNKWISE_ASSIGN_OR_RETURN(const codec::CodecShorthand parsed,
                             codec::ParseCodecShorthandWithEncoders(shorthand, 1));
  const bool deterministic = parsed.build.blosc_encoder == codec::BloscEncoder::kDeterministic;
  CodecChainSpec chain;
  for (const nlohmann::json& codec : parsed.codecs) {
    const std::string name = codec.at("name").get<std::string>();
    const nlohmann::json configuration = codec.value("configuration", nlohmann::json::object());
    CodecSpec spec;
    if (name == "zstd" || name == "gzip") {
      spec.kind = name == "zstd" ? CodecSpec::Kind::kZstd : CodecSpec::Kind::kGzip;
      spec.level = configuration.at("level").get<int>();
      spec.zstd_checksum = configuration.value("checksum", false);
    } else if (name == "blosc") {
      spec.kind = CodecSpec::Kind::kBlosc;
      spec.level = configuration.at("clevel").get<int>();
      spec.blosc_compressor = configuration.at("cname").get<std::string>();
      if (deterministic && spec.blosc_compressor == "lz4") spec.blosc_compressor = "lz4det";
      spec.blosc_shuffle = configuration.at("shuffle").get<std::string>();
    } else if (name == "numcodecs.zlib" || name == "numcodecs.bz2") {
      spec.kind = name == "numcodecs.zlib" ? CodecSpec::Kind::kZlib : CodecSpec::Kind::kBz2;
      spec.level = configuration.value("level", -1);
    } else if (name == "numcodecs.lz4") {
      spec.kind = CodecSpec::Kind::kLz4;
      spec.level = configuration.value("acceleration", -1);
    } else if (name == "numcodecs.lzma") {
      spec.kind = CodecSpec::Kind::kLzma;
      spec.level = configuration.value("preset", -1);
    } else if (name == "crc32c") {
      spec.kind = CodecSpec::Kind::kCrc32c;
    } else {  // A shorthand this struct has no kind for: a bug, never input.
      return Status::Internal("codec shorthand gave \"" + name + "\", which CodecSpec lacks");
    }
    chain.codecs.push_back(std::move(spec));
  }
  return chain;
}

Result<std::optional<ChunkChecksum>> ParseChunkChecksum(std::string_view text) {
  if (text.empty() || text == "default") return std::optional<ChunkChecksum>();
  if (text == "none") return ChunkChecksum::kNone;
  if (text == "crc32c") return ChunkChecksum::kCrc32c;
  if (text == "zstd") return ChunkChecksum::kZstd;
  return Status::InvalidArgument("checksum \"" + std::string(text) +
                                 "\": accepted: default, none, crc32c, zstd")
      .WithField("checksum");
}

Result<std::string> CodecsWithChunkChecksum(std::string_view codecs,
                                            std::optional<ChunkChecksum> checksum,
                                            int zarr_format) {
  // The default is crc32c where the format has the codec: zarr v2 has none,
  // and an array its readers cannot open would be a poor default.
  const ChunkChecksum chosen =
      checksum.value_or(zarr_format == 3 ? ChunkChecksum::kCrc32c : ChunkChecksum::kNone);
  const codec::Checksum as_codec = chosen == ChunkChecksum::kCrc32c ? codec::Checksum::kCrc32c
                                   : chosen == ChunkChecksum::kZstd ? codec::Checksum::kZstd
                                                                    : codec::Checksum::kNone;
  Result<std::string> text = codec::WithChecksum(codecs, as_codec);
  if (!text.ok()) return text.status().WithField("checksum");
  return text;
}

Result<nlohmann::json> ParseJsonOption(std::string_view text, std::string_view what) {
  return core::ParseJson(text, what);
}

Result<core::Shape> ParseArrayShape(std::string_view text) {
  if (core::TrimSpaces(text).empty()) return core::Shape{};
  return core::ParseShape(text);
}

std::vector<std::optional<std::string>> ParseDimensionNames(std::string_view text) {
  std::vector<std::optional<std::string>> names;
  if (text.empty()) return names;
  for (;;) {
    const std::size_t comma = text.find(',');
    const std::string_view name = core::TrimSpaces(text.substr(0, comma));
    names.push_back(name.empty() ? std::nullopt : std::optional<std::string>(name));
    if (comma == std::string_view::npos) return names;
    text.remove_prefix(comma + 1);
  }
}

Result<core::DataType> ParseDataType(std::string_view text) {
  // One parser for every door (core/dtype_text.h): names, typestrs with or
  // without a byte order, big-endian refused.
  return core::ParseDataType(text);
}

Result<core::NpyDtype> ParseFileDtype(std::string_view text) { return core::ParseNpyDtype(text); }

}  // namespace chunkwise
