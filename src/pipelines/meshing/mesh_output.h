// Meshes and segment properties written into a precomputed segmentation, so
// that neuroglancer (and `chunkwise serve`) shows them: the legacy mesh
// folder, the segment properties folder, and the segmentation's `info`
// pointing at both (docs/formats/precomputed-meshes.md).
//
// Whole or not at all: fragments and manifests first, then each folder's
// info, then the segmentation's info; a failure erases what was written, so
// the segmentation is left as it was. Everything goes through the Store, so
// any store that takes writes (files, s3://, memory://) will do.
#ifndef CHUNKWISE_PIPELINES_MESHING_MESH_OUTPUT_H_
#define CHUNKWISE_PIPELINES_MESHING_MESH_OUTPUT_H_

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>

#include "chunkwise/core/cancellation.h"
#include "chunkwise/core/thread_pool.h"
#include "chunkwise/store/store.h"
#include "formats/precomputed/segment_properties.h"
#include "pipelines/meshing/label_meshes.h"

namespace chunkwise::pipelines {

struct MeshOutputOptions {
  // The folders, relative to the segmentation.
  std::string mesh_dir = "mesh";
  std::string properties_dir = "segment_properties";
  // Replace meshes or segment properties already there (their folders are
  // emptied first); otherwise they are refused.
  bool overwrite = false;
  // Names and tags by segment id, for the segment properties.
  std::map<std::uint64_t, formats::precomputed::SegmentName> names;
  // Simplification of each mesh before it is written
  // (pipelines/meshing/quadric_simplification.h): a vertex moves at most
  // max_error, physical units, and the collapses stop at 1/reduction_factor
  // of the triangles. max_error <= 0: meshes are written as meshed.
  // Multires: LOD 0; LOD k > 0 is LOD k - 1 simplified at twice the error
  // (without simplification, clustered from LOD 0: pipelines/meshing/mesh_lods.h).
  double max_error = 0;
  double reduction_factor = 0;
  // Writes fragments in parallel; null: on the calling thread.
  core::ThreadPool* pool = nullptr;
  const core::Cancellation* cancellation = nullptr;
};

// What the multi-resolution format (neuroglancer_multilod_draco) needs
// beyond MeshOutputOptions. The meshes given are in voxels, x, y, z, with
// voxel i covering [i, i + 1) (pipelines/meshing/label_meshes.h with a
// resolution of 1 and no offset).
struct MultiresOutputOptions {
  // Levels of detail at most: fewer for a label whose fragments of a level
  // all fall in one cell, or whose mesh the next level would drop whole.
  int lods = 3;
  // The fragment grid of LOD 0, voxels (x, y, z).
  std::array<std::int64_t, 3> fragment{128, 128, 128};
  // The volume's finest scale, (x, y, z): the info's transform takes voxels there.
  std::array<double, 3> resolution{1, 1, 1};
  std::array<std::int64_t, 3> voxel_offset{0, 0, 0};
  // neuroglancer_uint64_sharded_v1 shard files (formats/precomputed/
  // multires_mesh.h, MultiresMeshSharding) instead of two files per segment.
  bool sharded = false;
};

// A split job's scratch objects (pipelines/meshing/mesh_parts.h) live in
// this folder of the mesh folder until the job ends; the checks for meshes
// already there, and the clearing that overwrite asks for, pass it by.
inline constexpr std::string_view kMeshScratchFolder = ".chunkwise-scratch";

// What was written, simplified.
struct MeshOutputSummary {
  std::uint64_t segments = 0;
  std::uint64_t vertices = 0;
  std::uint64_t triangles = 0;
  std::uint64_t bytes = 0;  // Of the fragments.
};

// A label's whole mesh simplified as WriteLegacyMeshes writes it
// (options.max_error and reduction_factor, in the mesh's own units): the one
// call for every output that holds the legacy meshes' triangles (the
// zarr-vectors store's level 0, pipelines/meshing/mesh_levels.h).
LabelMesh SimplifyAsLegacy(const LabelMesh& mesh, const MeshOutputOptions& options);

// Writes `meshed` into the segmentation whose info is "<prefix>info".
// Errors: NotFound naming the info when there is none; InvalidArgument when
// it is not a segmentation, or (field "overwrite") when it already has meshes
// or segment properties and !overwrite; Corruption for an info that is not
// JSON; the store's errors naming the key; Cancelled.
Result<MeshOutputSummary> WriteLegacyMeshes(store::Store& store, const std::string& prefix,
                                            const MeshedLabels& meshed,
                                            const MeshOutputOptions& options);

// As WriteLegacyMeshes, in the multi-resolution format: the folder's info,
// and per segment "<id>.index" and "<id>", or the shard files. `summary.vertices` and
// `triangles` count LOD 0. Errors as WriteLegacyMeshes, and InvalidArgument
// (field "lods") for fewer than 1 or more than 16 levels, (field "chunk")
// for a fragment grid that is not positive.
Result<MeshOutputSummary> WriteMultiresMeshes(store::Store& store, const std::string& prefix,
                                              const MeshedLabels& meshed,
                                              const MeshOutputOptions& options,
                                              const MultiresOutputOptions& multires);

// The steps WriteLegacyMeshes and WriteMultiresMeshes take, for a job split
// into parts that each write some segments' fragments:
//
// Checks the segmentation whose info is "<prefix>info" and refuses meshes or
// segment properties already there unless options.overwrite (errors as
// WriteLegacyMeshes); with `clear` and overwrite, empties both folders.
Status PrepareMeshOutput(store::Store& store, const std::string& prefix,
                         const MeshOutputOptions& options, bool clear);

// Writes the fragments (and manifests) of `meshes`, simplified, into the
// mesh folder; no info. The summary counts what was written.
Result<MeshOutputSummary> WriteLegacyFragments(store::Store& store, const std::string& prefix,
                                               const std::map<std::uint64_t, LabelMesh>& meshes,
                                               const MeshOutputOptions& options);

// As WriteLegacyFragments, multi-resolution; sharded, the shard files of
// `meshes` as sharded for a job of `segments` segments in all (a part's
// meshes must then hold every segment of each of its shards).
Result<MeshOutputSummary> WriteMultiresFragments(store::Store& store, const std::string& prefix,
                                                 const std::map<std::uint64_t, LabelMesh>& meshes,
                                                 const MeshOutputOptions& options,
                                                 const MultiresOutputOptions& multires,
                                                 std::uint64_t segments);

// The mesh folder's info: legacy, or multi-resolution for `segments` segments in all.
std::string LegacyMeshInfo();
std::string MultiresMeshInfo(const MultiresOutputOptions& multires, std::uint64_t segments);

// The mesh folder's info, the segment properties (`voxel_counts` and
// options.names) and last the segmentation's info naming both. On failure
// erases both folders, as EraseMeshOutput.
Status PublishMeshOutput(store::Store& store, const std::string& prefix,
                         const std::map<std::uint64_t, std::uint64_t>& voxel_counts,
                         const MeshOutputOptions& options, const std::string& mesh_info);

// Erases the mesh and segment properties folders (errors ignored: it runs
// after a failure, whose error is the one to report).
void EraseMeshOutput(store::Store& store, const std::string& prefix,
                     const MeshOutputOptions& options);

}  // namespace chunkwise::pipelines

#endif  // CHUNKWISE_PIPELINES_MESHING_MESH_OUTPUT_H_
