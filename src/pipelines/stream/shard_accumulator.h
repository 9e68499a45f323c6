// ShardAccumulator: the host-side shard bookkeeping of the streaming writer.
//
// Design: docs/pipelines/stream-writer.md, "Layout arithmetic" (open shards,
// over the padded position space). The S_inner shards sharing s0 = epoch /
// tps[0] are open at once. Each epoch's aggregated tiles arrive in shard-major
// order, so a shard's tiles of one epoch are one run of its data: appended to
// the shard in one piece when the batch holds them densely, else tile by tile
// from where the backend compressed them, and its index entries are set from
// the offsets.
// After tps[0] epochs (or the array's last epoch, or at close) the open shards
// are finished: the index, shifted for index_location "start", goes last and
// the shard is published. A shard whose tiles were all fill value is never
// opened, so it is never written. Used by one thread; given a pool, it writes
// the open shards' runs and finishes them in parallel (each shard is its own
// file), since one thread writing every shard bounds a fast backend's file
// output.
#ifndef CHUNKWISE_PIPELINES_STREAM_SHARD_ACCUMULATOR_H_
#define CHUNKWISE_PIPELINES_STREAM_SHARD_ACCUMULATOR_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "chunkwise/core/thread_pool.h"
#include "formats/zarr/shard_index.h"
#include "pipelines/stream/shard_sink.h"
#include "pipelines/stream/stream_backend.h"
#include "pipelines/stream/stream_config.h"

namespace chunkwise::pipelines::stream {

class ShardAccumulator {
 public:
  // `plan`, `sink` and `pool` (null: write from the calling thread only)
  // must outlive the accumulator.
  ShardAccumulator(const StreamPlan& plan, formats::zarr::IndexLocation location, ShardSink& sink,
                   core::ThreadPool* pool = nullptr);

  // Adds a batch's epochs (which follow the previous batch's) and finishes
  // every shard epoch they complete.
  Status Add(const AggregatedBatch& batch);
  // Finishes the shards still open: the partial last shard epoch.
  Status FinishOpen();

  // Tile epochs whose shards are all finished.
  core::Index finished_epochs() const { return finished_epochs_; }
  std::uint64_t shards_written() const { return shards_written_; }
  std::uint64_t bytes_written() const { return bytes_written_; }

 private:
  struct OpenShard {
    std::unique_ptr<ShardOutput> output;  // Null until the shard's first stored tile.
    formats::zarr::ShardIndex index = formats::zarr::ShardIndex::Empty(0);
    std::uint64_t data_bytes = 0;
  };

  Status AddEpoch(const AggregatedBatch& batch, std::size_t e);
  Status AddRun(const AggregatedBatch& batch, std::size_t e, core::Index epoch, std::size_t shard);
  // Calls body(shard) for every open shard, on the pool when there is one.
  Status ForEachShard(const std::function<Status(std::size_t)>& body);

  const StreamPlan& plan_;
  ShardSink& sink_;
  core::ThreadPool* pool_;
  std::uint64_t offset_shift_;
  std::vector<OpenShard> open_;
  core::Index next_epoch_ = 0;
  core::Index finished_epochs_ = 0;
  std::uint64_t shards_written_ = 0;
  std::uint64_t bytes_written_ = 0;
};

}  // namespace chunkwise::pipelines::stream

#endif  // CHUNKWISE_PIPELINES_STREAM_SHARD_ACCUMULATOR_H_
