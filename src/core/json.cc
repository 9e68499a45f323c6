#include "core/json.h"

#include <string>

namespace chunkwise::core {
namespace {

template <typename Json>
Result<Json> Parse(std::string_view text, std::string_view where, StatusCode code) {
  bool too_deep = false;
  // The callback sees each value as it starts; returning false drops it, so
  // a refused document costs no more memory than its allowed part.
  const typename Json::parser_callback_t limit =
      [&too_deep](int depth, typename Json::parse_event_t event, Json&) {
        const bool opens =
            event == Json::parse_event_t::object_start || event == Json::parse_event_t::array_start;
        if (!opens || depth < kMaxJsonDepth) return true;
        too_deep = true;
        return false;
      };
  Json json = Json::parse(text, limit, /*allow_exceptions=*/false);
  if (too_deep) {
    return Status(code, std::string(where) + ": JSON nested deeper than " +
                            std::to_string(kMaxJsonDepth) + " levels");
  }
  if (json.is_discarded()) return Status(code, std::string(where) + ": not valid JSON");
  return json;
}

}  // namespace

Result<nlohmann::json> ParseJson(std::string_view text, std::string_view where, StatusCode code) {
  return Parse<nlohmann::json>(text, where, code);
}

Result<nlohmann::ordered_json> ParseOrderedJson(std::string_view text, std::string_view where,
                                                StatusCode code) {
  return Parse<nlohmann::ordered_json>(text, where, code);
}

}  // namespace chunkwise::core
