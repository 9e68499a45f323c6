// The loop both skeleton paths run over their labels (the whole-volume
// SkeletonizeVolume and the crops of a skeleton job): labels on a pool or one
// at a time, each given the buffers (a TEASAR workspace, a crop) that its
// thread reuses from label to label, so that a label costs the voxels it covers rather than fresh
// pages for its whole box.
#ifndef CHUNKWISE_PIPELINES_SKELETONS_LABEL_LOOP_H_
#define CHUNKWISE_PIPELINES_SKELETONS_LABEL_LOOP_H_

#include <cstddef>
#include <functional>
#include <string>

#include "chunkwise/core/cancellation.h"
#include "chunkwise/core/result.h"
#include "chunkwise/core/thread_pool.h"
#include "pipelines/skeletons/teasar.h"

namespace chunkwise::pipelines::skeletons {

// What a thread reuses from label to label: its TEASAR workspace and, for
// the crops of a skeleton job, the crop whose mask it fills.
struct LabelBuffers {
  TeasarWorkspacePtr workspace = NewTeasarWorkspace();
  LabelCrop crop;
};

// Runs `skeletonize(i, buffers)` for i in [0, count): on `pool` when given
// and there is more than one label, else in order on this thread. Checks
// `cancellation` (when given) before each label, naming `what`. The first
// error stops the loop and is returned.
Status ForEachLabel(std::size_t count, core::ThreadPool* pool,
                    const core::Cancellation* cancellation, const std::string& what,
                    const std::function<Status(std::size_t, LabelBuffers&)>& skeletonize);

}  // namespace chunkwise::pipelines::skeletons

#endif  // CHUNKWISE_PIPELINES_SKELETONS_LABEL_LOOP_H_
