// What Skeletonize (facade/skeletons.h) and the steps of a split skeleton
// job (facade/skeleton_jobs.h) share: the options checked, the label volume
// opened for reads box by box, the job planned, a zarr-vectors store
// written: for src/facade alone.
#ifndef CHUNKWISE_FACADE_SKELETON_SETUP_H_
#define CHUNKWISE_FACADE_SKELETON_SETUP_H_

#include <memory>
#include <string_view>
#include <vector>

#include "chunkwise/facade/skeletons.h"
#include "pipelines/skeletons/skeleton_job.h"

namespace chunkwise::skeleton_setup {

// The options' own errors, as Skeletonize names them.
Status CheckOptions(const SkeletonizeOptions& options);

// The label volume at `url` (a zarr array or a precomputed segmentation's
// scale 0), placed by its resolution or options.voxel_size; its reads are
// quiet (progress counts voxels of labels, not bytes read). `keep` holds
// what the reads use.
struct OpenedSource {
  pipelines::skeletons::SkeletonSource source;
  std::shared_ptr<void> keep;
};
Result<OpenedSource> OpenSource(const Context& context, std::string_view url,
                                const SkeletonizeOptions& options, const CallOptions& call);

// The job every step of a split job runs alike (no pool, progress or
// cancellation yet).
pipelines::skeletons::SkeletonJob PlanJob(const SkeletonizeOptions& options,
                                          std::string_view source_url, int parts);

// The skeletons (in label order) as a new zarr-vectors skeleton store at
// `dest_url`, as Skeletonize and a split job's last step write it: one
// geometry, edges [child, parent], radii as a vertex attribute, chunks of
// options.vectors_chunk_shape (default 128 voxels of `voxel_size`). The
// summary's files are the store's chunks; the other figures are the caller's.
Result<SkeletonizeSummary> WriteVectorSkeletons(
    const Context& context, std::string_view dest_url,
    const std::vector<pipelines::skeletons::Skeleton>& skeletons,
    const std::array<double, 3>& voxel_size, const SkeletonizeOptions& options,
    const CallOptions& call);

}  // namespace chunkwise::skeleton_setup

#endif  // CHUNKWISE_FACADE_SKELETON_SETUP_H_
