#include "pipelines/stream/scatter_geometry.h"

#include <numeric>

#include "core/ravel.h"
#include "pipelines/stream/stream_config.h"

namespace chunkwise::pipelines::stream {

ScatterGeometry MakeScatterGeometry(const StreamPlan& plan) {
  const core::ShardLayout& layout = plan.layout;
  const std::uint64_t item = plan.tile_spec.dtype.size();
  const auto last = static_cast<std::size_t>(layout.rank() - 1);
  ScatterGeometry g{};
  g.frame_bytes = plan.frame_bytes;
  // A rank-1 array's frame is one element: a row of one, in tiles of one.
  g.row_bytes = last == 0 ? item : static_cast<std::uint64_t>(layout.dims()[last].size) * item;
  g.segment_bytes = last == 0 ? item : static_cast<std::uint64_t>(layout.tile_shape()[last]) * item;
  g.tile_bytes = plan.tile_bytes;
  g.tile0 = static_cast<std::uint64_t>(layout.tile_shape()[0]);
  g.tile_frame_bytes = g.tile_bytes / g.tile0;
  g.epoch_bytes = static_cast<std::uint64_t>(layout.epoch_tile_count()) * g.tile_bytes;
  return g;
}

std::vector<std::uint64_t> FrameRowOffsets(const StreamPlan& plan) {
  const core::ShardLayout& layout = plan.layout;
  const std::uint64_t item = plan.tile_spec.dtype.size();
  const auto rank = static_cast<std::size_t>(layout.rank());
  const core::Shape& tile = layout.tile_shape();
  core::Shape rows_shape;  // Dimensions 1..D-2.
  for (std::size_t d = 1; d + 1 < rank; ++d) rows_shape.push_back(layout.dims()[d].size);
  std::size_t rows = 1;
  for (core::Index size : rows_shape) rows *= static_cast<std::size_t>(size);
  std::vector<std::uint64_t> offsets(rows);
  for (std::size_t r = 0; r < rows; ++r) {
    const core::Coord x = core::Unravel(static_cast<core::Index>(r), rows_shape);
    std::uint64_t tile_index = 0;
    std::uint64_t in_tile = 0;
    for (std::size_t d = 1; d < rank; ++d) {
      const core::Index at = d + 1 < rank ? x[d - 1] : 0;
      tile_index = tile_index * static_cast<std::uint64_t>(layout.tile_count()[d]) +
                   static_cast<std::uint64_t>(at / tile[d]);
      in_tile =
          in_tile * static_cast<std::uint64_t>(tile[d]) + static_cast<std::uint64_t>(at % tile[d]);
    }
    offsets[r] = tile_index * plan.tile_bytes + in_tile * item;
  }
  return offsets;
}

std::uint32_t ScatterUnitBytes(const ScatterGeometry& g) {
  const std::uint64_t common = std::gcd(g.segment_bytes, g.row_bytes);
  std::uint32_t unit = 16;
  while (common % unit != 0) unit /= 2;
  return unit;
}

}  // namespace chunkwise::pipelines::stream
