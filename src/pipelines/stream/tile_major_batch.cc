#include "pipelines/stream/tile_major_batch.h"

#include <algorithm>
#include <cstring>

#include "core/ravel.h"

namespace chunkwise::pipelines::stream {

TileMajorBatch::TileMajorBatch(const StreamPlan& plan)
    : g_(MakeScatterGeometry(plan)),
      capacity_(BatchInputBytes(plan)),
      row_offsets_(FrameRowOffsets(plan)) {
  fill_row_.resize(g_.row_bytes);
  FillWithValue(fill_row_, plan.tile_spec);
  tiles_.resize(plan.epochs_per_batch * g_.epoch_bytes);  // Uninitialised (core/bytes.h).
  const std::vector<bool> edge = EdgeTiles(plan);
  for (std::size_t e = 0; e < plan.epochs_per_batch; ++e) {
    for (std::size_t t = 0; t < edge.size(); ++t) {
      if (edge[t]) {
        FillWithValue(
            MutableByteView(tiles_.data() + e * g_.epoch_bytes + t * g_.tile_bytes, g_.tile_bytes),
            plan.tile_spec);
      }
    }
  }
}

// Which tiles of an epoch reach past the array's edge along dimensions 1..:
// only those have parts that staging never writes. Every other byte of the
// pool is written by Stage or FillFrames before its batch is compressed, so
// filling the whole pool first would only touch it twice.
std::vector<bool> TileMajorBatch::EdgeTiles(const StreamPlan& plan) {
  const core::ShardLayout& layout = plan.layout;
  core::Shape grid(layout.tile_count().begin() + 1, layout.tile_count().end());
  std::vector<bool> edge(static_cast<std::size_t>(layout.epoch_tile_count()), false);
  for (std::size_t t = 0; t < edge.size(); ++t) {
    const core::Coord c = core::Unravel(static_cast<core::Index>(t), grid);
    for (std::size_t d = 0; d < grid.size(); ++d) {
      const core::Index size = layout.dims()[d + 1].size;
      const core::Index tile = layout.tile_shape()[d + 1];
      if (size % tile != 0 && c[d] == grid[d] - 1) edge[t] = true;
    }
  }
  return edge;
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
