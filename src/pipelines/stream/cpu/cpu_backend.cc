// The CPU backend: the input arrives already scattered into the batch's
// tiles (tile_major_batch.h), so Submit has the thread pool compress them in
// place, in runs of consecutive tiles, each run packed densely from its
// first slot of a buffer at the codec's bound (so that the pages touched are
// about the compressed bytes, not the bound); Complete
// permutes the sizes and scans them on the host, and hands that buffer over
// as it is, with where each tile lies (AggregatedBatch::sources): the sink
// sends every tile from the slot it was compressed into. The buffer handed
// back with the batch (written out by then) takes the next batch, so the
// writer's two slot buffers are touched once and reused for its whole run.
#include <chrono>
#include <cstring>
#include <utility>

#include "chunkwise/core/check.h"
#include "codec/codec_chain.h"
#include "pipelines/stream/stream_backend.h"
#include "pipelines/stream/tile_major_batch.h"

namespace chunkwise::pipelines::stream {
namespace {

using Clock = std::chrono::steady_clock;

double SecondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

class CpuBackend final : public StreamBackend {
 public:
  CpuBackend(const StreamPlan& plan, core::ThreadPool& pool)
      : plan_(plan),
        pool_(pool),
        permutation_(plan.layout.ShardMajorPermutation()),
        positions_(static_cast<std::size_t>(plan.layout.padded_epoch_tile_count())),
        slot_bytes_(plan.max_encoded_tile_bytes),
        sizes_(BatchTiles(plan)),
        sources_(BatchTiles(plan)),
        tiles_per_epoch_(static_cast<std::size_t>(plan.layout.epoch_tile_count())),
        fill_tile_(plan.tile_bytes) {
    FillWithValue(fill_tile_, plan.tile_spec);
    // Both slot buffers are allocated here, on the thread creating the
    // writer, not on its compression thread: memory a thread's own malloc
    // arena takes for a buffer over its heap size (64 MiB) goes back to the
    // kernel when freed, so each writer of a process (each level of a
    // pyramid, each stream of a Python session) would fault its buffers in
    // afresh; the creating thread's arena keeps freed memory for the next.
    // Allocating touches nothing (core/bytes.h): a short stream's second
    // buffer costs address space only.
    slots_.resize(sizes_.size() * slot_bytes_);
    spare_.resize(sizes_.size() * slot_bytes_);
  }

  std::string_view name() const override { return "cpu"; }
  std::size_t depth() const override { return 1; }
  std::size_t output_batches() const override { return 1; }

  Result<std::unique_ptr<StagingBatch>> NewBatch() override {
    return std::unique_ptr<StagingBatch>(std::make_unique<TileMajorBatch>(plan_));
  }

  Status Submit(StagingBatch& staged) override {
    CHUNKWISE_CHECK(!pending_);
    const auto& frames = static_cast<const TileMajorBatch&>(staged);  // Made by NewBatch.
    const Clock::time_point start = Clock::now();
    first_epoch_ = frames.first_epoch;
    epochs_ = frames.epochs;
    // The first Complete takes slots_ away before any buffer comes back:
    // the spare takes the second batch; after that, the buffer each Complete
    // gets back takes the next.
    if (slots_.empty()) std::swap(slots_, spare_);
    const std::size_t tiles = epochs_ * tiles_per_epoch_;
    const std::size_t runs = std::min(tiles, kRunsPerThread * pool_.num_threads());
    CHUNKWISE_RETURN_IF_ERROR(pool_.ParallelFor(runs, [&](std::size_t r) -> Status {
      return CompressRun(frames, r * tiles / runs, (r + 1) * tiles / runs);
    }));
    compress_seconds_ += SecondsSince(start);
    pending_ = true;
    return Status::Ok();
  }

  Status Complete(AggregatedBatch& out) override {
    CHUNKWISE_CHECK(pending_);
    pending_ = false;
    const Clock::time_point start = Clock::now();
    const std::size_t m = tiles_per_epoch_;
    out.first_epoch = first_epoch_;
    out.epochs = epochs_;
    out.positions = positions_;
    PermuteAndScan(m, out);
    // Where each stored tile lies: its slot, in batch order.
    out.sources.assign(out.epochs * positions_, 0);
    for (std::size_t k = 0; k < epochs_ * m; ++k) {
      const auto j = static_cast<std::size_t>(permutation_[k % m]);
      out.sources[(k / m) * positions_ + j] = sources_[k];
    }
    std::swap(out.storage, slots_);  // The emitted batch's buffer takes the next.
    out.data = out.storage;
    aggregate_seconds_ += SecondsSince(start);
    return Status::Ok();
  }

  std::vector<StageTime> stage_times() const override {
    return {{"compress", compress_seconds_}, {"aggregate", aggregate_seconds_}};
  }

 private:
  // Runs of tiles per thread: more than one, so that a slow tile does not
  // leave the other threads idle at the end of a batch.
  static constexpr std::size_t kRunsPerThread = 4;

  // Encodes tiles [first, last) one after another from slot `first` on: each
  // starts where the one before ended, with at least the codec's bound of
  // room, since the tiles before it took no more than theirs.
  Status CompressRun(const TileMajorBatch& frames, std::size_t first, std::size_t last) {
    std::size_t at = first * slot_bytes_;
    for (std::size_t k = first; k < last; ++k) {
      sources_[k] = at;
      CHUNKWISE_RETURN_IF_ERROR(
          Compress(frames, k, MutableByteView(slots_.data() + at, slot_bytes_)));
      at += sizes_[k];
    }
    return Status::Ok();
  }

  // Encodes tile k of the batch into `out`, or records size 0 when it is all
  // fill value.
  Status Compress(const TileMajorBatch& frames, std::size_t k, MutableByteView out) {
    const ByteView tile = frames.Tile(k / tiles_per_epoch_, k % tiles_per_epoch_);
    sizes_[k] = 0;
    if (std::memcmp(tile.data(), fill_tile_.data(), fill_tile_.size()) == 0) return Status::Ok();
    CHUNKWISE_ASSIGN_OR_RETURN(sizes_[k],
                               plan_.tile_codecs->EncodeInto(plan_.tile_spec, tile, out));
    // A stored tile is never empty: zarr reads a zero-length entry as data.
    if (sizes_[k] == 0) return Status::Internal("a codec encoded a tile to zero bytes");
    return Status::Ok();
  }

  // Passes 1 and 2: sizes to their shard-major positions, then an exclusive
  // scan over every epoch's M' positions (holes and fill tiles count 0).
  void PermuteAndScan(std::size_t m, AggregatedBatch& out) const {
    out.present.assign(out.epochs * positions_, 0);
    out.offsets.assign(out.epochs * (positions_ + 1), 0);
    std::vector<std::uint64_t> sizes(positions_);
    std::uint64_t total = 0;
    for (std::size_t e = 0; e < out.epochs; ++e) {
      std::fill(sizes.begin(), sizes.end(), 0);
      for (std::size_t i = 0; i < m; ++i) {
        const std::size_t size = sizes_[e * m + i];
        const auto j = static_cast<std::size_t>(permutation_[i]);
        sizes[j] = size;
        out.present[e * positions_ + j] = size == 0 ? 0 : 1;
      }
      std::uint64_t* offsets = out.offsets.data() + e * (positions_ + 1);
      for (std::size_t j = 0; j < positions_; ++j) {
        offsets[j] = total;
        total += sizes[j];
      }
      offsets[positions_] = total;
    }
  }

  const StreamPlan& plan_;
  core::ThreadPool& pool_;
  std::vector<core::Index> permutation_;
  std::size_t positions_;
  std::size_t slot_bytes_;  // The codec chain's bound for one tile.
  Bytes slots_;  // Tile k compresses into [k·slot_bytes_, +slot_bytes_); handed over by Complete.
  Bytes spare_;  // The second buffer, until the second batch takes it.
  std::vector<std::size_t> sizes_;      // Tile k's compressed size; 0 for fill tiles.
  std::vector<std::uint64_t> sources_;  // Where tile k lies in slots_.
  std::size_t tiles_per_epoch_;
  Bytes fill_tile_;
  // The submitted batch, compressed and waiting for Complete.
  bool pending_ = false;
  core::Index first_epoch_ = 0;
  std::size_t epochs_ = 0;
  double compress_seconds_ = 0;
  double aggregate_seconds_ = 0;
};

}  // namespace

Result<std::unique_ptr<StreamBackend>> MakeCpuBackend(const StreamPlan& plan,
                                                      core::ThreadPool& pool) {
  return std::unique_ptr<StreamBackend>(std::make_unique<CpuBackend>(plan, pool));
}

}  // namespace chunkwise::pipelines::stream
