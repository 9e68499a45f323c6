// StreamBackend: the scatter, compress and aggregate stage of the streaming shard
// writer, behind one interface so that the CPU and CUDA backends share the
// tile pool, the shard-index bookkeeping and the sink.
//
// Design: ../shared/seeds/sharding-layer.md ("GPU Aggregation Kernel"). A
// backend scatters staged frames into tiles (tile_pool.h), compresses every
// tile of a batch, then per epoch permutes the
// compressed sizes into shard-major order (the layout's P), takes their
// exclusive scan over the padded position space M' and gathers the tiles
// into one dense buffer. Tiles equal to the fill value are not stored: their
// positions, like the holes of the padded space, are absent.
#ifndef CHUNKWISE_PIPELINES_STREAM_STREAM_BACKEND_H_
#define CHUNKWISE_PIPELINES_STREAM_STREAM_BACKEND_H_

#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

#include "chunkwise/core/bytes.h"
#include "chunkwise/core/status.h"
#include "chunkwise/core/thread_pool.h"
#include "chunkwise/pipelines/stream/stream_config.h"
#include "chunkwise/pipelines/stream/tile_pool.h"

namespace chunkwise::pipelines::stream {

// One batch, compressed and in shard-major order.
struct AggregatedBatch {
  core::Index first_epoch = 0;
  std::size_t epochs = 0;
  std::size_t positions = 0;  // M', the padded shard-major positions of one epoch.
  // Compressed tiles, epoch after epoch, each epoch in position order.
  Bytes data;
  // Per epoch, M' + 1 byte offsets into `data`: position j of epoch e spans
  // [offsets[e·(M'+1) + j], offsets[e·(M'+1) + j + 1]).
  std::vector<std::uint64_t> offsets;
  // Per epoch, M' flags: 1 where a tile is stored.
  std::vector<std::uint8_t> present;

  std::uint64_t Begin(std::size_t epoch, std::size_t position) const {
    return offsets[epoch * (positions + 1) + position];
  }
  bool Present(std::size_t epoch, std::size_t position) const {
    return present[epoch * positions + position] != 0;
  }
};

class StreamBackend {
 public:
  virtual ~StreamBackend() = default;
  virtual std::string_view name() const = 0;
  // Scatters the first frames.epochs tile epochs of `frames` into tiles,
  // compresses them and aggregates them into `out` (whose buffers are reused
  // between calls).
  virtual Status CompressAndAggregate(const FrameBatch& frames, AggregatedBatch& out) = 0;
};

// The host backend: tiles compressed by the inner codec chain on `pool`.
Result<std::unique_ptr<StreamBackend>> MakeCpuBackend(const StreamPlan& plan,
                                                      core::ThreadPool& pool);

}  // namespace chunkwise::pipelines::stream

#endif  // CHUNKWISE_PIPELINES_STREAM_STREAM_BACKEND_H_
