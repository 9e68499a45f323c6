// TEASAR-style skeletons of the labels of a 3-d label volume held in memory.
//
//  1. the distance-to-boundary field (DBF), once for the whole volume: each
//     voxel's Euclidean distance to the nearest voxel of another label, in
//     physical units (anisotropic);
// then for each label, inside its bounding box (padded by one background voxel):
//  2. per 26-connected component, a root: the voxel farthest (along paths
//     inside the component) from its first voxel in scan order;
//  3. one Dijkstra from the root in which entering a voxel costs
//     pdrf_scale * (1 - DBF / M)^pdrf_exponent (M just above the largest DBF)
//     plus its distance from the root over the largest, so the tree of
//     shortest paths runs along the middle of the shape;
//  4. paths: the still-uncovered voxel farthest from the root is a target; its
//     path follows the tree back to the skeleton drawn so far (or the root),
//     and every voxel within scale * DBF + const of a path voxel, and reached
//     from it inside that ball, is covered (the invalidation ball); repeated
//     until every voxel is covered.
// Vertices are voxel centres in physical units, each with its DBF as radius.
#ifndef CHUNKWISE_PIPELINES_SKELETONS_TEASAR_H_
#define CHUNKWISE_PIPELINES_SKELETONS_TEASAR_H_

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <vector>

#include "chunkwise/core/thread_pool.h"
#include "formats/precomputed/skeleton_file.h"

namespace chunkwise::pipelines::skeletons {

// kimimaro's defaults (scale, const in physical units, pdrf_*).
struct TeasarParams {
  double scale = 1.5;
  double constant = 300;
  double pdrf_scale = 100000;
  double pdrf_exponent = 4;
};

// One label's skeleton; vertices are x, y, z in physical units.
using Skeleton = formats::precomputed::Skeleton;

// The sum of the edges' lengths, in the vertices' units.
double CableLength(const Skeleton& skeleton);

// A label volume in C order z, y, x; voxel_size and origin are x, y, z.
// origin is the physical position of voxel (0, 0, 0)'s lower corner.
struct LabelVolume {
  std::span<const std::uint64_t> labels;
  std::array<std::int64_t, 3> shape{};  // z, y, x
  std::array<double, 3> voxel_size{1, 1, 1};
  std::array<double, 3> origin{0, 0, 0};
};

// A box of voxels, z, y, x; stop exclusive.
struct VoxelBox {
  std::array<std::int64_t, 3> start{};
  std::array<std::int64_t, 3> stop{};
};

// Every nonzero label with its bounding box and voxel count.
struct LabelExtent {
  VoxelBox box;
  std::uint64_t voxels = 0;
};
std::map<std::uint64_t, LabelExtent> FindLabels(const LabelVolume& volume);

// The distance-to-boundary field of every label at once: each voxel's
// Euclidean distance, in physical units, to the nearest voxel of another
// label (label 0 included; outside the volume counts as another label), in
// the volume's order; 0 on label 0. One pass over the volume, where a field
// per label would cost each label its whole bounding box again. Lines are
// spread over `pool` when given.
std::vector<float> DistanceToBoundary(const LabelVolume& volume, core::ThreadPool* pool = nullptr);

// The buffers one thread reuses from label to label, so that a label costs
// the voxels it covers rather than fresh pages for its whole box.
struct TeasarWorkspace;
struct TeasarWorkspaceDeleter {
  void operator()(TeasarWorkspace* workspace) const;
};
using TeasarWorkspacePtr = std::unique_ptr<TeasarWorkspace, TeasarWorkspaceDeleter>;
TeasarWorkspacePtr NewTeasarWorkspace();
// The bytes the workspace's buffers hold now (their capacities): what it
// grew to for the largest box it has served.
std::uint64_t TeasarWorkspaceBytes(const TeasarWorkspace& workspace);

// One label's voxels over its bounding box padded by one voxel on every side
// (z, y, x): 1 where the label is, 0 elsewhere; the padding, inside the
// volume or beyond its edge, is 0. What a label's skeleton needs of the
// volume, read without the rest of it.
struct LabelCrop {
  std::uint64_t label = 0;
  VoxelBox box;  // the label's bounding box in the volume (unpadded)
  std::vector<std::uint8_t> mask;
  std::array<std::int64_t, 3> dims() const;  // box + 2 on each axis
  std::uint64_t voxels() const;
};

// DistanceToBoundary over the crop's mask. On the label's voxels it equals,
// float for float, DistanceToBoundary of the whole volume: the field is
// computed line by line, each run of one label from its own voxels with a
// zero just past either end, and a run of the label ends at the same voxels
// in the crop (another label, or the volume's edge, are both a 0 of the
// mask, and the padding holds every such end) with the same values along it.
std::vector<float> CropDistanceToBoundary(const LabelCrop& crop,
                                          const std::array<double, 3>& voxel_size,
                                          core::ThreadPool* pool = nullptr);

// DistanceToBoundary of a 0/1 mask over `dims` (z, y, x): the field of the
// mask's 1s, with the mask's edge as their boundary.
std::vector<float> MaskDistanceToBoundary(std::span<const std::uint8_t> mask,
                                          const std::array<std::int64_t, 3>& dims,
                                          const std::array<double, 3>& voxel_size,
                                          core::ThreadPool* pool = nullptr);

// The skeleton of `label` inside `box` (its bounding box, from FindLabels);
// `boundary_distance` is DistanceToBoundary(volume).
Skeleton SkeletonizeLabel(const LabelVolume& volume, std::span<const float> boundary_distance,
                          std::uint64_t label, const VoxelBox& box, const TeasarParams& params,
                          TeasarWorkspace& workspace);
// The same for one label alone (it computes the field of the whole volume).
Skeleton SkeletonizeLabel(const LabelVolume& volume, std::uint64_t label, const VoxelBox& box,
                          const TeasarParams& params);

// The skeleton of the crop's label, equal to SkeletonizeLabel's over the
// whole volume; `placement` gives the voxel size and origin (its labels are
// not read). The field's lines are spread over `pool` when given.
Skeleton SkeletonizeCrop(const LabelCrop& crop, const LabelVolume& placement,
                         const TeasarParams& params, TeasarWorkspace& workspace,
                         core::ThreadPool* pool = nullptr);

// One block of a label skeletonized in blocks (blocked_skeleton.h).
// `crop.box` is the block (the label's voxels inside it in `crop.mask`);
// `field` is the distance to boundary over the crop's padded dims, measured
// by the caller with context beyond the block so that the block's faces are
// not taken for the shape's boundary. Each of `anchors` (voxels of the label
// inside the block, z, y, x of the volume) becomes a vertex joined to its
// piece's tree before any other path is drawn, so that blocks meeting at a
// face share those vertices.
Skeleton SkeletonizeBlock(const LabelCrop& crop, std::span<const float> field,
                          std::span<const std::array<std::int64_t, 3>> anchors,
                          const LabelVolume& placement, const TeasarParams& params,
                          TeasarWorkspace& workspace);

}  // namespace chunkwise::pipelines::skeletons

#endif  // CHUNKWISE_PIPELINES_SKELETONS_TEASAR_H_
