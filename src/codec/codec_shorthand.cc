#include "codec/codec_shorthand.h"

#include <charconv>
#include <string>
#include <vector>

#include "codec/codec_registry.h"

namespace chunkwise::codec {
namespace {

constexpr std::string_view kAcceptedForms =
    "accepted: none, zstd[:LEVEL], gzip[:LEVEL], blosc[:CNAME[:CLEVEL[:SHUFFLE]]] (CNAME lz4det: "
    "lz4 by the deterministic encoder), crc32c, zlib[:LEVEL], lz4[:ACCELERATION], bz2[:LEVEL], "
    "lzma[:PRESET], "
    "joined with '+' (e.g. \"blosc:zstd:3:bitshuffle+crc32c\")";

std::vector<std::string_view> Split(std::string_view text, char separator) {
  std::vector<std::string_view> parts;
  while (true) {
    const std::size_t at = text.find(separator);
    parts.push_back(text.substr(0, at));
    if (at == std::string_view::npos) return parts;
    text.remove_prefix(at + 1);
  }
}

Status Malformed(std::string_view text, std::string_view why) {
  return Status::InvalidArgument("codec shorthand '" + std::string(text) +
                                 "': " + std::string(why) + "; " + std::string(kAcceptedForms));
}

Result<std::int64_t> ParseInteger(std::string_view whole, std::string_view token) {
  std::int64_t value = 0;
  const auto [end, error] = std::from_chars(token.data(), token.data() + token.size(), value);
  if (error != std::errc() || end != token.data() + token.size()) {
    std::string what(1, '\'');  // Not "'" + string: GCC 12 warns falsely (-Wrestrict).
    what += token;
    what += "' is not an integer";
    return Malformed(whole, what);
  }
  return value;
}

// The CNAME that selects the deterministic blosc-lz4 encoder.
constexpr std::string_view kDeterministicLz4 = "lz4det";

// The JSON of one '+'-separated element, not yet range-checked. Sets
// `build.blosc_encoder` when the element chooses an encoder.
Result<nlohmann::json> ParseElement(std::string_view element, std::size_t typesize,
                                    CodecBuildOptions& build) {
  const std::vector<std::string_view> tokens = Split(element, ':');
  const std::string_view name = tokens[0];
  const std::size_t arguments = tokens.size() - 1;
  const bool zstd_checksum = name == "zstd" && arguments == 2 && tokens[2] == "checksum";
  if ((name == "zstd" || name == "gzip") && (arguments <= 1 || zstd_checksum)) {
    std::int64_t level = name == "zstd" ? 3 : 6;
    if (arguments >= 1) {
      CHUNKWISE_ASSIGN_OR_RETURN(level, ParseInteger(element, tokens[1]));
    }
    nlohmann::json codec{{"name", name}, {"configuration", {{"level", level}}}};
    if (zstd_checksum) codec["configuration"]["checksum"] = true;
    return codec;
  }
  if (name == "blosc" && arguments <= 3) {
    std::int64_t clevel = 5;
    if (arguments >= 2) {
      CHUNKWISE_ASSIGN_OR_RETURN(clevel, ParseInteger(element, tokens[2]));
    }
    std::string_view cname = arguments >= 1 ? tokens[1] : "lz4";
    if (cname == kDeterministicLz4) {
      cname = "lz4";
      build.blosc_encoder = BloscEncoder::kDeterministic;
    }
    return nlohmann::json{{"name", "blosc"},
                          {"configuration",
                           {{"cname", cname},
                            {"clevel", clevel},
                            {"shuffle", arguments >= 3 ? tokens[3] : "shuffle"},
                            {"typesize", typesize},
                            {"blocksize", 0}}}};
  }
  if (name == "crc32c" && arguments == 0) return nlohmann::json{{"name", "crc32c"}};
  // numcodecs' compressors, for zarr v2 arrays that older readers take.
  if ((name == "zlib" || name == "lz4" || name == "bz2" || name == "lzma") && arguments <= 1) {
    const std::string_view field = name == "lz4"    ? "acceleration"
                                   : name == "lzma" ? "preset"
                                                    : "level";
    nlohmann::json configuration = nlohmann::json::object();
    if (arguments == 1) {
      CHUNKWISE_ASSIGN_OR_RETURN(configuration[std::string(field)],
                                 ParseInteger(element, tokens[1]));
    }
    return nlohmann::json{{"name", "numcodecs." + std::string(name)},
                          {"configuration", configuration}};
  }
  return Malformed(element, "unrecognized codec");
}

}  // namespace

Result<nlohmann::json> ParseCodecShorthand(std::string_view text, std::size_t typesize) {
  CHUNKWISE_ASSIGN_OR_RETURN(CodecShorthand shorthand,
                             ParseCodecShorthandWithEncoders(text, typesize));
  return std::move(shorthand.codecs);
}

Result<CodecShorthand> ParseCodecShorthandWithEncoders(std::string_view text,
                                                       std::size_t typesize) {
  CodecShorthand shorthand{nlohmann::json::array(), {}};
  if (text.empty() || text == "none") return shorthand;
  std::vector<std::string_view> elements = Split(text, '+');
  for (std::string_view element : elements) {
    CHUNKWISE_ASSIGN_OR_RETURN(nlohmann::json codec,
                               ParseElement(element, typesize, shorthand.build));
    shorthand.codecs.push_back(std::move(codec));
  }
  // Range checks live in the codecs; reuse them rather than repeat them here.
  const CodecRegistry registry = CodecRegistry::WithBuiltins(shorthand.build);
  for (std::size_t i = 0; i < elements.size(); ++i) {
    const Result<std::shared_ptr<const Codec>> created = registry.Create(shorthand.codecs[i]);
    if (!created.ok()) return Malformed(elements[i], created.status().message());
  }
  return shorthand;
}

Result<std::string> WithChecksum(std::string_view text, Checksum checksum) {
  if (checksum == Checksum::kNone) return std::string(text);
  std::vector<std::string_view> elements;
  if (!text.empty() && text != "none") elements = Split(text, '+');
  std::string out;
  bool zstd = false;
  for (const std::string_view element : elements) {
    if (!out.empty()) out += '+';
    const std::vector<std::string_view> tokens = Split(element, ':');
    if (checksum == Checksum::kZstd && tokens[0] == "zstd" && tokens.size() <= 2) {
      zstd = true;
      out += "zstd:" + std::string(tokens.size() == 2 ? tokens[1] : "3") + ":checksum";
    } else {
      zstd = zstd || (tokens[0] == "zstd" && tokens.size() == 3);
      out += element;
    }
  }
  if (checksum == Checksum::kZstd && !zstd) {
    return Status::InvalidArgument("a zstd content checksum needs a zstd codec, and \"" +
                                   std::string(text) + "\" has none");
  }
  if (checksum == Checksum::kCrc32c && (elements.empty() || elements.back() != "crc32c")) {
    out += out.empty() ? "crc32c" : "+crc32c";
  }
  return out.empty() ? std::string("none") : out;
}

}  // namespace chunkwise::codec
