#include "config_json.h"

#include <string>

namespace chunkwise::codec::internal {
namespace {

// The member at `key`, or nullptr; `configuration` is an object or null.
const nlohmann::json* Find(const nlohmann::json& configuration, std::string_view key) {
  if (!configuration.is_object()) return nullptr;
  const auto it = configuration.find(std::string(key));
  return it == configuration.end() ? nullptr : &*it;
}

}  // namespace

std::string ShowJson(const nlohmann::json& value) {
  // `replace` because the default handler throws on invalid UTF-8.
  return value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

Status BadField(std::string_view codec, std::string_view key, std::string_view detail) {
  return Status::InvalidArgument("codec '" + std::string(codec) + "': configuration field '" +
                                 std::string(key) + "' " + std::string(detail));
}

Status CheckConfigKeys(std::string_view codec, const nlohmann::json& configuration,
                       std::initializer_list<std::string_view> allowed) {
  if (configuration.is_null()) return Status::Ok();
  if (!configuration.is_object()) {
    return Status::InvalidArgument("codec '" + std::string(codec) +
                                   "': configuration must be a JSON object, got " +
                                   ShowJson(configuration));
  }
  for (const auto& [key, value] : configuration.items()) {
    bool known = false;
    for (std::string_view name : allowed) known = known || name == key;
    if (!known) {
      std::string accepted;
      for (std::string_view name : allowed) {
        accepted += accepted.empty() ? "" : ", ";
        accepted += name;
      }
      return BadField(
          codec, key,
          "is unknown (accepted: " + (accepted.empty() ? std::string("none") : accepted) + ")");
    }
  }
  return Status::Ok();
}

Result<std::optional<std::int64_t>> GetInt(std::string_view codec,
                                           const nlohmann::json& configuration,
                                           std::string_view key, std::int64_t min,
                                           std::int64_t max) {
  const nlohmann::json* value = Find(configuration, key);
  if (value == nullptr) return std::optional<std::int64_t>();
  const std::string range = std::to_string(min) + ".." + std::to_string(max);
  // An unsigned JSON integer above INT64_MAX is out of every range we accept.
  const bool in_int64 = value->is_number_integer() &&
                        (!value->is_number_unsigned() ||
                         value->get<std::uint64_t>() <= static_cast<std::uint64_t>(INT64_MAX));
  if (!in_int64 || value->get<std::int64_t>() < min || value->get<std::int64_t>() > max) {
    return BadField(codec, key, "must be an integer in " + range + ", got " + ShowJson(*value));
  }
  return std::optional<std::int64_t>(value->get<std::int64_t>());
}

Result<std::optional<std::string>> GetString(std::string_view codec,
                                             const nlohmann::json& configuration,
                                             std::string_view key) {
  const nlohmann::json* value = Find(configuration, key);
  if (value == nullptr) return std::optional<std::string>();
  if (!value->is_string()) return BadField(codec, key, "must be a string, got " + ShowJson(*value));
  return std::optional<std::string>(value->get<std::string>());
}

Result<std::optional<bool>> GetBool(std::string_view codec, const nlohmann::json& configuration,
                                    std::string_view key) {
  const nlohmann::json* value = Find(configuration, key);
  if (value == nullptr) return std::optional<bool>();
  if (!value->is_boolean())
    return BadField(codec, key, "must be a boolean, got " + ShowJson(*value));
  return std::optional<bool>(value->get<bool>());
}

}  // namespace chunkwise::codec::internal
