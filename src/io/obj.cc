#include "chunkwise/io/obj.h"

#include <charconv>
#include <cstdio>

#include "chunkwise/io/text_words.h"
#include "core/file_io.h"

namespace chunkwise::io {

using core::Geometry;
using core::GeometryType;
using core::LinkAttribute;
using core::Vec3f;
using core::VertexAttribute;

namespace {

// The vertex number of a face entry ("i", "i/t", "i//n", "i/t/n"), 0-based.
bool FaceIndex(std::string_view entry, std::int64_t vertices, std::int64_t& index) {
  entry = entry.substr(0, entry.find('/'));
  std::int64_t value = 0;
  const auto [ptr, error] = std::from_chars(entry.data(), entry.data() + entry.size(), value);
  if (error != std::errc() || ptr != entry.data() + entry.size() || value == 0) return false;
  index = value > 0 ? value - 1 : vertices + value;
  return index >= 0 && index < vertices;
}

}  // namespace

Result<Geometry> ParseObj(std::string_view text, std::string_view name) {
  Geometry geometry;
  geometry.type = GeometryType::kMesh;
  std::size_t line_number = 0;
  for (std::size_t start = 0; start < text.size();) {
    std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    const std::vector<std::string_view> words = SplitWords(text.substr(start, end - start));
    start = end + 1;
    ++line_number;
    const auto bad = [&] {
      return Status::InvalidArgument(std::string(name) + ":" + std::to_string(line_number) +
                                     ": malformed");
    };
    if (words.empty()) continue;
    if (words[0] == "v") {
      if (words.size() < 4) return bad();
      Vec3f position{};
      for (int d = 0; d < 3; ++d) {
        const auto [ptr, error] = std::from_chars(
            words[1 + d].data(), words[1 + d].data() + words[1 + d].size(), position[d]);
        if (error != std::errc() || ptr != words[1 + d].data() + words[1 + d].size()) return bad();
      }
      geometry.positions.push_back(position);
    } else if (words[0] == "f") {
      if (words.size() < 4) return bad();
      const auto vertices = static_cast<std::int64_t>(geometry.positions.size());
      std::vector<std::int64_t> polygon(words.size() - 1);
      for (std::size_t i = 1; i < words.size(); ++i) {
        if (!FaceIndex(words[i], vertices, polygon[i - 1])) return bad();
      }
      for (std::size_t i = 1; i + 1 < polygon.size(); ++i) {
        geometry.links.insert(geometry.links.end(), {polygon[0], polygon[i], polygon[i + 1]});
      }
    }
  }
  Status valid = geometry.Validate();
  if (!valid.ok()) return valid.WithContext(name);
  return geometry;
}

Result<Geometry> ReadObj(const std::filesystem::path& path) {
  CHUNKWISE_ASSIGN_OR_RETURN(Bytes text, core::ReadFile(path));
  return ParseObj(AsChars(text), path.string());
}

std::string FormatObj(const Geometry& geometry) {
  std::string text = "# written by chunkwise\n";
  char line[160];
  for (const Vec3f& p : geometry.positions) {
    std::snprintf(line, sizeof(line), "v %.9g %.9g %.9g\n", p[0], p[1], p[2]);
    text += line;
  }
  const int width = geometry.link_width();
  for (std::size_t r = 0; width == 3 && r < geometry.num_links(); ++r) {
    std::snprintf(line, sizeof(line), "f %lld %lld %lld\n",
                  static_cast<long long>(geometry.links[3 * r] + 1),
                  static_cast<long long>(geometry.links[3 * r + 1] + 1),
                  static_cast<long long>(geometry.links[3 * r + 2] + 1));
    text += line;
  }
  return text;
}

}  // namespace chunkwise::io
