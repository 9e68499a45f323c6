#include "chunkwise/io/swc.h"

#include <charconv>
#include <cstdio>
#include <unordered_map>

#include "chunkwise/io/text_words.h"
#include "core/file_io.h"

namespace chunkwise::io {

using core::Geometry;
using core::GeometryType;
using core::LinkAttribute;
using core::Vec3f;
using core::VertexAttribute;

namespace {

template <typename T>
bool ParseNumber(std::string_view token, T& value) {
  const auto [ptr, error] = std::from_chars(token.data(), token.data() + token.size(), value);
  return error == std::errc() && ptr == token.data() + token.size();
}

float AttributeOr(const Geometry& geometry, std::string_view name, std::size_t v, float fallback) {
  for (const VertexAttribute& attribute : geometry.vertex_attributes) {
    if (attribute.name == name) return attribute.values[v];
  }
  return fallback;
}

}  // namespace

Result<Geometry> ParseSwc(std::string_view text, std::string_view name) {
  Geometry geometry;
  geometry.type = GeometryType::kSkeleton;
  geometry.vertex_attributes = {{"radius", {}}, {"swc_type", {}}};
  std::unordered_map<std::int64_t, std::int64_t> row_of;
  std::vector<std::pair<std::int64_t, std::size_t>> parents;  // (parent id, line) per row.
  std::size_t line_number = 0;
  for (std::size_t start = 0; start < text.size();) {
    std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(start, end - start);
    start = end + 1;
    ++line_number;
    if (const std::size_t hash = line.find('#'); hash != std::string_view::npos)
      line = line.substr(0, hash);
    const std::vector<std::string_view> tokens = SplitWords(line);
    if (tokens.empty()) continue;
    std::int64_t id = 0, parent = 0;
    double type = 0, x = 0, y = 0, z = 0, radius = 0;
    if (tokens.size() != 7 || !ParseNumber(tokens[0], id) || !ParseNumber(tokens[1], type) ||
        !ParseNumber(tokens[2], x) || !ParseNumber(tokens[3], y) || !ParseNumber(tokens[4], z) ||
        !ParseNumber(tokens[5], radius) || !ParseNumber(tokens[6], parent)) {
      return Status::InvalidArgument(std::string(name) + ":" + std::to_string(line_number) +
                                     ": expected \"id type x y z radius parent\"");
    }
    if (!row_of.try_emplace(id, static_cast<std::int64_t>(geometry.positions.size())).second) {
      return Status::InvalidArgument(std::string(name) + ":" + std::to_string(line_number) +
                                     ": id " + std::to_string(id) + " repeats");
    }
    geometry.positions.push_back(
        {static_cast<float>(x), static_cast<float>(y), static_cast<float>(z)});
    geometry.vertex_attributes[0].values.push_back(static_cast<float>(radius));
    geometry.vertex_attributes[1].values.push_back(static_cast<float>(type));
    parents.emplace_back(parent, line_number);
  }
  for (std::size_t row = 0; row < parents.size(); ++row) {
    const auto [parent, line] = parents[row];
    if (parent == -1) continue;
    const auto found = row_of.find(parent);
    if (found == row_of.end()) {
      return Status::InvalidArgument(std::string(name) + ":" + std::to_string(line) + ": parent " +
                                     std::to_string(parent) + " is not a sample");
    }
    geometry.links.push_back(static_cast<std::int64_t>(row));
    geometry.links.push_back(found->second);
  }
  Status valid = geometry.Validate();
  if (!valid.ok()) return valid.WithContext(name);
  return geometry;
}

Result<Geometry> ReadSwc(const std::filesystem::path& path) {
  CHUNKWISE_ASSIGN_OR_RETURN(Bytes text, core::ReadFile(path));
  return ParseSwc(AsChars(text), path.string());
}

Result<std::string> FormatSwc(const Geometry& geometry) {
  if (geometry.link_width() != 2 && geometry.link_width() != 0) {
    return Status::InvalidArgument("SWC holds skeletons (links of two vertices)");
  }
  std::vector<std::int64_t> parent(geometry.positions.size(), -1);
  for (std::size_t r = 0; r < geometry.num_links(); ++r) {
    const std::int64_t child = geometry.links[2 * r];
    if (parent[child] != -1) {
      return Status::InvalidArgument("SWC: vertex " + std::to_string(child) +
                                     " has more than one parent");
    }
    parent[child] = geometry.links[2 * r + 1];
  }
  std::string text = "# written by chunkwise: id type x y z radius parent\n";
  char line[256];
  for (std::size_t v = 0; v < geometry.positions.size(); ++v) {
    const Vec3f& p = geometry.positions[v];
    std::snprintf(line, sizeof(line), "%zu %d %.9g %.9g %.9g %.9g %lld\n", v + 1,
                  static_cast<int>(AttributeOr(geometry, "swc_type", v, 0)), p[0], p[1], p[2],
                  AttributeOr(geometry, "radius", v, 1.0f),
                  static_cast<long long>(parent[v] < 0 ? -1 : parent[v] + 1));
    text += line;
  }
  return text;
}

}  // namespace chunkwise::io
