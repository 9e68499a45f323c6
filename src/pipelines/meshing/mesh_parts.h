// Meshing split into parts, for a job's MPI ranks or Dask tasks
// (docs/scale.md, "Meshes"): the same chunks meshed and welded as
// MeshLabels and WriteLegacyMeshes / WriteMultiresMeshes do in one process,
// so the job writes the same bytes, in three steps that meet in scratch
// objects under "<mesh folder>/.chunkwise-scratch/":
//
//   1. MeshJobPart(part): meshes part `part`'s chunks of the grid, a
//      contiguous range of chunk indices (a label lies in few neighbouring
//      chunks, so it is cut into few parts' pieces), and writes, for every
//      group of labels, "<scratch>/<group>/<part>" holding the pieces and
//      voxel counts of that group's labels (pipelines/meshing/mesh_scratch.h);
//      sharded, also "<scratch>/labels/<part>", the labels it found.
//   2. MergeMeshJobPart(part): reads the groups the part owns from every
//      part, welds each label's pieces in chunk order, simplifies and writes
//      the fragments (sharded: whole shard files), and "<scratch>/merged/<part>".
//   3. FinishMeshJob: the segment properties, the mesh folder's info and the
//      segmentation's info last; then erases the scratch folder.
//
// A zarr-vectors job (MeshJob::vectors) differs in steps 2 and 3: a part
// keeps its labels' levels in "<scratch>/merged/<part>", and the last step
// hands them all to the caller, which writes the store whole.
//
// A label's group, and the part that owns it: unsharded, label % parts. Sharded, a
// shard file must come from one part, but which shard a label falls in
// depends on how many segments the job has, which no mesh part knows: the
// group is instead the label's shard in a sharding of 2^k shards (2^k the
// least power of two >= parts), and a shard of the job's own sharding, which
// takes the same bits of the same hash, is the union of whole groups (more
// shards) or lies in one group (fewer); the part that owns shard j is
// (j mod 2^k) mod parts, and it reads every group that shard j takes.
// Every step re-checks what it relies on and fails with the key it read.
#ifndef CHUNKWISE_PIPELINES_MESHING_MESH_PARTS_H_
#define CHUNKWISE_PIPELINES_MESHING_MESH_PARTS_H_

#include <array>
#include <cstdint>
#include <string>

#include "chunkwise/core/result.h"
#include "chunkwise/store/store.h"
#include "pipelines/meshing/label_meshes.h"
#include "pipelines/meshing/mesh_levels.h"
#include "pipelines/meshing/mesh_output.h"

namespace chunkwise::pipelines {

// What every step of one job is given alike.
struct MeshJob {
  int parts = 1;
  std::string prefix;                   // Of the segmentation in the store.
  std::array<std::int64_t, 3> shape{};  // Of the label volume, (z, y, x).
  // Chunks, placement, labels; the pool, progress and cancellation of this call.
  MeshingOptions meshing;
  MeshOutputOptions output;
  bool multires = false;
  MultiresOutputOptions lods;  // multires.
  // A zarr-vectors mesh store instead of a segmentation's meshes: no
  // segmentation is checked or written, the scratch folder is
  // "<prefix>.chunkwise-scratch/", step 2 keeps its labels' levels (`levels`,
  // pipelines/meshing/mesh_levels.h) in its scratch object, and
  // FinishVectorMeshJob gathers them for the caller to write the store.
  bool vectors = false;
  MeshLevelsOptions levels;  // vectors.
};

// Step 1, for part 0 <= part < job.parts: checks the segmentation as
// PrepareMeshOutput (part 0 also clears old meshes when overwrite), meshes
// the part's chunks of `source` and writes its scratch objects.
// InvalidArgument for a part out of range; MeshLabels' errors; the store's.
Status MeshJobPart(const LabelSource& source, store::Store& store, const MeshJob& job, int part);

// Step 2, once every part has done step 1. The part's figures (LOD 0 for
// multires). NotFound naming the scratch object of a part that has not done
// step 1; Corruption naming one that does not parse (mesh_scratch.h).
Result<MeshOutputSummary> MergeMeshJobPart(store::Store& store, const MeshJob& job, int part);

// Step 3, once every part has done step 2: the job's figures. Errors as
// MergeMeshJobPart; any failure erases the mesh and segment properties folders.
Result<MeshOutputSummary> FinishMeshJob(store::Store& store, const MeshJob& job);

// Step 3 of a vectors job, once every part has done step 2: every label's
// levels and the job's figures (level 0), as one process would have them;
// the scratch folder is erased. Errors as MergeMeshJobPart.
struct VectorMeshJob {
  MeshOutputSummary summary;
  LeveledMeshes levels;
};
Result<VectorMeshJob> FinishVectorMeshJob(store::Store& store, const MeshJob& job);
// After a failed step: erases the scratch folder and, when `merged` (some part may
// have done step 2), the mesh and segment properties folders.
void AbandonMeshJob(store::Store& store, const MeshJob& job, bool merged);

}  // namespace chunkwise::pipelines

#endif  // CHUNKWISE_PIPELINES_MESHING_MESH_PARTS_H_
