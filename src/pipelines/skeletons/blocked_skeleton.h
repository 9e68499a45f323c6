// One label skeletonized in overlapping blocks, for a label whose padded
// bounding box needs more memory than it may have (CropBytes over the
// budget): memory then follows the block, not the label's box.
//
// The label's box is cut into blocks of at most `core` voxels a side that
// share one plane of voxels with each neighbour (a block ends on the plane
// where the next one starts). Each block is read with `halo` voxels of
// context on every side, so that its distance field near a face is the
// shape's, not the face's. On each face two blocks share, the label's
// cross-sections (8-connected pieces of the label on that plane) each get
// one anchor voxel, chosen from the plane's voxels alone (the deepest inside
// the section, ties to the first in C order), so both blocks choose the
// same voxel. Each block is traced with its anchors drawn first as targets;
// the fragments are then merged: vertices at the same coordinates become
// one, repeated edges go, and an edge that would close a cycle is dropped,
// so that a 26-connected label gives one tree, as the whole crop does.
// Last, end branches lying wholly inside the balls of the rest are pruned
// (PruneCoveredBranches): where the label runs along a face, both blocks
// draw a path beside it.
//
// Why it is connected: two 26-neighbouring voxels of the label always lie
// in one block together (blocks overlap by a plane), and a piece of the
// label inside a block that reaches a shared face holds that face's
// sections whole, anchors included, which the block's tree reaches.
#ifndef CHUNKWISE_PIPELINES_SKELETONS_BLOCKED_SKELETON_H_
#define CHUNKWISE_PIPELINES_SKELETONS_BLOCKED_SKELETON_H_

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "chunkwise/core/result.h"
#include "pipelines/skeletons/source_chunks.h"
#include "pipelines/skeletons/teasar.h"

namespace chunkwise::pipelines::skeletons {

// The bytes a block holds at a time, per voxel of its read box (the block
// with its halo and padding): the read (8 + 8), the mask and field of the
// read box (1 + 4), the block's own mask and field (1 + 4), the workspace
// (34) and the tracer's lists of a piece's voxels (8).
inline constexpr std::uint64_t kBlockBytesPerVoxel = 68;

struct BlockPlan {
  std::int64_t core = 0;  // a block's edge, in voxels, shared plane included
  std::int64_t halo = 0;  // context read on each side of a block
};
// The largest blocks `budget` bytes hold: a read box edge E with E^3 *
// kBlockBytesPerVoxel <= budget, the halo E / 8 (at least 2), the core what
// remains after the halos and the padding. ResourceExhausted (field
// "max_memory"), `what` followed by the limit and the smallest block's
// needs, where the core would be under 8 voxels.
Result<BlockPlan> PlanBlocks(std::uint64_t budget, const std::string& what);

// What a blocked label cost.
struct BlockedSkeletonStats {
  std::uint64_t blocks = 0;      // blocks that held some of the label
  std::uint64_t peak_bytes = 0;  // the most one block held: its buffers and the workspace
};

// The skeleton of `label` (its box and voxel count in `extent`), block by
// block of `plan`, read through `chunks`. Corruption naming `where` when the
// source holds a different number of the label's voxels than `extent` says.
Result<Skeleton> SkeletonizeInBlocks(const SkeletonSource& source, SourceChunks& chunks,
                                     std::uint64_t label, const LabelExtent& extent,
                                     const BlockPlan& plan, const TeasarParams& params,
                                     TeasarWorkspace& workspace, const std::string& where,
                                     BlockedSkeletonStats* stats = nullptr);

// Fragments of one label merged: vertices with identical coordinates joined
// (the first one's radius kept), self-loops and repeated edges removed, and
// edges that would close a cycle dropped, in the fragments' order.
Skeleton MergeFragments(std::uint64_t label, const std::vector<Skeleton>& fragments);

// Removes, one at a time and shortest first, each end branch (from a vertex
// of one edge to the first vertex of three or more, that one kept) whose
// every vertex lies inside the invalidation ball (params.scale * radius +
// params.constant) of a vertex outside the branch: the paths a block draws
// beside its neighbour's where the label runs along their shared face,
// which one crop would not have drawn, since the ball would have covered
// their targets. Vertices are renumbered in their order.
void PruneCoveredBranches(Skeleton& skeleton, const TeasarParams& params);

}  // namespace chunkwise::pipelines::skeletons

#endif  // CHUNKWISE_PIPELINES_SKELETONS_BLOCKED_SKELETON_H_
