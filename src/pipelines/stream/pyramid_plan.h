// PyramidPlan: the arrays of a multiscale stream (stream_config.h's
// MultiscaleConfig), derived before the first frame arrives.
//
// Level k (0..N) is the array at "<prefix>k/"; level k+1 is level k reduced
// by windows of `factors` (core/downsample.h), so its extent is
// ceil(extent / factor) in every dimension (dimension 0 stays unbounded when
// it is). Each level keeps level 0's codec, fill value, index location,
// backend and tile and shard shape, with the tile clipped to the level's
// extent in dimensions > 0 and the tiles per shard to its tile count, so
// that a small level is not padded to a large tile. Every level's
// dimension_names are the image's axes; the group's attributes are its
// OME-NGFF 0.5 multiscales (formats/ome/multiscales.h), one scale per level:
// the voxel size times factor^k.
#ifndef CHUNKWISE_PIPELINES_STREAM_PYRAMID_PLAN_H_
#define CHUNKWISE_PIPELINES_STREAM_PYRAMID_PLAN_H_

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "chunkwise/core/downsample.h"
#include "chunkwise/core/result.h"
#include "pipelines/stream/stream_config.h"

namespace chunkwise::pipelines::stream {

struct PyramidPlan {
  std::vector<StreamConfig> configs;  // Levels 0..N, each one array.
  std::vector<StreamPlan> levels;     // Their plans.
  core::DownsampleMethod method = core::DownsampleMethod::kMean;
  core::Shape factors;           // The window, per dimension.
  nlohmann::json attributes;     // The group's: {"ome": {...}}.
  std::uint64_t slab_bytes = 0;  // What the PyramidAccumulator holds.

  // The downsampler that makes level k+1 from level k.
  core::Downsampler MakeDownsampler() const;
};

// The path of level `level` in the group: "0", "1", ...
std::string LevelPath(std::size_t level);

// Plans config.multiscale's levels. InvalidArgument naming what is wrong: a
// rank outside 2..5, factors of the wrong count or all 1, a method the data
// type does not allow, voxel sizes not one per space axis or not positive, a
// unit OME-NGFF does not list.
Result<PyramidPlan> PlanPyramid(const StreamConfig& config);

}  // namespace chunkwise::pipelines::stream

#endif  // CHUNKWISE_PIPELINES_STREAM_PYRAMID_PLAN_H_
