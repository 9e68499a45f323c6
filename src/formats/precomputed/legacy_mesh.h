// neuroglancer precomputed legacy (single-resolution) meshes: the byte
// layout of a fragment, the manifest that lists a segment's fragments, and
// the keys of both (docs/formats/precomputed-meshes.md).
//
// A mesh folder holds `info` ({"@type": "neuroglancer_legacy_mesh"}), one
// manifest per segment at "<id>:0" ({"fragments": [names]}) and the
// fragments at the names the manifest gives, relative to the folder. A
// fragment is little-endian: uint32 vertex count, float32 x, y, z per vertex,
// then uint32 vertex indices, three per triangle, to the end of the value.
#ifndef CHUNKWISE_FORMATS_PRECOMPUTED_LEGACY_MESH_H_
#define CHUNKWISE_FORMATS_PRECOMPUTED_LEGACY_MESH_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "chunkwise/core/bytes.h"
#include "chunkwise/core/result.h"

namespace chunkwise::formats::precomputed {

// A triangle mesh: x, y, z per vertex (physical units) and three vertex
// indices per triangle.
struct TriangleMesh {
  std::vector<float> vertices;
  std::vector<std::uint32_t> triangles;

  std::size_t num_vertices() const { return vertices.size() / 3; }
  std::size_t num_triangles() const { return triangles.size() / 3; }
};

inline constexpr std::string_view kLegacyMeshType = "neuroglancer_legacy_mesh";

// The fragment's bytes.
Bytes EncodeLegacyFragment(const TriangleMesh& mesh);
// The mesh in `bytes`. Corruption naming `name`: fewer than 4 bytes, a
// vertex count the bytes cannot hold, indices that are not whole triangles,
// or an index past the vertices.
Result<TriangleMesh> DecodeLegacyFragment(ByteView bytes, std::string_view name);

// "<id>:0", the manifest's key in the mesh folder.
std::string LegacyManifestKey(std::uint64_t id);
// The one fragment chunkwise writes per segment: "<id>:0:all".
std::string LegacyFragmentName(std::uint64_t id);
// {"fragments": [...]}.
std::string LegacyManifestText(const std::vector<std::string>& fragments);
// The fragment names of a manifest. Corruption naming `name` for text that is
// not a JSON object with a "fragments" array of strings.
Result<std::vector<std::string>> ParseLegacyManifest(std::string_view text, std::string_view name);
// The mesh folder's info: {"@type": "neuroglancer_legacy_mesh"}, with
// "segment_properties" (relative to the mesh folder) when not empty.
std::string LegacyMeshInfoText(std::string_view segment_properties = {});

}  // namespace chunkwise::formats::precomputed

#endif  // CHUNKWISE_FORMATS_PRECOMPUTED_LEGACY_MESH_H_
