#include "formats/precomputed/legacy_mesh.h"

#include <bit>
#include <cstring>
#include <nlohmann/json.hpp>

#include "core/json.h"

namespace chunkwise::formats::precomputed {
namespace {

static_assert(std::endian::native == std::endian::little,
              "fragments are little-endian and copied as they are in memory");

Status Bad(std::string_view name, const std::string& what) {
  return Status::Corruption("legacy mesh fragment " + std::string(name) + ": " + what);
}

}  // namespace

Bytes EncodeLegacyFragment(const TriangleMesh& mesh) {
  const std::uint32_t count = static_cast<std::uint32_t>(mesh.num_vertices());
  Bytes out(4 + mesh.vertices.size() * 4 + mesh.triangles.size() * 4);
  std::memcpy(out.data(), &count, 4);
  // memcpy from an empty vector's null data() is undefined, even of 0 bytes.
  if (!mesh.vertices.empty()) {
    std::memcpy(out.data() + 4, mesh.vertices.data(), mesh.vertices.size() * 4);
  }
  if (!mesh.triangles.empty()) {
    std::memcpy(out.data() + 4 + mesh.vertices.size() * 4, mesh.triangles.data(),
                mesh.triangles.size() * 4);
  }
  return out;
}

Result<TriangleMesh> DecodeLegacyFragment(ByteView bytes, std::string_view name) {
  if (bytes.size() < 4) return Bad(name, std::to_string(bytes.size()) + " bytes, no vertex count");
  std::uint32_t count = 0;
  std::memcpy(&count, bytes.data(), 4);
  const std::uint64_t vertex_bytes = std::uint64_t{count} * 12;
  if (vertex_bytes > bytes.size() - 4) {
    return Bad(name, std::to_string(count) + " vertices need " + std::to_string(vertex_bytes) +
                         " bytes; " + std::to_string(bytes.size() - 4) + " follow the count");
  }
  const std::uint64_t index_bytes = bytes.size() - 4 - vertex_bytes;
  if (index_bytes % 12 != 0) {
    return Bad(name, std::to_string(index_bytes) + " bytes of indices are not whole triangles");
  }
  TriangleMesh mesh;
  mesh.vertices.resize(std::size_t{count} * 3);
  mesh.triangles.resize(index_bytes / 4);
  // memcpy into an empty vector's null data() is undefined, even of 0 bytes.
  if (vertex_bytes != 0) std::memcpy(mesh.vertices.data(), bytes.data() + 4, vertex_bytes);
  if (index_bytes != 0) {
    std::memcpy(mesh.triangles.data(), bytes.data() + 4 + vertex_bytes, index_bytes);
  }
  for (std::size_t i = 0; i < mesh.triangles.size(); ++i) {
    if (mesh.triangles[i] >= count) {
      return Bad(name, "triangle " + std::to_string(i / 3) + " names vertex " +
                           std::to_string(mesh.triangles[i]) + " of " + std::to_string(count));
    }
  }
  return mesh;
}

std::string LegacyManifestKey(std::uint64_t id) { return std::to_string(id) + ":0"; }

std::string LegacyFragmentName(std::uint64_t id) { return std::to_string(id) + ":0:all"; }

std::string LegacyManifestText(const std::vector<std::string>& fragments) {
  return nlohmann::json{{"fragments", fragments}}.dump();
}

Result<std::vector<std::string>> ParseLegacyManifest(std::string_view text, std::string_view name) {
  Result<nlohmann::json> json = core::ParseJson(text, name);
  const std::string where = "legacy mesh manifest " + std::string(name);
  if (!json.ok()) return Status::Corruption(where + ": not JSON");
  if (!json->is_object() || !json->contains("fragments") || !(*json)["fragments"].is_array()) {
    return Status::Corruption(where + ": no \"fragments\" array");
  }
  std::vector<std::string> fragments;
  for (const nlohmann::json& f : (*json)["fragments"]) {
    if (!f.is_string()) return Status::Corruption(where + ": a fragment name is not a string");
    fragments.push_back(f.get<std::string>());
  }
  return fragments;
}

std::string LegacyMeshInfoText(std::string_view segment_properties) {
  nlohmann::json info{{"@type", kLegacyMeshType}};
  if (!segment_properties.empty()) info["segment_properties"] = segment_properties;
  return info.dump();
}

}  // namespace chunkwise::formats::precomputed
