#include "pipelines/stream/shard_accumulator.h"

namespace chunkwise::pipelines::stream {

using formats::zarr::ShardIndex;

ShardAccumulator::ShardAccumulator(const StreamPlan& plan, formats::zarr::IndexLocation location,
                                   ShardSink& sink, core::ThreadPool* pool)
    : plan_(plan),
      sink_(sink),
      pool_(pool),
      offset_shift_(formats::zarr::DataOffsetShift(
          location, static_cast<std::size_t>(plan.layout.tiles_per_shard_total()))) {
  const auto n = static_cast<std::size_t>(plan.layout.tiles_per_shard_total());
  open_.resize(static_cast<std::size_t>(plan.layout.active_shard_count()));
  for (OpenShard& shard : open_) shard.index = ShardIndex::Empty(n);
}

Status ShardAccumulator::Add(const AggregatedBatch& batch) {
  if (batch.first_epoch != next_epoch_) {
    return Status::Internal("stream batches out of order: epoch " +
                            std::to_string(batch.first_epoch) + " after " +
                            std::to_string(next_epoch_));
  }
  for (std::size_t e = 0; e < batch.epochs; ++e) {
    CHUNKWISE_RETURN_IF_ERROR(AddEpoch(batch, e));
  }
  return Status::Ok();
}

Status ShardAccumulator::AddEpoch(const AggregatedBatch& batch, std::size_t e) {
  const core::Index epoch = next_epoch_++;
  CHUNKWISE_RETURN_IF_ERROR(
      ForEachShard([&](std::size_t shard) { return AddRun(batch, e, epoch, shard); }));
  const core::ShardLayout& layout = plan_.layout;
  const bool shard_epoch_ends = (epoch + 1) % layout.tiles_per_shard()[0] == 0;
  const bool array_ends = !layout.unbounded() && epoch + 1 == layout.tile_count()[0];
  return shard_epoch_ends || array_ends ? FinishOpen() : Status::Ok();
}

// Appends shard `shard`'s tiles of epoch `epoch` (positions
// [shard·tpsi, (shard+1)·tpsi), contiguous in the batch) and indexes them.
Status ShardAccumulator::AddRun(const AggregatedBatch& batch, std::size_t e, core::Index epoch,
                                std::size_t shard) {
  const auto tpsi = static_cast<std::size_t>(plan_.layout.tiles_per_shard_inner());
  const std::size_t first = shard * tpsi;
  const std::uint64_t begin = batch.Begin(e, first);
  const std::uint64_t end = batch.Begin(e, first + tpsi);
  if (end == begin) return Status::Ok();
  OpenShard& open = open_[shard];
  if (open.output == nullptr) {
    CHUNKWISE_ASSIGN_OR_RETURN(
        open.output, sink_.Begin(plan_.layout.ShardCoord(epoch, static_cast<core::Index>(shard))));
  }
  if (batch.sources.empty()) {  // One dense run: one piece.
    CHUNKWISE_RETURN_IF_ERROR(
        open.output->Append(ByteView(batch.data.data() + begin, end - begin)));
  }
  for (std::size_t j = first; j < first + tpsi; ++j) {
    if (!batch.Present(e, j)) continue;
    if (!batch.sources.empty()) {  // Each tile from where it was compressed, in position order.
      CHUNKWISE_RETURN_IF_ERROR(open.output->Append(batch.Tile(e, j)));
    }
    const std::uint64_t at = batch.Begin(e, j);
    const auto slot =
        static_cast<std::size_t>(plan_.layout.IndexSlot(epoch, static_cast<core::Index>(j)));
    open.index.Set(slot,
                   {offset_shift_ + open.data_bytes + (at - begin), batch.Begin(e, j + 1) - at});
  }
  open.data_bytes += end - begin;
  return Status::Ok();
}

Status ShardAccumulator::FinishOpen() {
  const auto n = static_cast<std::size_t>(plan_.layout.tiles_per_shard_total());
  std::vector<std::uint64_t> finished_bytes(open_.size(), 0);  // 0: nothing written.
  CHUNKWISE_RETURN_IF_ERROR(ForEachShard([&](std::size_t shard) {
    OpenShard& open = open_[shard];
    if (open.output == nullptr) return Status::Ok();
    const Bytes index = open.index.Encode();
    CHUNKWISE_RETURN_IF_ERROR(open.output->Finish(index));
    finished_bytes[shard] = open.data_bytes + index.size();
    return Status::Ok();
  }));
  for (std::size_t shard = 0; shard < open_.size(); ++shard) {
    OpenShard& open = open_[shard];
    if (finished_bytes[shard] != 0) {
      ++shards_written_;
      bytes_written_ += finished_bytes[shard];
    }
    open.output.reset();
    open.index = ShardIndex::Empty(n);
    open.data_bytes = 0;
  }
  finished_epochs_ = next_epoch_;
  return Status::Ok();
}

Status ShardAccumulator::ForEachShard(const std::function<Status(std::size_t)>& body) {
  if (pool_ != nullptr && open_.size() > 1) return pool_->ParallelFor(open_.size(), body);
  for (std::size_t shard = 0; shard < open_.size(); ++shard) {
    CHUNKWISE_RETURN_IF_ERROR(body(shard));
  }
  return Status::Ok();
}

}  // namespace chunkwise::pipelines::stream
