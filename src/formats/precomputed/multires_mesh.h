// neuroglancer precomputed multi-resolution meshes ("neuroglancer_multilod_draco",
// docs/formats/precomputed-meshes.md): the mesh folder's info, each segment's
// manifest "<id>.index" and its data file "<id>", the Draco-encoded fragments
// of every level of detail (LOD) one after another in the manifest's order.
//
// Coordinates are in "stored model" units (chunkwise: voxels, x, y, z); the
// info's transform takes them to the volume's physical space. A fragment of
// LOD k at grid position p covers the box grid_origin + chunk_shape * 2^k *
// [p, p + 1); its vertices are integers in [0, 2^bits - 1] across that box.
#ifndef CHUNKWISE_FORMATS_PRECOMPUTED_MULTIRES_MESH_H_
#define CHUNKWISE_FORMATS_PRECOMPUTED_MULTIRES_MESH_H_

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "chunkwise/core/bytes.h"
#include "chunkwise/core/result.h"
#include "formats/precomputed/legacy_mesh.h"
#include "formats/precomputed/sharding.h"

namespace chunkwise::formats::precomputed {

inline constexpr std::string_view kMultiresMeshType = "neuroglancer_multilod_draco";

// A segment's manifest. Positions are (x, y, z) grid cells of their LOD, in
// Z-order; sizes are the bytes of each fragment in the data file (0: an
// empty fragment, there so that its finer children are reachable).
struct MultiresManifest {
  std::array<float, 3> chunk_shape{};
  std::array<float, 3> grid_origin{};
  struct Lod {
    float scale = 1;
    std::array<float, 3> vertex_offset{};
    std::vector<std::array<std::uint32_t, 3>> positions;
    std::vector<std::uint32_t> sizes;
  };
  std::vector<Lod> lods;
};

// The manifest's little-endian bytes.
Bytes EncodeMultiresManifest(const MultiresManifest& manifest);
// The manifest in `bytes`. Corruption naming `name`: too short for its
// header, a LOD count or fragment counts the bytes do not hold, bytes left
// over, or positions of a LOD out of Z-order.
Result<MultiresManifest> DecodeMultiresManifest(ByteView bytes, std::string_view name);

// True when a comes before b in Z-order (x the fastest-varying bit, z the slowest).
bool ZOrderLess(const std::array<std::uint32_t, 3>& a, const std::array<std::uint32_t, 3>& b);

// A fragment's mesh: x, y, z per vertex as integers in [0, 2^bits - 1], and
// three vertex indices per triangle.
struct QuantizedMesh {
  std::vector<std::uint32_t> vertices;
  std::vector<std::uint32_t> triangles;
};

// The Draco bytes of `mesh` (edgebreaker; positions quantized by Draco with
// `bits` over [0, 2^bits - 1], so that a decoder that skips Draco's
// dequantization, as neuroglancer does, reads the integers given).
// InvalidArgument for bits other than 10 or 16 or a vertex out of range;
// Internal where Draco fails.
Result<Bytes> EncodeDracoFragment(const QuantizedMesh& mesh, int bits);
// The mesh in Draco `bytes`. Corruption naming `name`: not a Draco mesh, no
// position attribute of three components, or a position outside [0, 2^bits - 1].
Result<QuantizedMesh> DecodeDracoFragment(ByteView bytes, int bits, std::string_view name);

// Splits `mesh` (stored model units) into the fragments of LOD `lod` of the
// grid (origin, chunk_shape): each triangle goes to the cell that holds its
// centroid, and each vertex is quantized across that cell. Appends the
// fragments to `data` and returns their positions (Z-order) and sizes. The
// parent cell of every position of `finer` (the LOD below; may be null) is
// listed too, empty where no triangle falls in it, since a reader reaches a
// fragment only through its parent.
// InvalidArgument when a triangle reaches more than a hundredth of a cell
// outside the cell of its centroid (the caller must cut triangles at the
// cells); errors of EncodeDracoFragment.
Result<MultiresManifest::Lod> EncodeLodFragments(const TriangleMesh& mesh,
                                                 const MultiresManifest& grid, int lod, int bits,
                                                 const MultiresManifest::Lod* finer, Bytes& data);

// "<id>.index" and "<id>", the keys of a segment's manifest and data file in
// an unsharded mesh folder.
std::string MultiresManifestKey(std::uint64_t id);
std::string MultiresDataKey(std::uint64_t id);

// The mesh folder's info. `transform` is the 3x4 row-major matrix from stored
// model units to the volume's physical space; `sharding`, when given, is named.
std::string MultiresMeshInfoText(int bits, const std::array<double, 12>& transform,
                                 double lod_scale_multiplier,
                                 const ShardingSpec* sharding = nullptr);

// Sharding for `segments` meshes: SegmentSharding (formats/precomputed/
// segment_shards.h), whose raw data lets a reader take fragments by byte range.
ShardingSpec MultiresMeshSharding(std::uint64_t segments);

}  // namespace chunkwise::formats::precomputed

#endif  // CHUNKWISE_FORMATS_PRECOMPUTED_MULTIRES_MESH_H_
