// StreamBackend: the scatter, compress and aggregate stage of the streaming
// shard writer, behind one interface so that the CPU and CUDA backends share
// the writer, the shard-index bookkeeping and the sink.
//
// Design: docs/pipelines/stream-writer.md, "Layout arithmetic" (aggregation). A
// backend scatters staged frames into tiles (scatter_geometry.h), compresses
// every tile of a batch, then per epoch permutes the compressed sizes into
// shard-major order (the layout's P), takes their exclusive scan over the
// padded position space M' and gathers the tiles into one dense buffer. Tiles
// equal to the fill value are not stored: their positions, like the holes of
// the padded space, are absent.
//
// A backend may work on several batches at once (depth()): Submit starts one
// and returns as soon as its staging batch may be refilled; Complete finishes
// the oldest. The CPU backend does one at a time; the CUDA backend copies the
// next batch to the GPU while it compresses the one before.
#ifndef CHUNKWISE_PIPELINES_STREAM_STREAM_BACKEND_H_
#define CHUNKWISE_PIPELINES_STREAM_STREAM_BACKEND_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "chunkwise/core/bytes.h"
#include "chunkwise/core/status.h"
#include "chunkwise/core/thread_pool.h"
#include "pipelines/stream/staging_batch.h"
#include "pipelines/stream/stream_config.h"

namespace chunkwise::pipelines::stream {

// One batch, compressed and in shard-major order.
struct AggregatedBatch {
  core::Index first_epoch = 0;
  std::size_t epochs = 0;
  std::size_t positions = 0;  // M', the padded shard-major positions of one epoch.
  // Compressed tiles, epoch after epoch, each epoch in position order; they
  // live in `storage` or in `backend_memory`.
  ByteView data;
  // Per epoch, M' + 1 byte offsets into `data`: position j of epoch e spans
  // [offsets[e·(M'+1) + j], offsets[e·(M'+1) + j + 1]).
  std::vector<std::uint64_t> offsets;
  // Per epoch, M' flags: 1 where a tile is stored.
  std::vector<std::uint8_t> present;
  // Empty when the tiles lie in `data` as `offsets` say, one dense run in
  // position order (the CUDA backend gathers them so, for one copy to the
  // host). Else, per epoch, M' offsets into `data` where each stored tile
  // lies: the CPU backend hands over the buffer it compressed into, and the
  // sink sends each tile from there, so no tile is copied to be aggregated.
  // `offsets` still give the tiles' places in the shard either way.
  std::vector<std::uint64_t> sources;

  // Buffers the backend reuses from one batch to the next: host memory, or
  // memory of its own (the CUDA backend's page-locked memory, which must be
  // freed its own way and so carries its deleter).
  Bytes storage;
  std::shared_ptr<std::uint8_t> backend_memory;
  std::size_t backend_memory_bytes = 0;

  std::uint64_t Begin(std::size_t epoch, std::size_t position) const {
    return offsets[epoch * (positions + 1) + position];
  }
  bool Present(std::size_t epoch, std::size_t position) const {
    return present[epoch * positions + position] != 0;
  }
  // The stored bytes of position `position` of epoch `epoch`.
  ByteView Tile(std::size_t epoch, std::size_t position) const {
    const std::uint64_t size = Begin(epoch, position + 1) - Begin(epoch, position);
    const std::uint64_t at =
        sources.empty() ? Begin(epoch, position) : sources[epoch * positions + position];
    return data.subspan(at, size);
  }
};

// Time a backend spent in one stage of its pipeline, over every batch so far.
// Stages overlap, so their sum may exceed the wall time.
struct StageTime {
  std::string name;  // e.g. "H2D", "scatter", "compress", "aggregate", "D2H".
  double seconds = 0;
};

class StreamBackend {
 public:
  virtual ~StreamBackend() = default;
  virtual std::string_view name() const = 0;

  // A staging batch for Submit; the writer keeps a few and reuses them.
  virtual Result<std::unique_ptr<StagingBatch>> NewBatch() = 0;
  // How many batches may be submitted and not yet completed, at least 1.
  virtual std::size_t depth() const = 0;
  // How many completed batches the writer keeps for its emit stage, at
  // least 1. A backend that copies its output out double-buffers it (one
  // being written while the next is filled); one that hands over the buffer
  // it compressed into and takes back the one written (the CPU backend) is
  // already double-buffered by that exchange, and needs only one.
  virtual std::size_t output_batches() const { return kStreamBatchesPerStage; }
  // Starts scattering, compressing and aggregating the first frames.epochs
  // tile epochs of `frames` (made by this backend's NewBatch). `frames` may
  // be refilled once Submit returns.
  virtual Status Submit(StagingBatch& frames) = 0;
  // Finishes the oldest submitted batch into `out` (whose buffers are reused
  // between calls).
  virtual Status Complete(AggregatedBatch& out) = 0;

  virtual std::vector<StageTime> stage_times() const = 0;
};

using StreamBackendFactory =
    std::function<Result<std::unique_ptr<StreamBackend>>(const StreamPlan&, core::ThreadPool&)>;

// The host backend: tiles compressed by the inner codec chain on `pool`.
Result<std::unique_ptr<StreamBackend>> MakeCpuBackend(const StreamPlan& plan,
                                                      core::ThreadPool& pool);

}  // namespace chunkwise::pipelines::stream

#endif  // CHUNKWISE_PIPELINES_STREAM_STREAM_BACKEND_H_
