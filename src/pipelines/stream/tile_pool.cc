#include "chunkwise/pipelines/stream/tile_pool.h"

#include <cstring>

#include "chunkwise/core/ravel.h"

namespace chunkwise::pipelines::stream {
namespace {

// Repeats the one-element `fill` (empty: zero) over `out`.
void FillWithPattern(std::uint8_t* out, std::size_t bytes, const std::vector<std::uint8_t>& fill,
                     std::size_t item_bytes) {
  bool zero = true;
  for (std::uint8_t byte : fill) zero = zero && byte == 0;
  if (zero) {
    std::memset(out, 0, bytes);
    return;
  }
  for (std::size_t at = 0; at + item_bytes <= bytes; at += item_bytes) {
    std::memcpy(out + at, fill.data(), item_bytes);
  }
}

}  // namespace

void FillWithValue(MutableByteView out, const codec::ChunkSpec& spec) {
  FillWithPattern(out.data(), out.size(), spec.fill_value, spec.dtype.size());
}

TileBatch::TileBatch(const StreamPlan& plan)
    : epochs_(plan.epochs_per_batch),
      tiles_per_epoch_(static_cast<std::size_t>(plan.layout.epoch_tile_count())),
      tile_bytes_(plan.tile_bytes),
      pool_(epochs_ * tiles_per_epoch_ * tile_bytes_) {
  FillWithPattern(pool_.data(), pool_.size(), plan.tile_spec.fill_value,
                  plan.tile_spec.dtype.size());
}

TileScatter::TileScatter(const StreamPlan& plan)
    : rank_(plan.layout.rank()),
      item_bytes_(plan.tile_spec.dtype.size()),
      frame_tile_(plan.layout.tile_shape()[0]),
      epoch_elements_(plan.layout.epoch_tile_count() * plan.layout.tile_elements()),
      strides_(plan.layout.scatter_strides()) {
  const auto& dims = plan.layout.dims();
  row_bytes_ = item_bytes_ * (rank_ == 1 ? 1 : static_cast<std::size_t>(dims[rank_ - 1].size));
  row_shape_.push_back(static_cast<core::Index>(plan.epochs_per_batch) * frame_tile_);
  rows_per_frame_ = 1;
  for (int d = 1; d + 1 < rank_; ++d) {
    row_shape_.push_back(dims[d].size);
    rows_per_frame_ *= static_cast<std::size_t>(dims[d].size);
  }
  fill_row_.resize(row_bytes_);
  FillWithPattern(fill_row_.data(), row_bytes_, plan.tile_spec.fill_value, item_bytes_);
}

core::Index TileScatter::RowStart(std::span<const core::Index> coord) const {
  const core::Index frame = coord[0];
  core::Index start =
      (frame / frame_tile_) * epoch_elements_ + (frame % frame_tile_) * strides_[0].element_stride;
  for (std::size_t d = 1; d < coord.size(); ++d) {
    const core::LiftedStride& s = strides_[d];
    start += (coord[d] / s.tile_size) * s.tile_stride + (coord[d] % s.tile_size) * s.element_stride;
  }
  return start;
}

void TileScatter::ScatterRow(const std::uint8_t* source, core::Index start,
                             TileBatch& batch) const {
  std::uint8_t* out = batch.data();
  if (rank_ == 1) {
    std::memcpy(out + start * item_bytes_, source, row_bytes_);
    return;
  }
  // Along the last dimension a row crosses tiles; each piece is contiguous.
  const core::LiftedStride& last = strides_[rank_ - 1];
  const std::size_t piece_bytes = static_cast<std::size_t>(last.tile_size) * item_bytes_;
  std::size_t done = 0;
  for (core::Index at = start; done < row_bytes_; at += last.tile_stride) {
    const std::size_t n = std::min(piece_bytes, row_bytes_ - done);
    std::memcpy(out + at * item_bytes_, source + done, n);
    done += n;
  }
}

void TileScatter::ScatterRows(const std::uint8_t* source, std::size_t first_row, std::size_t count,
                              TileBatch& batch) const {
  if (count == 0) return;
  if (rank_ == 1) {
    // Rank 1: the batch is the elements in order.
    std::memcpy(batch.data() + first_row * item_bytes_, source, count * row_bytes_);
    return;
  }
  core::Coord coord = core::Unravel(static_cast<core::Index>(first_row), row_shape_);
  const core::Coord origin(coord.size(), 0);
  for (std::size_t r = 0; r < count; ++r) {
    ScatterRow(source + r * row_bytes_, RowStart(coord), batch);
    core::AdvanceOdometer(coord, origin, row_shape_);
  }
}

void TileScatter::FillFrames(std::size_t first_frame, std::size_t count, TileBatch& batch) const {
  const std::size_t rows = count * rows_per_frame_;
  const std::size_t first_row = first_frame * rows_per_frame_;
  if (rank_ == 1) {
    for (std::size_t r = 0; r < rows; ++r) ScatterRows(fill_row_.data(), first_row + r, 1, batch);
    return;
  }
  core::Coord coord = core::Unravel(static_cast<core::Index>(first_row), row_shape_);
  const core::Coord origin(coord.size(), 0);
  for (std::size_t r = 0; r < rows; ++r) {
    ScatterRow(fill_row_.data(), RowStart(coord), batch);
    core::AdvanceOdometer(coord, origin, row_shape_);
  }
}

}  // namespace chunkwise::pipelines::stream
