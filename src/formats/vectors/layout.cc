#include "formats/vectors/layout.h"

namespace chunkwise::formats::vectors::v0_8 {

std::string LevelPath(int level) { return std::to_string(level) + "/"; }

std::string FamilyPath(int level, std::string_view family) {
  return LevelPath(level) + std::string(family) + "/";
}

std::string ChunkBlobPath(int level, std::string_view family, const ChunkCoord& chunk) {
  return FamilyPath(level, family) + FormatChunkKey(chunk) + "/";
}

std::string VertexAttributePath(int level, std::string_view name) {
  return FamilyPath(level, kVertexAttributesDir) + std::string(name) + "/";
}

std::string VertexAttributeBlobPath(int level, std::string_view name, const ChunkCoord& chunk) {
  return VertexAttributePath(level, name) + FormatChunkKey(chunk) + "/";
}

std::string LinksPath(int level, int delta) {
  return FamilyPath(level, kLinksDir) + FormatDelta(delta) + "/";
}

std::string LinksBlobPath(int level, int delta, const ChunkCoord& chunk) {
  return LinksPath(level, delta) + FormatChunkKey(chunk) + "/";
}

std::string CrossChunkLinksPath(int level, int delta) {
  return FamilyPath(level, kCrossChunkLinksDir) + FormatDelta(delta) + "/";
}

std::string CrossChunkCellPath(int level, int delta, std::string_view cell_key) {
  return CrossChunkLinksPath(level, delta) + std::string(cell_key) + "/";
}

std::string LinkAttributePath(int level, std::string_view name, int delta) {
  return FamilyPath(level, kLinkAttributesDir) + std::string(name) + "/" + FormatDelta(delta) + "/";
}

std::string LinkAttributeBlobPath(int level, std::string_view name, int delta,
                                  const ChunkCoord& chunk) {
  return LinkAttributePath(level, name, delta) + FormatChunkKey(chunk) + "/";
}

std::string CrossChunkLinkAttributePath(int level, std::string_view name, int delta) {
  return FamilyPath(level, kCrossChunkLinkAttributesDir) + std::string(name) + "/" +
         FormatDelta(delta) + "/";
}

std::string CrossChunkLinkAttributeDataPath(int level, std::string_view name, int delta) {
  return CrossChunkLinkAttributePath(level, name, delta) + "data/";
}

}  // namespace chunkwise::formats::vectors::v0_8

namespace chunkwise::formats::vectors::v0_9 {

std::string LinksOffsetsPath(int level, int delta, std::string_view offsets) {
  return LinksPath(level, delta) + std::string(offsets) + "/";
}

Result<std::vector<ChunkCoord>> ParseOffsets(std::string_view segment, int link_width) {
  const auto bad = [&](const std::string& why) {
    return Status::InvalidArgument("links offsets segment \"" + std::string(segment) +
                                   "\": " + why);
  };
  std::vector<ChunkCoord> offsets;
  std::size_t at = 0;
  while (at <= segment.size() && !segment.empty()) {
    std::size_t end = segment.find('_', at);
    if (end == std::string_view::npos) end = segment.size();
    const std::string_view part = segment.substr(at, end - at);
    ChunkCoord offset{};
    std::size_t from = 0;
    for (int d = 0; d < kSpatialDims; ++d) {
      std::size_t dot = part.find('.', from);
      if (dot == std::string_view::npos) dot = part.size();
      if ((d + 1 < kSpatialDims) == (dot == part.size())) return bad("not 3 components per offset");
      Result<int> value = ParseDelta(part.substr(from, dot - from));
      if (!value.ok()) return bad(std::string(value.status().message()));
      offset[d] = *value;
      from = dot + 1;
    }
    offsets.push_back(offset);
    at = end + 1;
  }
  if (static_cast<int>(offsets.size()) != link_width - 1) {
    return bad("holds " + std::to_string(offsets.size()) + " offsets for link_width " +
               std::to_string(link_width));
  }
  return offsets;
}

std::string FormatOffsets(std::span<const ChunkCoord> offsets) {
  std::string text;
  for (std::size_t i = 0; i < offsets.size(); ++i) {
    if (i > 0) text += "_";
    for (int d = 0; d < kSpatialDims; ++d) {
      if (d > 0) text += ".";
      text += FormatDelta(static_cast<int>(offsets[i][d]));
    }
  }
  return text;
}

std::string IntraOffsets(int link_width) {
  return FormatOffsets(std::vector<ChunkCoord>(link_width - 1, ChunkCoord{}));
}

std::string CellKey(const ChunkCoord& chunk, const ChunkCoord& origin) {
  std::string key = "c";
  for (int d = 0; d < kSpatialDims; ++d) key += "/" + std::to_string(chunk[d] - origin[d]);
  return key;
}

}  // namespace chunkwise::formats::vectors::v0_9
