// Skeletons of a label volume read box by box, never whole (docs/scale.md,
// "Skeletons"), in one process or split into parts for a job's MPI ranks or
// Dask tasks. The skeletons are SkeletonizeLabel's over the whole volume,
// byte for byte (teasar.h, CropDistanceToBoundary), except for labels too
// large for the memory budget, which go in blocks (blocked_skeleton.h); in
// three steps:
//
//   1. scan, split by chunk: each part reads a contiguous range of the
//      source's chunks (C order of the chunk grid) and records per label its
//      bounding box and voxel count; a job's part writes its table to
//      "<scratch>/labels/<part>".
//   2. skeletonize, split by label: every part merges the tables, picks the
//      labels (all, or those asked for), and skeletonizes the labels it owns,
//      each from the source's voxels under the label's box padded by one
//      voxel: memory follows the largest label's box (or, over the budget,
//      a block), not the volume. A
//      job's part writes its labels' files (sharded: whole shard files) and
//      "<scratch>/skeletonized/<part>", its figures.
//   3. finish: the infos last (WriteSkeletons' order), stale files erased
//      with overwrite, the scratch folder erased.
//
// A zarr-vectors job (SkeletonJob::vectors) differs in steps 2 and 3: a part
// keeps its labels' skeletons in "<scratch>/skeletonized/<part>", and the
// last step hands them all to the caller, which writes the store whole. Its
// scratch folder is "<store>/.chunkwise-scratch/".
//
// Owners: labels (sharded: shard files of the sharding of the job's label
// count, which every part knows after the scan) go, largest padded box
// volume first, to the part with the least volume so far; ties to the lower
// label (shard) and the lower part. The scratch folder is
// "<skeleton prefix>.chunkwise-scratch/".
#ifndef CHUNKWISE_PIPELINES_SKELETONS_SKELETON_JOB_H_
#define CHUNKWISE_PIPELINES_SKELETONS_SKELETON_JOB_H_

#include <array>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "chunkwise/core/cancellation.h"
#include "chunkwise/core/progress.h"
#include "chunkwise/core/region.h"
#include "chunkwise/core/result.h"
#include "chunkwise/core/thread_pool.h"
#include "chunkwise/store/store.h"
#include "pipelines/skeletons/skeleton_scratch.h"
#include "pipelines/skeletons/skeletonize.h"
#include "pipelines/skeletons/teasar.h"

namespace chunkwise::pipelines::skeletons {

inline constexpr std::string_view kSkeletonScratchFolder = ".chunkwise-scratch";

// A label volume read a box at a time.
struct SkeletonSource {
  std::array<std::int64_t, 3> shape{};        // z, y, x
  std::array<std::int64_t, 3> chunk{};        // z, y, x: the stored chunk, the scan's unit
  std::array<double, 3> voxel_size{1, 1, 1};  // x, y, z
  std::array<double, 3> origin{0, 0, 0};      // x, y, z, of voxel (0, 0, 0)'s corner
  // The labels of a box inside the shape (z, y, x), C order, widened to 64 bits.
  std::function<Result<std::vector<std::uint64_t>>(const core::Region&)> read;
};

// The bytes one label's skeleton holds at a time, per voxel of its padded
// box: the read (stored and widened labels, 8 + 8 at most), the mask and the
// field (1 + 4) and the tracer's buffers (34).
inline constexpr std::uint64_t kCropBytesPerVoxel = 55;
std::uint64_t CropBytes(const LabelExtent& extent);

std::uint64_t CountSourceChunks(const SkeletonSource& source);
// Step 1's work: the labels of chunks [first, last). Chunks run on `pool`
// when given; progress is told of each chunk's voxels.
Result<LabelTable> ScanChunks(const SkeletonSource& source, std::uint64_t first, std::uint64_t last,
                              core::ThreadPool* pool, core::ProgressReporter* progress,
                              const core::Cancellation* cancellation);
// Boxes widened, voxel counts summed.
void MergeLabelTable(LabelTable& into, const LabelTable& from);

using LabelWork = std::vector<std::pair<std::uint64_t, LabelExtent>>;
// The labels to skeletonize, in label order: all, or those `asked` (NotFound
// naming `where` and a label the table lacks).
Result<LabelWork> SelectLabels(const LabelTable& table, const std::vector<std::uint64_t>& asked,
                               const std::string& where);

// The most one label holds at once when no max_memory is given.
inline constexpr std::uint64_t kDefaultLabelMemory = std::uint64_t{1} << 30;

struct CropSkeletonOptions {
  TeasarParams params;
  // The most one label may hold at once; 0: kDefaultLabelMemory. A label
  // whose CropBytes exceed it is skeletonized in blocks that fit it
  // (blocked_skeleton.h).
  std::uint64_t max_memory = 0;
  core::ThreadPool* pool = nullptr;            // labels in parallel; null: one at a time
  core::ProgressReporter* progress = nullptr;  // told of each label's voxels
  const core::Cancellation* cancellation = nullptr;
};
// Step 2's work: the skeletons of `work`'s labels, in its order, each from
// its padded box of `source`, or in blocks where that box needs more than
// max_memory. ResourceExhausted (field "max_memory") naming a label over a
// max_memory too small even for the smallest block, or OutOfRange one over
// the process's memory, before anything is read.
Result<std::vector<Skeleton>> SkeletonizeFromSource(const SkeletonSource& source,
                                                    const LabelWork& work,
                                                    const CropSkeletonOptions& options,
                                                    const std::string& where);

// The part (0 .. parts - 1) that owns each label of `work`, as the header says.
std::vector<int> AssignOwners(const LabelWork& work, int parts,
                              const WriteSkeletonsOptions& output);

// What every step of one job is given alike.
struct SkeletonJob {
  int parts = 1;
  std::vector<std::uint64_t> labels;  // asked for; empty: all
  WriteSkeletonsOptions output;
  CropSkeletonOptions skeletonize;  // step 2; its progress counts owned labels' voxels
  core::ProgressReporter* scan_progress = nullptr;  // step 1: chunks' voxels
  std::string where;                                // the source, in errors
  // A zarr-vectors skeleton store instead of skeleton files: `output` is
  // not used, no destination is checked (the caller checks the store).
  bool vectors = false;
};

struct SkeletonJobSummary {
  std::uint64_t labels = 0, voxels = 0, vertices = 0, edges = 0;
  double cable_length = 0;
  std::uint64_t files = 0, bytes = 0;
  std::string prefix;
};

// The voxels of part `part`'s chunks, for a progress total.
std::uint64_t ScanPartVoxels(const SkeletonSource& source, int part, int parts);

// Step 1. InvalidArgument (field "part") for a part out of range; the
// destination's errors (WriteSkeletons'); the source's; the store's.
Status ScanJobPart(const SkeletonSource& source, store::Store& store, const SkeletonJob& job,
                   int part);
// Step 2, once every part has done step 1. NotFound naming the scratch
// object of a part that has not; Corruption naming one that does not parse.
Status SkeletonizeJobPart(const SkeletonSource& source, store::Store& store, const SkeletonJob& job,
                          int part);
// Step 3, once every part has done step 2. Errors as step 2.
Result<SkeletonJobSummary> FinishSkeletonJob(store::Store& store, const SkeletonJob& job);
// Step 3 of a vectors job, once every part has done step 2: every label's
// skeleton in label order and the job's figures (no files or bytes), as one
// process would have them; the scratch folder is erased. Errors as step 2.
struct VectorSkeletonJob {
  SkeletonJobSummary summary;
  std::vector<Skeleton> skeletons;
};
Result<VectorSkeletonJob> FinishVectorSkeletonJob(store::Store& store, const SkeletonJob& job);
// After a failed step: erases the scratch folder and, when `skeletonized`
// (step 2 may have run), the files of the labels step 1 found (a vectors job
// has none before its caller writes the store). Errors are ignored.
void AbandonSkeletonJob(store::Store& store, const SkeletonJob& job, bool skeletonized);

}  // namespace chunkwise::pipelines::skeletons

#endif  // CHUNKWISE_PIPELINES_SKELETONS_SKELETON_JOB_H_
