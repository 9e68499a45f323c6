#include "pipelines/stream/pyramid_plan.h"

#include <algorithm>
#include <cmath>

#include "formats/ome/multiscales.h"
#include "pipelines/stream/pyramid_accumulator.h"

namespace chunkwise::pipelines::stream {
namespace {

using core::Index;

constexpr std::size_t kMaxLevels = 32;

Index CeilDiv(Index a, Index b) { return (a + b - 1) / b; }

// Level k+1's array from level k's: extents reduced, tiles and tiles per
// shard clipped to them in dimensions > 0.
StreamConfig NextLevel(const StreamConfig& level, const core::Shape& factors) {
  StreamConfig next = level;
  for (std::size_t d = 0; d < next.dimensions.size(); ++d) {
    StreamDimension& dim = next.dimensions[d];
    dim.size = CeilDiv(dim.size, factors[d]);  // 0 (unbounded) stays 0.
    if (d == 0) continue;
    dim.tile_size = std::min(dim.tile_size, dim.size);
    dim.tiles_per_shard = std::min(dim.tiles_per_shard, CeilDiv(dim.size, dim.tile_size));
  }
  return next;
}

Result<core::Shape> ChooseFactors(const MultiscaleConfig& multiscale,
                                  const std::vector<formats::ome::Axis>& axes) {
  core::Shape factors = multiscale.factors;
  if (factors.empty()) {
    for (const formats::ome::Axis& axis : axes) factors.push_back(axis.type == "space" ? 2 : 1);
  }
  if (factors.size() != axes.size()) {
    return Status::InvalidArgument("downsampling factors: " + std::to_string(factors.size()) +
                                   " for " + std::to_string(axes.size()) + " dimensions")
        .WithField("downsample_factors");
  }
  if (std::all_of(factors.begin(), factors.end(), [](Index f) { return f == 1; })) {
    return Status::InvalidArgument("downsampling factors [" + core::FormatShape(factors) +
                                   "] reduce nothing")
        .WithField("downsample_factors");
  }
  return factors;
}

// Level 0's scale per axis: the voxel size along space axes, 1 elsewhere.
Result<std::vector<double>> BaseScale(const MultiscaleConfig& multiscale,
                                      const std::vector<formats::ome::Axis>& axes) {
  const auto space = static_cast<std::size_t>(std::count_if(
      axes.begin(), axes.end(), [](const formats::ome::Axis& a) { return a.type == "space"; }));
  const std::vector<double>& voxel = multiscale.voxel_size;
  if (!voxel.empty() && voxel.size() != space) {
    return Status::InvalidArgument("the voxel size needs one value per space axis (" +
                                   std::to_string(space) + "), not " + std::to_string(voxel.size()))
        .WithField("voxel_size");
  }
  std::vector<double> scale;
  std::size_t next = 0;
  for (const formats::ome::Axis& axis : axes) {
    const double value = axis.type == "space" && !voxel.empty() ? voxel[next++] : 1.0;
    if (!std::isfinite(value) || value <= 0) {
      return Status::InvalidArgument("voxel sizes must be positive and finite")
          .WithField("voxel_size");
    }
    scale.push_back(value);
  }
  return scale;
}

Result<nlohmann::json> GroupAttributes(const MultiscaleConfig& multiscale,
                                       std::vector<formats::ome::Axis> axes,
                                       const core::Shape& factors) {
  CHUNKWISE_ASSIGN_OR_RETURN(std::vector<double> scale, BaseScale(multiscale, axes));
  formats::ome::Multiscale image;
  image.name = multiscale.name;
  image.axes = std::move(axes);
  for (std::size_t k = 0; k <= multiscale.levels; ++k) {
    image.datasets.push_back({LevelPath(k), scale});
    for (std::size_t d = 0; d < scale.size(); ++d) scale[d] *= static_cast<double>(factors[d]);
  }
  const std::string method(core::DownsampleMethodName(multiscale.method));
  image.type = method;
  image.metadata = {
      {"description", "levels made while streaming, each from the one before by " + method +
                          " over windows of the factors (docs/pipelines/stream-writer.md)"},
      {"method", "chunkwise zarr stream"},
      {"version", CHUNKWISE_VERSION},
      {"kwargs", {{"downsample", method}, {"factors", factors}}}};
  return formats::ome::MultiscalesAttributes(image);
}

}  // namespace

std::string LevelPath(std::size_t level) { return std::to_string(level); }

core::Downsampler PyramidPlan::MakeDownsampler() const {
  // PlanPyramid checked these.
  return *core::Downsampler::Create(method, configs[0].data_type, factors);
}

Result<PyramidPlan> PlanPyramid(const StreamConfig& config) {
  const MultiscaleConfig& multiscale = *config.multiscale;
  if (multiscale.levels > kMaxLevels) {
    return Status::InvalidArgument("a multiscale stream has at most " + std::to_string(kMaxLevels) +
                                   " levels, not " + std::to_string(multiscale.levels))
        .WithField("levels");
  }
  std::vector<std::string> names;
  for (const StreamDimension& dim : config.dimensions) {
    if (!dim.name.empty()) names.push_back(dim.name);
  }
  if (!names.empty() && names.size() != config.dimensions.size()) {
    return Status::InvalidArgument("an OME-Zarr image names every dimension or none")
        .WithField("dimension_names");
  }
  CHUNKWISE_ASSIGN_OR_RETURN(
      std::vector<formats::ome::Axis> axes,
      formats::ome::AxesFromNames(names, config.dimensions.size(), multiscale.unit));
  PyramidPlan pyramid;
  pyramid.method = multiscale.method;
  CHUNKWISE_ASSIGN_OR_RETURN(pyramid.factors, ChooseFactors(multiscale, axes));
  CHUNKWISE_ASSIGN_OR_RETURN(
      core::Downsampler downsampler,
      core::Downsampler::Create(multiscale.method, config.data_type, pyramid.factors));
  CHUNKWISE_ASSIGN_OR_RETURN(pyramid.attributes,
                             GroupAttributes(multiscale, axes, pyramid.factors));
  StreamConfig level = config;
  level.multiscale.reset();
  level.max_memory = 0;
  for (std::size_t d = 0; d < axes.size(); ++d) level.dimensions[d].name = axes[d].name;
  for (std::size_t k = 0; k <= multiscale.levels; ++k) {
    if (k > 0) level = NextLevel(level, pyramid.factors);
    CHUNKWISE_ASSIGN_OR_RETURN(StreamPlan plan, PlanStreamArray(level));
    pyramid.configs.push_back(level);
    pyramid.levels.push_back(std::move(plan));
  }
  core::Shape frame;
  for (std::size_t d = 1; d < config.dimensions.size(); ++d) {
    frame.push_back(config.dimensions[d].size);
  }
  pyramid.slab_bytes = PyramidAccumulator::MemoryBytes(downsampler, frame, multiscale.levels);
  return pyramid;
}

}  // namespace chunkwise::pipelines::stream
