// The scratch objects a split skeleton job (pipelines/skeletons/
// skeleton_job.h) passes between its steps: a small private binary format,
// little-endian, read back with every length and value checked, so that an
// object cut short, forged or left by another job is Corruption naming its
// key, never a crash or a wrong skeleton.
//
// Each object starts with an 8-byte magic naming its kind, then the job's
// parts and the writing part, which the reader checks against what it expects.
#ifndef CHUNKWISE_PIPELINES_SKELETONS_SKELETON_SCRATCH_H_
#define CHUNKWISE_PIPELINES_SKELETONS_SKELETON_SCRATCH_H_

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "chunkwise/core/bytes.h"
#include "chunkwise/core/result.h"
#include "pipelines/skeletons/teasar.h"

namespace chunkwise::pipelines::skeletons {

// Per label, its bounding box and voxel count (labels > 0).
using LabelTable = std::map<std::uint64_t, LabelExtent>;

// Who wrote a scratch object: part `part` of a job of `parts`.
struct SkeletonScratchStamp {
  std::uint32_t parts = 1;
  std::uint32_t part = 0;
};

// The labels one scan part found in its chunks.
Bytes EncodeLabelTable(const SkeletonScratchStamp& stamp, const LabelTable& table);
// Corruption naming `name` for bytes that do not parse, another stamp, a
// label 0 or out of order, a box empty or outside `shape` (z, y, x), or a
// voxel count of 0 or more than its box holds.
Result<LabelTable> DecodeLabelTable(ByteView bytes, const SkeletonScratchStamp& stamp,
                                    const std::array<std::int64_t, 3>& shape,
                                    const std::string& name);

// One skeletonized label's figures, for the job's summary.
struct LabelFigures {
  std::uint64_t voxels = 0;
  std::uint64_t vertices = 0;
  std::uint64_t edges = 0;
  double cable_length = 0;
};
// What one skeleton part wrote: its labels' figures, its files and bytes;
// for a zarr-vectors store, which the last step writes whole, also its
// labels' skeletons (in label order, each as a precomputed skeleton file
// inside the object).
struct SkeletonizedPart {
  std::map<std::uint64_t, LabelFigures> labels;
  std::uint64_t files = 0;
  std::uint64_t bytes = 0;
  std::vector<Skeleton> skeletons;
};
Bytes EncodeSkeletonizedPart(const SkeletonScratchStamp& stamp, const SkeletonizedPart& part);
// Corruption naming `name` for bytes that do not parse, another stamp, or a
// skeleton whose label is 0, out of order or without figures.
Result<SkeletonizedPart> DecodeSkeletonizedPart(ByteView bytes, const SkeletonScratchStamp& stamp,
                                                const std::string& name);

}  // namespace chunkwise::pipelines::skeletons

#endif  // CHUNKWISE_PIPELINES_SKELETONS_SKELETON_SCRATCH_H_
