// TileMajorBatch: the CPU backend's staging batch, a tile pool for one batch
// of tile epochs into which the input is scattered as it arrives.
//
// Layout: scatter_geometry.h. Staging costs one memcpy per tile-row segment,
// and the tiles are then ready to compress in place. (The design stages frames
// and scatters them in a second pass, as a GPU must after its copy to the
// device: frame_major_batch.h; on a CPU that pass is a second copy of the
// whole input.)
//
// Parts of a tile outside the array hold the fill value from construction on,
// since staging never writes there (only those edge tiles are filled; the pool
// is otherwise left uninitialised, as every other byte is staged before it is
// compressed); frames a last partial batch lacks are set to the fill value by
// FillFrames.
#ifndef CHUNKWISE_PIPELINES_STREAM_TILE_MAJOR_BATCH_H_
#define CHUNKWISE_PIPELINES_STREAM_TILE_MAJOR_BATCH_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "chunkwise/core/bytes.h"
#include "pipelines/stream/scatter_geometry.h"
#include "pipelines/stream/staging_batch.h"
#include "pipelines/stream/stream_config.h"

namespace chunkwise::pipelines::stream {

class TileMajorBatch final : public StagingBatch {
 public:
  // Room for plan.epochs_per_batch tile epochs.
  explicit TileMajorBatch(const StreamPlan& plan);

  std::size_t capacity() const override { return capacity_; }
  void Stage(std::size_t offset, ByteView bytes) override;
  void FillFrames(core::Index first, core::Index last) override;

  // Tile `tile` (row-major in the epoch's tile grid) of epoch `epoch`.
  ByteView Tile(std::size_t epoch, std::size_t tile) const {
    return {tiles_.data() + epoch * g_.epoch_bytes + tile * g_.tile_bytes, g_.tile_bytes};
  }
  // Every tile of the batch, epoch after epoch.
  ByteView tiles() const { return tiles_; }

 private:
  static std::vector<bool> EdgeTiles(const StreamPlan& plan);
  std::size_t StageRowPart(std::size_t frame, std::size_t row, std::size_t in_row, ByteView bytes);

  ScatterGeometry g_;
  std::size_t capacity_;
  std::vector<std::uint64_t> row_offsets_;
  Bytes fill_row_;
  Bytes tiles_;
};

}  // namespace chunkwise::pipelines::stream

#endif  // CHUNKWISE_PIPELINES_STREAM_TILE_MAJOR_BATCH_H_
