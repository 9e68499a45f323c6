// GenerateMeshes (facade/meshes.h) split into parts, for a job's MPI ranks
// (MeshOptions::ranks runs these) or Dask tasks (chunkwise.dask.mesh):
// three steps, each part of a step runnable anywhere that sees the source
// and the destination, which meet in scratch objects under the mesh folder
// ("<segmentation>/mesh/.chunkwise-scratch/", erased by the last step). The
// job writes the same bytes as GenerateMeshes in one process (docs/scale.md,
// "Meshes"):
//
//   1. MeshJobPart(part, parts), every part: meshes part `part` of the chunk
//      grid (a contiguous range of chunks) and writes its pieces of each
//      label to scratch, grouped by the part that owns the label.
//   2. MergeMeshJobPart(part, parts), every part, once step 1 is done by all:
//      welds, simplifies and writes the meshes of the labels part `part`
//      owns (multires-sharded: whole shard files).
//   3. FinishMeshJob(parts), once, after step 2 is done by all: segment
//      properties, the mesh folder's info, and the segmentation's info last.
//
// Every step takes the same source, destination and options; after a failed
// step, AbandonMeshJob erases what the job wrote. A step run twice does its
// work again. Format "vectors": the scratch objects live in
// "<store>/.chunkwise-scratch/", step 2 keeps its labels' resolution levels
// there, and step 3 writes the whole zarr-vectors store as GenerateMeshes
// does, after erasing them (a store already there without overwrite is
// refused by step 1).
#ifndef CHUNKWISE_FACADE_MESH_JOBS_H_
#define CHUNKWISE_FACADE_MESH_JOBS_H_

#include <string_view>

#include "chunkwise/core/result.h"
#include "chunkwise/facade/call_options.h"
#include "chunkwise/facade/context.h"
#include "chunkwise/facade/meshes.h"

namespace chunkwise {

// Step 1. GenerateMeshes' errors before it meshes (part 0 also empties old
// meshes when options.overwrite); InvalidArgument (field "part") for a part
// outside 0 .. parts - 1. Progress counts the part's voxels.
Status MeshJobPart(const Context& context, std::string_view source_url, std::string_view dest_url,
                   const MeshOptions& options, int part, int parts, const CallOptions& call = {});

// Step 2. NotFound naming the scratch object of a part that has not done
// step 1; Corruption naming a scratch object that does not parse.
Status MergeMeshJobPart(const Context& context, std::string_view source_url,
                        std::string_view dest_url, const MeshOptions& options, int part, int parts,
                        const CallOptions& call = {});

// Step 3: the job's summary, as GenerateMeshes returns it. Errors as step 2;
// a failure erases the meshes and segment properties the job wrote.
Result<MeshSummary> FinishMeshJob(const Context& context, std::string_view source_url,
                                  std::string_view dest_url, const MeshOptions& options, int parts,
                                  const CallOptions& call = {});

// After a failed step: erases the job's scratch objects and, when `merged`
// (step 2 may have run), the meshes and segment properties it wrote. Errors
// while erasing are ignored: the step's is the one to report.
void AbandonMeshJob(const Context& context, std::string_view dest_url, const MeshOptions& options,
                    int parts, bool merged);

}  // namespace chunkwise

#endif  // CHUNKWISE_FACADE_MESH_JOBS_H_
