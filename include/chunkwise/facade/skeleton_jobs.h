// Skeletonize (facade/skeletons.h) split into parts, for a job's MPI ranks
// (SkeletonizeOptions::ranks runs these) or Dask tasks
// (chunkwise.dask.skeletonize): three steps, each part of a step runnable
// anywhere that sees the source and the destination, which meet in scratch
// objects under the skeleton folder ("<segmentation>/skeletons/
// .chunkwise-scratch/", erased by the last step). The job writes the same
// bytes as Skeletonize in one process (docs/scale.md, "Skeletons"):
//
//   1. ScanSkeletonJobPart(part, parts), every part: reads part `part` of the
//      source's chunk grid (a contiguous range of chunks) and writes the
//      bounding box and voxel count of each label it found there.
//   2. SkeletonizeJobPart(part, parts), every part, once step 1 is done by
//      all: skeletonizes the labels part `part` owns (balanced by bounding
//      box volume; sharded, whole shard files), each from the voxels under
//      its bounding box padded by one voxel, and writes their files.
//   3. FinishSkeletonJob(parts), once, after step 2 is done by all: the
//      skeleton info and the segmentation's info last.
//
// With format "vectors" the destination is a new zarr-vectors skeleton
// store (refused in step 1 when it holds keys, unless overwrite): step 2
// keeps its labels' skeletons in scratch objects under
// "<store>/.chunkwise-scratch/", and step 3 writes the whole store, the
// bytes Skeletonize writes in one process.
//
// Every step takes the same source, destination and options; after a
// failed step, AbandonSkeletonJob erases what the job wrote. A step run
// twice does its work again.
#ifndef CHUNKWISE_FACADE_SKELETON_JOBS_H_
#define CHUNKWISE_FACADE_SKELETON_JOBS_H_

#include <string_view>

#include "chunkwise/core/result.h"
#include "chunkwise/facade/call_options.h"
#include "chunkwise/facade/context.h"
#include "chunkwise/facade/skeletons.h"

namespace chunkwise {

// Step 1. Skeletonize's errors about the options, source and destination;
// InvalidArgument (field "part") for a part outside 0 .. parts - 1; vectors:
// InvalidArgument (field "overwrite") naming a store that holds keys.
// Progress counts the part's voxels.
Status ScanSkeletonJobPart(const Context& context, std::string_view source_url,
                           std::string_view dest_url, const SkeletonizeOptions& options, int part,
                           int parts, const CallOptions& call = {});

// Step 2. NotFound naming the scratch object of a part that has not done
// step 1; Corruption naming a scratch object that does not parse; NotFound
// for an asked label the volume lacks; ResourceExhausted as max_memory says.
// Progress counts the voxels of the labels the part owns.
Status SkeletonizeJobPart(const Context& context, std::string_view source_url,
                          std::string_view dest_url, const SkeletonizeOptions& options, int part,
                          int parts, const CallOptions& call = {});

// Step 3: the job's summary, as Skeletonize returns it. Errors as step 2.
Result<SkeletonizeSummary> FinishSkeletonJob(const Context& context, std::string_view source_url,
                                             std::string_view dest_url,
                                             const SkeletonizeOptions& options, int parts,
                                             const CallOptions& call = {});

// After a failed step: erases the job's scratch objects and, when
// `skeletonized` (step 2 may have run), the skeleton files it wrote. Errors
// while erasing are ignored: the step's is the one to report.
void AbandonSkeletonJob(const Context& context, std::string_view source_url,
                        std::string_view dest_url, const SkeletonizeOptions& options, int parts,
                        bool skeletonized);

}  // namespace chunkwise

#endif  // CHUNKWISE_FACADE_SKELETON_JOBS_H_
