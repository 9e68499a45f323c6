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
