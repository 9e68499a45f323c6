// Surface meshes of every label of a 3-d label volume, computed chunk by
// chunk (docs/formats/precomputed-meshes.md, "How the surface is made").
//
// Marching cubes over each label's mask (pipelines/meshing/surface_cases.h):
// a cube joins the centres of eight voxels, so a chunk of voxels [a, b) on an
// axis owns the cubes whose lower corner is in [a, b) (and the one below the
// volume's first voxel), and reads one voxel past its upper edge to fill
// them. Outside the volume is background, so a label touching the volume's
// edge is still closed. Vertices sit at midpoints between voxel centres,
// which are exact in half-voxel integers: that is how vertices of
// different chunks are welded, and why two chunkings give the same surface.
//
// Positions are physical: voxel i of an axis covers [i, i+1) in voxel space
// (its centre at i + 0.5), shifted by voxel_offset and scaled by resolution,
// as neuroglancer places a precomputed volume's voxels. So a label's surface
// lies on the faces of its voxels where they meet another label, and cuts
// corners by half a voxel.
#ifndef CHUNKWISE_PIPELINES_MESHING_LABEL_MESHES_H_
#define CHUNKWISE_PIPELINES_MESHING_LABEL_MESHES_H_

#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <utility>
#include <vector>

#include "chunkwise/core/cancellation.h"
#include "chunkwise/core/progress.h"
#include "chunkwise/core/region.h"
#include "chunkwise/core/result.h"
#include "chunkwise/core/thread_pool.h"
#include "formats/precomputed/legacy_mesh.h"
#include "pipelines/meshing/mesh_vertex_index.h"

namespace chunkwise::pipelines {

// A triangle mesh: x, y, z per vertex and three vertex indices per triangle,
// counter-clockwise seen from outside the label.
using LabelMesh = formats::precomputed::TriangleMesh;

// Where the labels come from.
struct LabelSource {
  // Voxels per axis, (z, y, x).
  std::array<std::int64_t, 3> shape{};
  // The labels of a box (z, y, x, inside the shape), C order, widened to 64 bits.
  std::function<Result<std::vector<std::uint64_t>>(const core::Region&)> read;
};

struct MeshingOptions {
  // Voxels per chunk read at a time, (z, y, x).
  std::array<std::int64_t, 3> chunk{128, 128, 128};
  // Physical size of a voxel and the volume's first voxel, both (x, y, z).
  std::array<double, 3> resolution{1, 1, 1};
  std::array<std::int64_t, 3> voxel_offset{0, 0, 0};
  // Only these labels (any order); absent: every label but 0.
  std::optional<std::vector<std::uint64_t>> labels;
  // Runs chunks in parallel; null: one at a time on the calling thread.
  core::ThreadPool* pool = nullptr;
  // Told of each chunk's voxels as it is done; may be null.
  core::ProgressReporter* progress = nullptr;
  // Checked before each chunk; may be null.
  const core::Cancellation* cancellation = nullptr;
};

struct MeshedLabels {
  // One mesh per label found (and asked for), by label.
  std::map<std::uint64_t, LabelMesh> meshes;
  // Voxels of each of those labels.
  std::map<std::uint64_t, std::uint64_t> voxel_counts;
};

// One label's surface within one chunk, before welding across chunks: each
// vertex's key (the same for a vertex a neighbouring chunk shares), its
// position in half voxels (x, y, z), and the triangles indexing them.
// What a split job (pipelines/meshing/mesh_parts.h) keeps between its steps.
struct MeshPiece {
  std::vector<std::uint64_t> keys;
  std::vector<std::array<float, 3>> doubled;
  std::vector<std::uint32_t> triangles;
};

// One chunk's pieces and voxel counts, by label.
struct ChunkPieces {
  std::uint64_t chunk = 0;  // Its index in the chunk grid, C order (z, y, x).
  std::map<std::uint64_t, MeshPiece> pieces;
  std::map<std::uint64_t, std::uint64_t> counts;
};

// MeshLabels' checks of the chunk shape, resolution and volume, alone.
Status CheckMeshingOptions(const LabelSource& source, const MeshingOptions& options);

// Chunks of the grid `options.chunk` lays over `source` (checked).
std::uint64_t CountChunks(const LabelSource& source, const MeshingOptions& options);

// The pieces of chunks [first, last) of the grid, in chunk order; errors as
// MeshLabels. MeshLabels is these for every chunk, welded.
Result<std::vector<ChunkPieces>> MeshChunks(const LabelSource& source,
                                            const MeshingOptions& options, std::uint64_t first,
                                            std::uint64_t last);

// One label's pieces welded into its mesh, in physical units
// (options.resolution, voxel_offset). Pieces added in chunk order give
// MeshLabels' mesh of the label, vertex for vertex.
class MeshWelder {
 public:
  explicit MeshWelder(const MeshingOptions& options) : options_(&options) {}
  void Add(const MeshPiece& piece);
  LabelMesh Take() { return std::move(mesh_); }

 private:
  const MeshingOptions* options_;
  MeshVertexIndex index_;
  LabelMesh mesh_;
};

// The meshes of the labels `source` holds. An empty result where there are
// no labels (all 0). Errors: InvalidArgument for a chunk shape that is not
// positive or a resolution that is not; Unsupported for more than 2^20 - 2
// voxels on an axis; the source's errors with the chunk's box named;
// Cancelled.
Result<MeshedLabels> MeshLabels(const LabelSource& source, const MeshingOptions& options);

}  // namespace chunkwise::pipelines

#endif  // CHUNKWISE_PIPELINES_MESHING_LABEL_MESHES_H_
