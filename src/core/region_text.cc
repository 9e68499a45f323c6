#include "core/region_text.h"

#include <optional>
#include <string>

#include "chunkwise/core/index.h"

namespace chunkwise::core {

Result<Region> ParseBox(std::string_view text, const Region& defaults) {
  Coord start = defaults.start();
  Coord stop = defaults.stop();
  if (TrimSpaces(text).empty()) return defaults;
  auto error = [&](std::size_t d, std::string_view field, std::string_view why) {
    return Status::InvalidArgument("invalid region \"" + std::string(text) + "\": dimension " +
                                   std::to_string(d) + " (\"" + std::string(field) +
                                   "\"): " + std::string(why));
  };
  // An absent bound keeps `fallback`; false when the text is not an integer.
  auto bound = [](std::string_view bound_text, Index& out) {
    bound_text = TrimSpaces(bound_text);
    if (bound_text.empty()) return true;
    const std::optional<Index> value = ParseIndex(bound_text);
    if (value) out = *value;
    return value.has_value();
  };
  std::string_view rest = text;
  for (std::size_t d = 0;; ++d) {
    const std::size_t comma = rest.find(',');
    const std::string_view field = rest.substr(0, comma);
    if (d >= start.size()) {
      return Status::InvalidArgument("invalid region \"" + std::string(text) + "\": more than " +
                                     std::to_string(start.size()) + " dimensions");
    }
    const std::size_t colon = field.find(':');
    if (colon == std::string_view::npos) {
      if (TrimSpaces(field).empty() || !bound(field, start[d])) {
        return error(d, field, "index is not an integer");
      }
      stop[d] = start[d] + 1;
    } else {
      if (field.find(':', colon + 1) != std::string_view::npos) {
        return error(d, field, "steps are not supported");
      }
      if (!bound(field.substr(0, colon), start[d]))
        return error(d, field, "start is not an integer");
      if (!bound(field.substr(colon + 1), stop[d]))
        return error(d, field, "stop is not an integer");
      if (start[d] > stop[d]) {
        return error(
            d, field,
            "start " + std::to_string(start[d]) + " is after stop " + std::to_string(stop[d]));
      }
    }
    if (comma == std::string_view::npos) break;
    rest.remove_prefix(comma + 1);
  }
  return Region(std::move(start), std::move(stop));
}

}  // namespace chunkwise::core
