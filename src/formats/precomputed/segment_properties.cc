#include "formats/precomputed/segment_properties.h"

#include <algorithm>
#include <charconv>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>

#include "core/utf8.h"

namespace chunkwise::formats::precomputed {
namespace {

Status BadLine(std::string_view where, std::size_t line, const std::string& what) {
  return Status::InvalidArgument(std::string(where) + " line " + std::to_string(line) + ": " +
                                 what);
}

// One CSV row's fields; nullopt for a quote left open.
std::optional<std::vector<std::string>> SplitRow(std::string_view row) {
  std::vector<std::string> fields(1);
  bool quoted = false;
  for (std::size_t i = 0; i < row.size(); ++i) {
    const char c = row[i];
    if (quoted) {
      if (c == '"' && i + 1 < row.size() && row[i + 1] == '"') {
        fields.back() += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        fields.back() += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      fields.emplace_back();
    } else {
      fields.back() += c;
    }
  }
  if (quoted) return std::nullopt;
  return fields;
}

std::string Trim(std::string text) {
  const auto first = text.find_first_not_of(" \t\r");
  if (first == std::string::npos) return "";
  return text.substr(first, text.find_last_not_of(" \t\r") - first + 1);
}

std::optional<std::uint64_t> ParseId(const std::string& text) {
  std::uint64_t id = 0;
  const char* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, id);
  if (ec != std::errc() || ptr != end || text.empty()) return std::nullopt;
  return id;
}

std::vector<std::string> SplitTags(const std::string& text) {
  std::vector<std::string> tags;
  std::string tag;
  for (const char c : text + ";") {
    if (c == ';' || c == ' ' || c == '\t') {
      if (!tag.empty()) tags.push_back(tag);
      tag.clear();
    } else {
      tag += c;
    }
  }
  return tags;
}

}  // namespace

std::string SegmentPropertiesInfoText(const std::map<std::uint64_t, std::uint64_t>& voxel_counts,
                                      const std::map<std::uint64_t, SegmentName>& names) {
  nlohmann::json ids = nlohmann::json::array();
  nlohmann::json counts = nlohmann::json::array();
  bool fits = true;
  for (const auto& [id, count] : voxel_counts) {
    ids.push_back(std::to_string(id));
    fits &= count <= std::numeric_limits<std::uint32_t>::max();
  }
  for (const auto& [id, count] : voxel_counts) {
    if (fits) {
      counts.push_back(count);
    } else {
      counts.push_back(static_cast<double>(static_cast<float>(count)));
    }
  }
  nlohmann::json properties = nlohmann::json::array();
  bool any_name = false;
  std::set<std::string> tag_set;
  for (const auto& [id, count] : voxel_counts) {
    const auto it = names.find(id);
    if (it == names.end()) continue;
    any_name |= !it->second.name.empty();
    tag_set.insert(it->second.tags.begin(), it->second.tags.end());
  }
  if (any_name) {
    nlohmann::json values = nlohmann::json::array();
    for (const auto& [id, count] : voxel_counts) {
      const auto it = names.find(id);
      values.push_back(it == names.end() ? "" : it->second.name);
    }
    properties.push_back({{"id", "name"}, {"type", "label"}, {"values", values}});
  }
  properties.push_back({{"id", "voxels"},
                        {"type", "number"},
                        {"data_type", fits ? "uint32" : "float32"},
                        {"description", "voxels of the segment"},
                        {"values", counts}});
  if (!tag_set.empty()) {
    const std::vector<std::string> tags(tag_set.begin(), tag_set.end());
    nlohmann::json values = nlohmann::json::array();
    for (const auto& [id, count] : voxel_counts) {
      nlohmann::json indices = nlohmann::json::array();
      const auto it = names.find(id);
      if (it != names.end()) {
        std::set<std::size_t> seen;
        for (const std::string& tag : it->second.tags) {
          seen.insert(static_cast<std::size_t>(std::lower_bound(tags.begin(), tags.end(), tag) -
                                               tags.begin()));
        }
        for (const std::size_t i : seen) indices.push_back(i);
      }
      values.push_back(indices);
    }
    properties.push_back({{"id", "tags"}, {"type", "tags"}, {"tags", tags}, {"values", values}});
  }
  nlohmann::json info{{"@type", kSegmentPropertiesType},
                      {"inline", {{"ids", ids}, {"properties", properties}}}};
  return info.dump();
}

Result<std::map<std::uint64_t, SegmentName>> ParseSegmentNamesCsv(std::string_view text,
                                                                  std::string_view where) {
  std::map<std::uint64_t, SegmentName> names;
  std::size_t line = 0;
  std::size_t start = 0;
  bool first_row = true;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view row = text.substr(start, end - start);
    start = end + 1;
    ++line;
    if (Trim(std::string(row)).empty()) continue;
    // Names and tags go into a JSON document, which holds only UTF-8 text.
    if (!core::IsUtf8(row)) return BadLine(where, line, "the row is not UTF-8 text");
    const std::optional<std::vector<std::string>> fields = SplitRow(row);
    if (!fields) return BadLine(where, line, "a quote is not closed");
    if (fields->size() > 3) {
      return BadLine(where, line,
                     std::to_string(fields->size()) + " fields; rows are id,name[,tags]");
    }
    const std::string id_text = Trim((*fields)[0]);
    const std::optional<std::uint64_t> id = ParseId(id_text);
    const bool header = first_row && !id;
    first_row = false;
    if (header) continue;
    if (!id) return BadLine(where, line, "\"" + id_text + "\" is not a segment id");
    SegmentName entry;
    if (fields->size() > 1) entry.name = Trim((*fields)[1]);
    if (fields->size() > 2) entry.tags = SplitTags((*fields)[2]);
    if (!names.emplace(*id, std::move(entry)).second) {
      return BadLine(where, line, "segment " + id_text + " is named twice");
    }
  }
  return names;
}

}  // namespace chunkwise::formats::precomputed
