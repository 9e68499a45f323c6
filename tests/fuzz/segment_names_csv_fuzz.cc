// libFuzzer target: the CSV of segment names and tags (`chunkwise mesh
// --names`) from arbitrary text. Parsing must return the names or an error;
// the properties info built from parsed names must be JSON whose ids are the
// counts' ids.
#include <cstdlib>
#include <map>
#include <nlohmann/json.hpp>
#include <string_view>

#include "formats/precomputed/segment_properties.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace chunkwise::formats::precomputed;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto names = ParseSegmentNamesCsv(text, "fuzz.csv");
  if (!names.ok()) return 0;
  std::map<std::uint64_t, std::uint64_t> counts;
  for (const auto& [id, name] : *names) counts[id] = 1;
  const auto info =
      nlohmann::json::parse(SegmentPropertiesInfoText(counts, *names), nullptr, false);
  if (info.is_discarded() || info["inline"]["ids"].size() != counts.size()) std::abort();
  return 0;
}
