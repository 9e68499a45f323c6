#include "chunkwise/formats/zarr/chunk_key_encoding.h"

namespace chunkwise::formats::zarr {

Result<ChunkKeyEncoding> ChunkKeyEncoding::FromJson(const nlohmann::json& json) {
  if (!json.is_object() || !json.contains("name") || !json["name"].is_string()) {
    return Status::InvalidArgument("chunk_key_encoding must be an object with a \"name\"");
  }
  const std::string name = json["name"].get<std::string>();
  ChunkKeyEncoding encoding;
  if (name == "default") {
    encoding = Default();
  } else if (name == "v2") {
    encoding = V2();
  } else {
    return Status::Unsupported("chunk_key_encoding \"" + name + "\" (known: default, v2)");
  }
  if (!json.contains("configuration")) return encoding;
  const nlohmann::json& configuration = json["configuration"];
  if (!configuration.is_object()) {
    return Status::InvalidArgument("chunk_key_encoding configuration must be an object");
  }
  for (const auto& [key, value] : configuration.items()) {
    if (key != "separator") {
      return Status::InvalidArgument("chunk_key_encoding: unknown configuration key \"" + key +
                                     "\"");
    }
    if (value != "/" && value != ".") {
      return Status::InvalidArgument("chunk_key_encoding separator must be \"/\" or \".\", got " +
                                     value.dump());
    }
    encoding.separator = value.get<std::string>()[0];
  }
  return encoding;
}

nlohmann::json ChunkKeyEncoding::ToJson() const {
  return {{"name", kind == Kind::kDefault ? "default" : "v2"},
          {"configuration", {{"separator", std::string(1, separator)}}}};
}

std::string ChunkKeyEncoding::Key(std::span<const core::Index> coord) const {
  std::string key;
  if (kind == Kind::kDefault) {
    key = "c";
    for (core::Index c : coord) {
      key += separator;
      key += std::to_string(c);
    }
    return key;
  }
  if (coord.empty()) return "0";
  for (std::size_t d = 0; d < coord.size(); ++d) {
    if (d > 0) key += separator;
    key += std::to_string(coord[d]);
  }
  return key;
}

}  // namespace chunkwise::formats::zarr
