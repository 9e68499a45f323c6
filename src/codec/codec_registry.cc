#include "codec/codec_registry.h"

#include <exception>

#include "codec/blosc_codec.h"
#include "codec/bytes_codec.h"
#include "codec/crc32c_codec.h"
#include "codec/gzip_codec.h"
#include "codec/numcodecs_compressors.h"
#include "codec/numcodecs_filters.h"
#include "codec/transpose_codec.h"
#include "codec/zstd_codec.h"
#include "config_json.h"

namespace chunkwise::codec {
namespace {

// Adapts a typed FromJson to the factory signature.
template <typename CodecType>
CodecFactory FactoryOf() {
  return [](const nlohmann::json& configuration) -> Result<std::shared_ptr<const Codec>> {
    CHUNKWISE_ASSIGN_OR_RETURN(std::shared_ptr<const CodecType> codec,
                               CodecType::FromJson(configuration));
    return std::shared_ptr<const Codec>(std::move(codec));
  };
}

// Splits `codec_json` into the name and configuration; InvalidArgument on any
// other shape. "must_understand" (zarr v3 extension objects) is accepted.
Status ParseCodecJson(const nlohmann::json& codec_json, std::string& name,
                      const nlohmann::json*& configuration) {
  static const nlohmann::json kEmpty = nlohmann::json::object();
  configuration = &kEmpty;
  if (codec_json.is_string()) {
    name = codec_json.get<std::string>();
    return Status::Ok();
  }
  const std::string shown = internal::ShowJson(codec_json);
  if (!codec_json.is_object() || !codec_json.contains("name") || !codec_json["name"].is_string()) {
    return Status::InvalidArgument(
        "codec must be {\"name\": string, \"configuration\": {...}} "
        "or a name string, got " +
        shown);
  }
  name = codec_json["name"].get<std::string>();
  for (const auto& [key, value] : codec_json.items()) {
    if (key == "name") continue;
    if (key == "configuration" && (value.is_object() || value.is_null())) {
      if (value.is_object()) configuration = &value;
      continue;
    }
    if (key == "must_understand" && value.is_boolean()) continue;
    std::string message = "codec '" + name;
    message += "': unexpected member '";
    message += key;
    message += "' in ";
    message += shown;
    return Status::InvalidArgument(std::move(message));
  }
  return Status::Ok();
}

}  // namespace

CodecRegistry CodecRegistry::WithBuiltins(const CodecBuildOptions& build) {
  CodecRegistry registry;
  // Registering a fresh name in an empty registry cannot fail.
  CHUNKWISE_CHECK(registry.Register("bytes", FactoryOf<BytesCodec>()).ok());
  CHUNKWISE_CHECK(registry.Register("transpose", FactoryOf<TransposeCodec>()).ok());
  const BloscEncoder encoder = build.blosc_encoder;
  CHUNKWISE_CHECK(registry
                      .Register("blosc",
                                [encoder](const nlohmann::json& configuration)
                                    -> Result<std::shared_ptr<const Codec>> {
                                  CHUNKWISE_ASSIGN_OR_RETURN(
                                      std::shared_ptr<const BloscCodec> codec,
                                      BloscCodec::FromJson(configuration, encoder));
                                  return std::shared_ptr<const Codec>(std::move(codec));
                                })
                      .ok());
  CHUNKWISE_CHECK(registry.Register("zstd", FactoryOf<ZstdCodec>()).ok());
  CHUNKWISE_CHECK(registry.Register("gzip", FactoryOf<GzipCodec>()).ok());
  CHUNKWISE_CHECK(registry.Register("crc32c", FactoryOf<Crc32cCodec>()).ok());
  // numcodecs' codecs under zarr-python 3's names: what zarr v2 compressors
  // and filters translate to (formats/zarr/v2_metadata.cc).
  CHUNKWISE_CHECK(registry.Register("numcodecs.zlib", FactoryOf<ZlibCodec>()).ok());
  CHUNKWISE_CHECK(registry.Register("numcodecs.lz4", FactoryOf<Lz4Codec>()).ok());
  CHUNKWISE_CHECK(registry.Register("numcodecs.bz2", FactoryOf<Bz2Codec>()).ok());
  CHUNKWISE_CHECK(registry.Register("numcodecs.lzma", FactoryOf<LzmaCodec>()).ok());
  CHUNKWISE_CHECK(registry.Register("numcodecs.shuffle", FactoryOf<ShuffleCodec>()).ok());
  CHUNKWISE_CHECK(registry.Register("numcodecs.delta", FactoryOf<DeltaCodec>()).ok());
  CHUNKWISE_CHECK(
      registry.Register("numcodecs.fixedscaleoffset", FactoryOf<FixedScaleOffsetCodec>()).ok());
  CHUNKWISE_CHECK(registry.Register("numcodecs.quantize", FactoryOf<QuantizeCodec>()).ok());
  CHUNKWISE_CHECK(registry.Register("numcodecs.packbits", FactoryOf<PackBitsCodec>()).ok());
  CHUNKWISE_CHECK(registry.Register("numcodecs.astype", FactoryOf<AsTypeCodec>()).ok());
  return registry;
}

Status CodecRegistry::Register(std::string name, CodecFactory factory) {
  if (name.empty() || !factory) {
    return Status::InvalidArgument("codec registry: a codec needs a name and a factory");
  }
  if (factories_.contains(name)) {
    return Status::InvalidArgument("codec registry: '" + name + "' is already registered");
  }
  factories_.emplace(std::move(name), std::move(factory));
  return Status::Ok();
}

Result<std::shared_ptr<const Codec>> CodecRegistry::Create(const nlohmann::json& codec_json) const {
  // nlohmann::json throws on type errors; no exception may leave this call.
  try {
    std::string name;
    const nlohmann::json* configuration = nullptr;
    CHUNKWISE_RETURN_IF_ERROR(ParseCodecJson(codec_json, name, configuration));
    const auto it = factories_.find(name);
    if (it == factories_.end()) {
      std::string known;
      for (const auto& entry : factories_) known += (known.empty() ? "" : ", ") + entry.first;
      return Status::Unsupported("codec '" + name + "' is not supported (known: " + known + ")");
    }
    return it->second(*configuration);
  } catch (const std::exception& error) {
    return Status::InvalidArgument(std::string("codec JSON rejected: ") + error.what());
  }
}

bool CodecRegistry::Contains(std::string_view name) const { return factories_.contains(name); }

std::vector<std::string> CodecRegistry::names() const {
  std::vector<std::string> names;
  for (const auto& entry : factories_) names.push_back(entry.first);
  return names;
}

}  // namespace chunkwise::codec
