// Surface meshes and segment properties of a label volume, written into a
// neuroglancer precomputed segmentation so that neuroglancer (`chunkwise
// serve`) draws the segments in 3-D and lists them with their sizes and names
// (docs/formats/precomputed-meshes.md).
#ifndef CHUNKWISE_FACADE_MESHES_H_
#define CHUNKWISE_FACADE_MESHES_H_

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "chunkwise/core/communicator.h"
#include "chunkwise/core/result.h"
#include "chunkwise/facade/call_options.h"
#include "chunkwise/facade/context.h"

namespace chunkwise {

struct MeshOptions {
  // "legacy" (neuroglancer's single-resolution meshes), "multires"
  // (neuroglancer_multilod_draco: levels of detail in Draco fragments, two
  // files per segment), "multires-sharded" (the same in
  // neuroglancer_uint64_sharded_v1 shard files) or "vectors" (a new
  // zarr-vectors mesh store at the destination, docs/formats/vectors.md).
  std::string format = "legacy";
  // multires: levels of detail at most (1 to 16); a label gets fewer where
  // one fragment of a level holds it whole. LOD k clusters vertices 2^k voxels apart.
  // vectors: the store's resolution levels (1 to 16), each holding every
  // label (docs/formats/vectors-meshes.md).
  int lods = 3;
  // Only these labels; empty: every label but 0.
  std::vector<std::uint64_t> labels;
  // A CSV file of "id,name[,tags]" rows naming segments; empty: none.
  // Not with "vectors", which has no segment properties.
  std::string names_csv;
  // Voxels meshed at a time, (z, y, x); multires: also the fragments of LOD
  // 0; vectors: also the store's chunks (times the source's resolution).
  std::array<std::int64_t, 3> chunk{128, 128, 128};
  // Replace meshes and segment properties the destination already has.
  bool overwrite = false;
  // Simplification by edge collapses (docs/formats/precomputed-meshes.md,
  // "How meshes are simplified"), named as igneous names it: collapses stop
  // when the mesh is down to 1/simplification_factor of its triangles or
  // when any further one would move a vertex farther than
  // max_simplification_error (physical units, the destination's resolution:
  // nm) from the surface, whichever comes first. 0 error: meshes are written
  // unsimplified; a factor of 0 or 1: only the error bounds them. Legacy
  // meshes, and multires LOD 0 (LOD k > 0: LOD k - 1 at twice the error).
  double simplification_factor = 100;
  double max_simplification_error = 40;
  // The job's ranks (facade/job_ranks.h); null or one rank: this process
  // alone, every label's mesh in memory. More: the job is split as
  // facade/mesh_jobs.h describes, each rank meshing its share of the chunks
  // and writing the meshes of the labels it owns; rank 0 writes the infos.
  // The same bytes either way, "vectors" too.
  core::Communicator* ranks = nullptr;
};

struct MeshSummary {
  std::uint64_t voxels = 0;    // Of the source.
  std::uint64_t segments = 0;  // Meshed.
  std::uint64_t vertices = 0;
  std::uint64_t triangles = 0;
  std::uint64_t bytes = 0;  // Of the mesh fragments.
  std::string mesh_dir;     // Relative to the destination, as its info names it.
  std::string properties_dir;
};

// Meshes every label of the label volume at `source_url` (a 3-d zarr array,
// (z, y, x), or a precomputed segmentation's finest scale; unsigned integer
// labels) and writes them, with segment properties (voxel counts, and names
// and tags from options.names_csv), into the precomputed segmentation at
// `dest_url`, whose info then names both. The source may be the destination.
// Positions are physical: the destination's finest scale gives the
// resolution and voxel offset. A source with no labels gives an empty result
// (no meshes), not an error.
//
// Errors: NotFound naming the URL when either has no volume; InvalidArgument
// for a source that is not 3-d or not of unsigned integer labels, a
// destination that is not a segmentation or whose size differs from the
// source's, an options.labels list that names 0, a bad CSV (naming its line),
// a simplification factor or error that is negative or not finite (fields
// "simplification_factor", "max_simplification_error"),
// (field "overwrite") meshes or properties already there, or (field "lods")
// levels of detail out of range; Cancelled. Progress counts the source's
// voxels. For "multires", vertices and triangles count LOD 0.
//
// "vectors" writes a zarr-vectors mesh store (layout 0.9) at `dest_url`
// instead (no segmentation needed there): level 0 holds the legacy meshes'
// vertices and triangles, levels 1 .. options.lods - 1 the same meshes
// simplified further (docs/formats/vectors-meshes.md); object id = label,
// positions placed by the source's finest scale (a zarr source: voxels). InvalidArgument for a
// store already there without overwrite, names_csv given, or a label of 2^63 or more.
//
// With options.ranks of more than one rank, every rank calls this alike and
// returns the same status (rank 0's summary on every rank); the errors of
// the steps of facade/mesh_jobs.h, the lowest failing rank's named.
Result<MeshSummary> GenerateMeshes(const Context& context, std::string_view source_url,
                                   std::string_view dest_url, const MeshOptions& options = {},
                                   const CallOptions& call = {});

// "1,2,30" as labels. InvalidArgument (field "labels") for a value that is
// not a uint64, or 0.
Result<std::vector<std::uint64_t>> ParseLabelList(std::string_view text);

}  // namespace chunkwise

#endif  // CHUNKWISE_FACADE_MESHES_H_
