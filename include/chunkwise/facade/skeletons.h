// Skeletons of a label volume by URL: TEASAR-style (a distance-to-boundary
// field, paths from a root through the invalidation ball, a radius per
// vertex), written as neuroglancer precomputed skeletons or SWC files
// (docs/formats/precomputed-skeletons.md).
#ifndef CHUNKWISE_FACADE_SKELETONS_H_
#define CHUNKWISE_FACADE_SKELETONS_H_

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "chunkwise/core/result.h"
#include "chunkwise/facade/call_options.h"
#include "chunkwise/facade/context.h"

namespace chunkwise {

enum class SkeletonFormat { kPrecomputed, kSwc };
// "precomputed" or "swc"; InvalidArgument (field "format") otherwise.
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
  std::string prefix;
};

// Skeletonizes the 3-d label volume at `source_url` (a zarr v2/v3 array or
// a precomputed segmentation's scale 0; unsigned integer labels, 0 is
// background) and writes the skeletons at `dest_url`: precomputed into the
// segmentation there (its info gains "skeletons"), or as the skeleton
// directory itself where dest has no info; SWC as "<label>.swc" files. A
// volume with no labels writes an empty result. Threads, progress (voxels
// of labels done) and cancellation are the call's, else the context's.
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
// info, or a skeleton directory). NotFound naming the key when absent.
Result<SkeletonData> ReadSkeleton(const Context& context, std::string_view url,
                                  std::uint64_t label);

}  // namespace chunkwise

#endif  // CHUNKWISE_FACADE_SKELETONS_H_
