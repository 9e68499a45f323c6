#include "pipelines/stream/tile_major_batch.h"

#include <algorithm>
#include <cstring>

namespace chunkwise::pipelines::stream {

TileMajorBatch::TileMajorBatch(const StreamPlan& plan)
    : g_(MakeScatterGeometry(plan)),
      capacity_(BatchInputBytes(plan)),
      row_offsets_(FrameRowOffsets(plan)) {
  fill_row_.resize(g_.row_bytes);
  FillWithValue(fill_row_, plan.tile_spec);
  tiles_.resize(plan.epochs_per_batch * g_.epoch_bytes);
  FillWithValue(tiles_, plan.tile_spec);
}

void TileMajorBatch::Stage(std::size_t offset, ByteView bytes) {
  while (!bytes.empty()) {
    const std::size_t frame = offset / g_.frame_bytes;
    const std::size_t in_frame = offset % g_.frame_bytes;
    const std::size_t n =
        StageRowPart(frame, in_frame / g_.row_bytes, in_frame % g_.row_bytes, bytes);
    offset += n;
    bytes = bytes.subspan(n);
  }
}

// Copies the start of `bytes` into row `row` of frame `frame` from byte
// `in_row` on, up to the row's end; returns the bytes taken.
std::size_t TileMajorBatch::StageRowPart(std::size_t frame, std::size_t row, std::size_t in_row,
                                         ByteView bytes) {
  std::uint8_t* row_start = tiles_.data() + (frame / g_.tile0) * g_.epoch_bytes +
                            row_offsets_[row] + (frame % g_.tile0) * g_.tile_frame_bytes;
  const std::size_t n = std::min<std::size_t>(bytes.size(), g_.row_bytes - in_row);
  std::uint8_t* to =
      row_start + (in_row / g_.segment_bytes) * g_.tile_bytes + in_row % g_.segment_bytes;
  std::size_t room = g_.segment_bytes - in_row % g_.segment_bytes;
  for (std::size_t done = 0; done < n;) {
    const std::size_t take = std::min(n - done, room);
    std::memcpy(to, bytes.data() + done, take);
    done += take;
    to += take + (g_.tile_bytes - g_.segment_bytes);  // The next tile's segment of this row.
    room = g_.segment_bytes;
  }
  return n;
}

void TileMajorBatch::FillFrames(core::Index first, core::Index last) {
  for (auto frame = static_cast<std::size_t>(first); frame < static_cast<std::size_t>(last);
       ++frame) {
    for (std::size_t row = 0; row < row_offsets_.size(); ++row) {
      Stage(frame * g_.frame_bytes + row * g_.row_bytes, fill_row_);
    }
  }
}

}  // namespace chunkwise::pipelines::stream
