#include "formats/zarr/chunk_key_encoding.h"

#include <charconv>
#include <cstdint>

namespace chunkwise::formats::zarr {
namespace {

// Takes the decimal number `text` starts with, written as std::to_string
// writes it (no sign, no leading zero), if it is below `limit`.
std::optional<core::Index> TakeIndex(std::string_view& text, core::Index limit) {
  std::size_t digits = 0;
  while (digits < text.size() && text[digits] >= '0' && text[digits] <= '9') ++digits;
  if (digits == 0 || (digits > 1 && text[0] == '0')) return std::nullopt;
  std::uint64_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + digits, value);
  if (error != std::errc() || limit <= 0 || value >= static_cast<std::uint64_t>(limit)) {
    return std::nullopt;
  }
  text.remove_prefix(digits);
  return static_cast<core::Index>(value);
}

}  // namespace

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

std::optional<core::Coord> ChunkKeyEncoding::ParseKey(
    std::string_view key, std::span<const core::Index> grid_shape) const {
  const std::size_t rank = grid_shape.size();
  if (kind == Kind::kDefault) {
    if (!key.starts_with('c')) return std::nullopt;
    key.remove_prefix(1);
  } else if (rank == 0) {
    return key == "0" ? std::optional<core::Coord>(core::Coord()) : std::nullopt;
  }
  core::Coord coord(rank);
  for (std::size_t d = 0; d < rank; ++d) {
    // `default` puts the separator before every number, `v2` between them.
    if (kind == Kind::kDefault || d > 0) {
      if (!key.starts_with(separator)) return std::nullopt;
      key.remove_prefix(1);
    }
    const std::optional<core::Index> index = TakeIndex(key, grid_shape[d]);
    if (!index) return std::nullopt;
    coord[d] = *index;
  }
  if (!key.empty()) return std::nullopt;
  return coord;
}

}  // namespace chunkwise::formats::zarr
