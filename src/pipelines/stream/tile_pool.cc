#include "chunkwise/pipelines/stream/tile_pool.h"

#include <cstring>

#include "chunkwise/core/ravel.h"

namespace chunkwise::pipelines::stream {

void FillWithValue(MutableByteView out, const codec::ChunkSpec& spec) {
  const std::size_t item = spec.dtype.size();
  bool zero = true;
  for (std::uint8_t byte : spec.fill_value) zero = zero && byte == 0;
  if (zero) {
    std::memset(out.data(), 0, out.size());
    return;
  }
  for (std::size_t at = 0; at + item <= out.size(); at += item) {
    std::memcpy(out.data() + at, spec.fill_value.data(), item);
  }
}

FrameBatch::FrameBatch(const StreamPlan& plan)
    : frames_(plan.epochs_per_batch * static_cast<std::size_t>(plan.layout.tile_shape()[0]) *
              plan.frame_bytes) {}

TileScatter::TileScatter(const StreamPlan& plan)
    : tile_shape_(plan.layout.tile_shape()), spec_(plan.tile_spec) {
  const core::ShardLayout& layout = plan.layout;
  staged_shape_.push_back(static_cast<core::Index>(plan.epochs_per_batch) * tile_shape_[0]);
  for (int d = 1; d < layout.rank(); ++d) {
    staged_shape_.push_back(layout.dims()[d].size);
    tile_grid_.push_back(layout.tile_count()[d]);
  }
}

void TileScatter::BuildTile(const FrameBatch& batch, std::size_t epoch, std::size_t tile,
                            MutableByteView out) const {
  const std::size_t rank = tile_shape_.size();
  const core::Coord t = core::Unravel(static_cast<core::Index>(tile), tile_grid_);
  core::Coord origin(rank);
  core::Shape extent(rank);
  origin[0] = static_cast<core::Index>(epoch) * tile_shape_[0];
  extent[0] = std::clamp<core::Index>(batch.frames - origin[0], 0, tile_shape_[0]);
  bool whole = extent[0] == tile_shape_[0];
  for (std::size_t d = 1; d < rank; ++d) {
    origin[d] = t[d - 1] * tile_shape_[d];
    extent[d] = std::min(tile_shape_[d], staged_shape_[d] - origin[d]);
    whole = whole && extent[d] == tile_shape_[d];
  }
  // An edge tile: what lies outside the array reads as the fill value.
  if (!whole) FillWithValue(out, spec_);
  for (core::Index e : extent) {
    if (e == 0) return;
  }
  const core::Coord zero(rank, 0);
  core::CopyStridedRegion({batch.data(), staged_shape_, origin}, {out.data(), tile_shape_, zero},
                          extent, spec_.dtype.size());
}

}  // namespace chunkwise::pipelines::stream
