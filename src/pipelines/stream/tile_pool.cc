#include "chunkwise/pipelines/stream/tile_pool.h"

#include <algorithm>
#include <cstring>

#include "chunkwise/core/ravel.h"

namespace chunkwise::pipelines::stream {
namespace {

// Where each row of a frame (a position in dimensions 1..D-2) starts in an
// epoch's tiles, for frame 0 of the epoch and its first segment.
std::vector<std::size_t> RowOffsets(const core::ShardLayout& layout, std::size_t tile_bytes,
                                    std::size_t item) {
  const auto rank = static_cast<std::size_t>(layout.rank());
  const core::Shape& tile = layout.tile_shape();
  core::Shape rows_shape;  // Dimensions 1..D-2.
  for (std::size_t d = 1; d + 1 < rank; ++d) rows_shape.push_back(layout.dims()[d].size);
  std::size_t rows = 1;
  for (core::Index size : rows_shape) rows *= static_cast<std::size_t>(size);
  std::vector<std::size_t> offsets(rows);
  for (std::size_t r = 0; r < rows; ++r) {
    const core::Coord x = core::Unravel(static_cast<core::Index>(r), rows_shape);
    std::size_t tile_index = 0;
    std::size_t in_tile = 0;
    for (std::size_t d = 1; d < rank; ++d) {
      const core::Index at = d + 1 < rank ? x[d - 1] : 0;
      tile_index = tile_index * static_cast<std::size_t>(layout.tile_count()[d]) +
                   static_cast<std::size_t>(at / tile[d]);
      in_tile =
          in_tile * static_cast<std::size_t>(tile[d]) + static_cast<std::size_t>(at % tile[d]);
    }
    offsets[r] = tile_index * tile_bytes + in_tile * item;
  }
  return offsets;
}

}  // namespace

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
    : frame_bytes_(plan.frame_bytes),
      tile_bytes_(plan.tile_bytes),
      tile0_(static_cast<std::size_t>(plan.layout.tile_shape()[0])) {
  const core::ShardLayout& layout = plan.layout;
  const std::size_t item = plan.tile_spec.dtype.size();
  const auto last = static_cast<std::size_t>(layout.rank() - 1);
  // A rank-1 array's frame is one element: a row of one, in tiles of one.
  row_bytes_ = last == 0 ? item : static_cast<std::size_t>(layout.dims()[last].size) * item;
  segment_bytes_ = last == 0 ? item : static_cast<std::size_t>(layout.tile_shape()[last]) * item;
  tile_frame_bytes_ = tile_bytes_ / tile0_;
  epoch_bytes_ = static_cast<std::size_t>(layout.epoch_tile_count()) * tile_bytes_;
  capacity_ = plan.epochs_per_batch * tile0_ * frame_bytes_;
  row_offsets_ = RowOffsets(layout, tile_bytes_, item);
  fill_row_.resize(row_bytes_);
  FillWithValue(fill_row_, plan.tile_spec);
  tiles_.resize(plan.epochs_per_batch * epoch_bytes_);
  FillWithValue(tiles_, plan.tile_spec);
}

void FrameBatch::Stage(std::size_t offset, ByteView bytes) {
  while (!bytes.empty()) {
    const std::size_t frame = offset / frame_bytes_;
    const std::size_t in_frame = offset % frame_bytes_;
    const std::size_t n = StageRowPart(frame, in_frame / row_bytes_, in_frame % row_bytes_, bytes);
    offset += n;
    bytes = bytes.subspan(n);
  }
}

// Copies the start of `bytes` into row `row` of frame `frame` from byte
// `in_row` on, up to the row's end; returns the bytes taken.
std::size_t FrameBatch::StageRowPart(std::size_t frame, std::size_t row, std::size_t in_row,
                                     ByteView bytes) {
  std::uint8_t* row_start = tiles_.data() + (frame / tile0_) * epoch_bytes_ + row_offsets_[row] +
                            (frame % tile0_) * tile_frame_bytes_;
  const std::size_t n = std::min(bytes.size(), row_bytes_ - in_row);
  std::uint8_t* to = row_start + (in_row / segment_bytes_) * tile_bytes_ + in_row % segment_bytes_;
  std::size_t room = segment_bytes_ - in_row % segment_bytes_;
  for (std::size_t done = 0; done < n;) {
    const std::size_t take = std::min(n - done, room);
    std::memcpy(to, bytes.data() + done, take);
    done += take;
    to += take + (tile_bytes_ - segment_bytes_);  // The next tile's segment of this row.
    room = segment_bytes_;
  }
  return n;
}

void FrameBatch::FillFrames(core::Index first, core::Index last) {
  for (auto frame = static_cast<std::size_t>(first); frame < static_cast<std::size_t>(last);
       ++frame) {
    for (std::size_t row = 0; row < row_offsets_.size(); ++row) {
      Stage(frame * frame_bytes_ + row * row_bytes_, fill_row_);
    }
  }
}

}  // namespace chunkwise::pipelines::stream
