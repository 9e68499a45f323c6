// Skeletons of a label volume by URL: TEASAR-style (a distance-to-boundary
// field, paths from a root through the invalidation ball, a radius per
// vertex), written as neuroglancer precomputed skeletons (one file per label
// or shard files), SWC files, or a zarr-vectors skeleton store
// (docs/formats/precomputed-skeletons.md, docs/formats/vectors.md).
#ifndef CHUNKWISE_FACADE_SKELETONS_H_
#define CHUNKWISE_FACADE_SKELETONS_H_

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "chunkwise/core/communicator.h"
#include "chunkwise/core/result.h"
#include "chunkwise/facade/call_options.h"
#include "chunkwise/facade/context.h"

namespace chunkwise {

// kPrecomputedSharded: precomputed skeletons in neuroglancer_uint64_sharded_v1
// shard files, the skeleton info naming its sharding (chosen from the label
// count). kVectors: one zarr-vectors skeleton store, object id = label.
enum class SkeletonFormat { kPrecomputed, kPrecomputedSharded, kSwc, kVectors };
// "precomputed", "precomputed-sharded", "swc" or "vectors"; InvalidArgument
// (field "format") naming them otherwise.
Result<SkeletonFormat> ParseSkeletonFormat(std::string_view text);

struct SkeletonizeOptions {
  SkeletonFormat format = SkeletonFormat::kPrecomputed;
  // Labels to skeletonize; empty: every nonzero label. One absent from the
  // source is NotFound.
  std::vector<std::uint64_t> labels;
  // The invalidation ball around each path voxel: scale * DBF + constant
  // (physical units), and the centre-line penalty; kimimaro's defaults.
  double scale = 1.5;
  double constant = 300;
  double pdrf_scale = 100000;
  double pdrf_exponent = 4;
  // Voxel size x, y, z in nanometres; absent: a precomputed source's scale-0
  // resolution, 1, 1, 1 for zarr.
  std::optional<std::array<double, 3>> voxel_size;
  // Replace skeletons already at the destination; without it InvalidArgument.
  bool overwrite = false;
  // The folder of a precomputed segmentation that holds its skeletons.
  std::string directory = "skeletons";
  // vectors: the store's chunk shape x, y, z in nanometres; absent: 128
  // voxels on each axis.
  std::optional<std::array<double, 3>> vectors_chunk_shape;
  // The most one label's skeleton may hold in memory at once, in bytes; 0:
  // 1 GiB. A label whose bounding box padded by one voxel needs more (55
  // bytes a voxel) is skeletonized in overlapping blocks that fit, merged
  // into one tree per connected piece (docs/scale.md, "Labels larger than
  // the budget"). A limit too small for the smallest block (about 183 KiB):
  // ResourceExhausted (field "max_memory") naming the label and what it
  // needs, before anything is read.
  std::uint64_t max_memory = 0;
  // The job's ranks (facade/job_ranks.h); null or one rank: this process
  // alone. More: the job is split as facade/skeleton_jobs.h describes, each
  // rank scanning its share of the chunks and skeletonizing the labels it
  // owns; rank 0 writes the infos (vectors: the whole store). The same
  // bytes either way.
  core::Communicator* ranks = nullptr;
};

struct SkeletonizeSummary {
  std::uint64_t labels = 0;
  std::uint64_t voxels = 0;  // of those labels
  std::uint64_t vertices = 0;
  std::uint64_t edges = 0;
  double cable_length = 0;  // nanometres, all labels together
  std::uint64_t files = 0;
  std::uint64_t bytes = 0;
  // Where the files went inside the destination: "skeletons/" or "".
  // vectors: files counts the store's chunks, bytes 0.
  std::string prefix;
};

// Skeletonizes the 3-d label volume at `source_url` (a zarr v2/v3 array or
// a precomputed segmentation's scale 0; unsigned integer labels, 0 is
// background), never read whole: a scan of its chunks finds each label's
// bounding box, then each label is skeletonized from the voxels under its
// box padded by one voxel (the peak memory follows the largest label's box,
// times the threads at work, not the volume: docs/scale.md), and writes the skeletons at
// `dest_url`: precomputed into the segmentation there (its info gains "skeletons"), or as the
// skeleton directory itself where dest has no info (precomputed-sharded the same, in shard files);
// SWC as "<label>.swc" files; vectors as a new zarr-vectors store at dest (vertices in nanometres,
// a "radius" vertex attribute, the label as object id, edges [child, parent] toward each skeleton's
// root; InvalidArgument for a label of 2^63 or more, which an int64 object id cannot hold).
// Existing output is InvalidArgument without options.overwrite. A volume with no labels writes an
// empty result. Threads, progress (voxels of labels done) and cancellation are the call's, else the
// context's. With options.ranks of more than one rank, every rank calls this alike and returns the
// same status (rank 0's summary on every rank).
Result<SkeletonizeSummary> Skeletonize(const Context& context, std::string_view source_url,
                                       std::string_view dest_url,
                                       const SkeletonizeOptions& options = {},
                                       const CallOptions& call = {});

// One skeleton as read back from a precomputed skeleton file.
struct SkeletonData {
  std::vector<std::array<float, 3>> vertices;
  std::vector<std::array<std::uint32_t, 2>> edges;
  std::vector<float> radii;
};
// The skeleton of `label` at `url` (a segmentation with "skeletons" in its
// info, or a skeleton directory; sharded or not). NotFound naming the key
// (or the shard file) when absent.
Result<SkeletonData> ReadSkeleton(const Context& context, std::string_view url,
                                  std::uint64_t label);

}  // namespace chunkwise

#endif  // CHUNKWISE_FACADE_SKELETONS_H_
