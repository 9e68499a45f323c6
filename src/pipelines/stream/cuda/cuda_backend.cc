// The stream writer's CUDA backend; the design is in
// src/pipelines/stream/cuda_backend.h.
#include "pipelines/stream/cuda_backend.h"

#include <cuda_runtime.h>

#include <array>

#include "chunkwise/core/check.h"
#include "chunkwise/core/progress.h"
#include "cuda/blosc_lz4.h"
#include "cuda/cuda_resources.h"
#include "cuda/device.h"
#include "pipelines/stream/cuda/stream_kernels.h"
#include "pipelines/stream/frame_major_batch.h"
#include "pipelines/stream/scatter_geometry.h"

namespace chunkwise::pipelines::stream {
namespace {

using cuda::CheckCuda;
namespace kernels = cuda_kernels;

// Two slots: batch n+1 is copied in and scattered while batch n compresses.
constexpr std::size_t kSlots = 2;

enum Stage : std::size_t { kH2D, kScatter, kCompress, kAggregate, kD2H, kStageCount };
constexpr std::array<const char*, kStageCount> kStageNames = {"H2D", "scatter", "compress",
                                                              "aggregate", "D2H"};

// One batch's device buffers, the host copy of its offsets and flags, and
// the events that order and time its stages.
struct Slot {
  cuda::DeviceBuffer staging, tiles, encoded, sizes, fill_flags, permuted, offsets, present,
      aggregated;
  std::shared_ptr<std::uint8_t> host_index;  // Page-locked: offsets, then flags.
  std::uint64_t* host_offsets = nullptr;     // In host_index.
  std::uint8_t* host_flags = nullptr;        // In host_index.
  std::array<cuda::CudaEvent, kStageCount> begin, end;
  cuda::CudaEvent index_copied, data_copy_begin;
  core::Index first_epoch = 0;
  std::size_t epochs = 0;

  Status CreateEvents() {
    for (std::size_t s = 0; s < kStageCount; ++s) {
      CHUNKWISE_RETURN_IF_ERROR(begin[s].Create());
      CHUNKWISE_RETURN_IF_ERROR(end[s].Create());
    }
    CHUNKWISE_RETURN_IF_ERROR(index_copied.Create());
    return data_copy_begin.Create();
  }
};

class CudaBackend final : public StreamBackend {
 public:
  explicit CudaBackend(const StreamPlan& plan)
      : plan_(plan),
        g_(MakeScatterGeometry(plan)),
        unit_bytes_(ScatterUnitBytes(g_)),
        tiles_per_epoch_(static_cast<std::uint64_t>(plan.layout.epoch_tile_count())),
        positions_(static_cast<std::uint64_t>(plan.layout.padded_epoch_tile_count())),
        batch_tiles_(BatchTiles(plan)),
        index_items_(plan.epochs_per_batch * (positions_ + 1)),
        buffers_(PlanCudaBuffers(plan)) {}

  // Work still queued (a writer dropped before Close) must end before its
  // buffers are freed.
  ~CudaBackend() override {
    for (cuda::CudaStream* stream : {&h2d_, &compute_, &compress_, &d2h_}) {
      if (stream->get() != nullptr) cudaStreamSynchronize(stream->get());
    }
  }

  Status Init() {
    CHUNKWISE_RETURN_IF_ERROR(CheckCuda(cudaSetDevice(0), "set device"));
    CHUNKWISE_RETURN_IF_ERROR(CheckDeviceMemory());
    for (cuda::CudaStream* stream : {&h2d_, &compute_, &compress_, &d2h_}) {
      CHUNKWISE_RETURN_IF_ERROR(stream->Create());
    }
    CHUNKWISE_RETURN_IF_ERROR(UploadTables());
    for (Slot& slot : slots_) CHUNKWISE_RETURN_IF_ERROR(AllocateSlot(slot));
    std::size_t scan_bytes = 0;
    CHUNKWISE_RETURN_IF_ERROR(
        CheckCuda(kernels::ExclusiveScanScratchBytes(index_items_, &scan_bytes), "scan plan"));
    CHUNKWISE_RETURN_IF_ERROR(scan_scratch_.Allocate(scan_bytes));
    if (plan_.gpu_codec.blosc_lz4) {
      CHUNKWISE_ASSIGN_OR_RETURN(
          encoder_,
          cuda::GpuBloscLz4Batch::Create(
              plan_.tile_bytes, static_cast<std::uint32_t>(batch_tiles_),
              {plan_.gpu_codec.typesize, plan_.gpu_codec.shuffle, plan_.gpu_codec.store_only}));
      CHUNKWISE_CHECK(encoder_->output_stride() <= plan_.max_encoded_tile_bytes);
    }
    return CheckCuda(cudaStreamSynchronize(compute_.get()), "filling the tile pools");
  }

  std::string_view name() const override { return "cuda"; }
  std::size_t depth() const override { return kSlots; }

  Result<std::unique_ptr<StagingBatch>> NewBatch() override {
    CHUNKWISE_ASSIGN_OR_RETURN(std::shared_ptr<std::uint8_t> memory,
                               cuda::AllocatePinned(buffers_.staging));
    MutableByteView view(memory.get(), buffers_.staging);
    return std::unique_ptr<StagingBatch>(
        std::make_unique<FrameMajorBatch>(plan_, view, std::move(memory)));
  }

  Status Submit(StagingBatch& staged) override {
    CHUNKWISE_CHECK(submitted_ - completed_ < kSlots);
    const auto& frames = static_cast<const FrameMajorBatch&>(staged);  // Made by NewBatch.
    Slot& slot = slots_[submitted_ % kSlots];
    slot.first_epoch = frames.first_epoch;
    slot.epochs = frames.epochs;
    CHUNKWISE_RETURN_IF_ERROR(CheckCuda(cudaSetDevice(0), "set device"));
    CHUNKWISE_RETURN_IF_ERROR(CopyIn(slot, frames));
    CHUNKWISE_RETURN_IF_ERROR(ScatterTiles(slot));
    CHUNKWISE_RETURN_IF_ERROR(CompressTiles(slot));
    CHUNKWISE_RETURN_IF_ERROR(AggregateTiles(slot));
    ++submitted_;
    // The staging batch may be refilled once its copy to the GPU is done.
    return CheckCuda(cudaEventSynchronize(slot.end[kH2D].get()), "copy to device");
  }

  Status Complete(AggregatedBatch& out) override {
    CHUNKWISE_CHECK(completed_ < submitted_);
    Slot& slot = slots_[completed_ % kSlots];
    ++completed_;
    CHUNKWISE_RETURN_IF_ERROR(CheckCuda(cudaSetDevice(0), "set device"));
    CHUNKWISE_RETURN_IF_ERROR(CopyIndexOut(slot));
    CHUNKWISE_RETURN_IF_ERROR(CheckCuda(cudaEventSynchronize(slot.index_copied.get()),
                                        "scatter, compress or aggregate (or their copies)"));
    const std::uint64_t items = slot.epochs * (positions_ + 1);
    const std::uint64_t* offsets = slot.host_offsets;
    const std::uint64_t total = offsets[items - 1];
    CHUNKWISE_RETURN_IF_ERROR(CopyDataOut(slot, total, out));
    out.first_epoch = slot.first_epoch;
    out.epochs = slot.epochs;
    out.positions = positions_;
    out.offsets.assign(offsets, offsets + items);
    out.present.assign(slot.host_flags, slot.host_flags + slot.epochs * positions_);
    out.data = ByteView(out.backend_memory.get(), total);
    return AccountStages(slot);
  }

  std::vector<StageTime> stage_times() const override {
    std::vector<StageTime> times;
    for (std::size_t s = 0; s < kStageCount; ++s) times.push_back({kStageNames[s], seconds_[s]});
    return times;
  }

 private:
  Status CheckDeviceMemory() const {
    std::size_t free_bytes = 0, total_bytes = 0;
    CHUNKWISE_RETURN_IF_ERROR(CheckCuda(cudaMemGetInfo(&free_bytes, &total_bytes), "memory info"));
    if (buffers_.total() <= free_bytes) return Status::Ok();
    return Status::InvalidArgument(
        "the CUDA backend needs " + core::FormatMebibytes(buffers_.total()) +
        " of GPU memory for this array (two batches of " +
        core::FormatMebibytes(buffers_.per_slot()) + " and " +
        core::FormatMebibytes(buffers_.shared) + " shared); GPU 0 has " +
        core::FormatMebibytes(free_bytes) +
        " free: use smaller tiles, fewer tiles per shard in dimensions > 0 or fewer epochs "
        "per batch");
  }

  // The row table, the permutation P and the fill tile, uploaded once.
  Status UploadTables() {
    const std::vector<std::uint64_t> rows = FrameRowOffsets(plan_);
    CHUNKWISE_RETURN_IF_ERROR(row_offsets_.Allocate(8 * rows.size()));
    CHUNKWISE_RETURN_IF_ERROR(row_offsets_.Upload(rows.data(), 8 * rows.size()));
    std::vector<std::uint32_t> permutation;
    for (core::Index j : plan_.layout.ShardMajorPermutation()) {
      permutation.push_back(static_cast<std::uint32_t>(j));
    }
    CHUNKWISE_RETURN_IF_ERROR(permutation_.Allocate(4 * permutation.size()));
    CHUNKWISE_RETURN_IF_ERROR(permutation_.Upload(permutation.data(), 4 * permutation.size()));
    Bytes fill(plan_.tile_bytes);
    FillWithValue(fill, plan_.tile_spec);
    CHUNKWISE_RETURN_IF_ERROR(fill_tile_.Allocate(fill.size()));
    return fill_tile_.Upload(fill.data(), fill.size());
  }

  // A slot's buffers; its tile pool starts as fill value, which the parts of
  // tiles outside the array keep (the scatter never writes there).
  Status AllocateSlot(Slot& slot) {
    const std::uint64_t flags = plan_.epochs_per_batch * positions_;
    CHUNKWISE_RETURN_IF_ERROR(slot.staging.Allocate(buffers_.staging));
    CHUNKWISE_RETURN_IF_ERROR(slot.tiles.Allocate(buffers_.tiles));
    CHUNKWISE_RETURN_IF_ERROR(slot.encoded.Allocate(buffers_.compressed));
    CHUNKWISE_RETURN_IF_ERROR(slot.sizes.Allocate(8 * batch_tiles_));
    CHUNKWISE_RETURN_IF_ERROR(slot.fill_flags.Allocate(batch_tiles_));
    CHUNKWISE_RETURN_IF_ERROR(slot.permuted.Allocate(8 * index_items_));
    CHUNKWISE_RETURN_IF_ERROR(slot.offsets.Allocate(8 * index_items_));
    CHUNKWISE_RETURN_IF_ERROR(slot.present.Allocate(flags));
    CHUNKWISE_RETURN_IF_ERROR(slot.aggregated.Allocate(buffers_.aggregated));
    CHUNKWISE_ASSIGN_OR_RETURN(slot.host_index, cuda::AllocatePinned(8 * index_items_ + flags));
    slot.host_offsets = reinterpret_cast<std::uint64_t*>(slot.host_index.get());
    slot.host_flags = slot.host_index.get() + 8 * index_items_;
    CHUNKWISE_RETURN_IF_ERROR(slot.CreateEvents());
    return CheckCuda(
        kernels::LaunchRepeat(slot.tiles.as<std::uint8_t>(), buffers_.tiles,
                              fill_tile_.as<std::uint8_t>(), plan_.tile_bytes, compute_.get()),
        "fill launch");
  }

  std::uint64_t InputBytes(const Slot& slot) const {
    return slot.epochs * g_.tile0 * g_.frame_bytes;
  }

  kernels::TileBatchView View(const Slot& slot) const {
    return {slot.epochs * tiles_per_epoch_,
            tiles_per_epoch_,
            positions_,
            plan_.tile_bytes,
            slot.fill_flags.as<std::uint8_t>(),
            encoder_ != nullptr ? slot.sizes.as<std::uint64_t>() : nullptr,
            permutation_.as<std::uint32_t>()};
  }

  Status CopyIn(Slot& slot, const FrameMajorBatch& frames) {
    const std::uint64_t bytes = InputBytes(slot);
    const ByteView input = frames.Frames(slot.epochs * g_.tile0);
    CHUNKWISE_RETURN_IF_ERROR(Record(slot.begin[kH2D], h2d_));
    CHUNKWISE_RETURN_IF_ERROR(
        CheckCuda(cudaMemcpyAsync(slot.staging.as<std::uint8_t>(), input.data(), bytes,
                                  cudaMemcpyHostToDevice, h2d_.get()),
                  "copy to device"));
    return Record(slot.end[kH2D], h2d_);
  }

  Status ScatterTiles(Slot& slot) {
    CHUNKWISE_RETURN_IF_ERROR(Wait(compute_, slot.end[kH2D]));
    CHUNKWISE_RETURN_IF_ERROR(Record(slot.begin[kScatter], compute_));
    CHUNKWISE_RETURN_IF_ERROR(
        CheckCuda(kernels::LaunchScatter(slot.staging.as<std::uint8_t>(), InputBytes(slot),
                                         unit_bytes_, g_, row_offsets_.as<std::uint64_t>(),
                                         slot.tiles.as<std::uint8_t>(), compute_.get()),
                  "scatter launch"));
    CHUNKWISE_RETURN_IF_ERROR(CheckCuda(
        kernels::LaunchFindFillTiles(slot.tiles.as<std::uint8_t>(), slot.epochs * tiles_per_epoch_,
                                     plan_.tile_bytes, fill_tile_.as<std::uint8_t>(),
                                     slot.fill_flags.as<std::uint8_t>(), compute_.get()),
        "fill-tile launch"));
    return Record(slot.end[kScatter], compute_);
  }

  Status CompressTiles(Slot& slot) {
    CHUNKWISE_RETURN_IF_ERROR(Wait(compress_, slot.end[kScatter]));
    CHUNKWISE_RETURN_IF_ERROR(Record(slot.begin[kCompress], compress_));
    if (encoder_ != nullptr) {
      CHUNKWISE_RETURN_IF_ERROR(encoder_->Launch(
          slot.tiles.as<std::uint8_t>(), static_cast<std::uint32_t>(slot.epochs * tiles_per_epoch_),
          slot.encoded.as<std::uint8_t>(), slot.sizes.as<std::uint64_t>(), compress_.get()));
    }
    return Record(slot.end[kCompress], compress_);
  }

  // The three aggregation passes (docs/pipelines/stream-writer.md), on the
  // compression stream.
  Status AggregateTiles(Slot& slot) {
    const std::uint64_t items = slot.epochs * (positions_ + 1);
    const kernels::TileBatchView view = View(slot);
    const std::uint8_t* encoded =
        encoder_ != nullptr ? slot.encoded.as<std::uint8_t>() : slot.tiles.as<std::uint8_t>();
    const std::uint64_t stride = encoder_ != nullptr ? encoder_->output_stride() : plan_.tile_bytes;
    CHUNKWISE_RETURN_IF_ERROR(Record(slot.begin[kAggregate], compress_));
    CHUNKWISE_RETURN_IF_ERROR(CheckCuda(
        cudaMemsetAsync(slot.permuted.as<void>(), 0, 8 * items, compress_.get()), "memset"));
    CHUNKWISE_RETURN_IF_ERROR(CheckCuda(
        cudaMemsetAsync(slot.present.as<void>(), 0, slot.epochs * positions_, compress_.get()),
        "memset"));
    CHUNKWISE_RETURN_IF_ERROR(
        CheckCuda(kernels::LaunchPermuteSizes(view, slot.permuted.as<std::uint64_t>(),
                                              slot.present.as<std::uint8_t>(), compress_.get()),
                  "permute launch"));
    CHUNKWISE_RETURN_IF_ERROR(CheckCuda(
        kernels::LaunchExclusiveScan(scan_scratch_.as<void>(), scan_scratch_.bytes(),
                                     slot.permuted.as<std::uint64_t>(),
                                     slot.offsets.as<std::uint64_t>(), items, compress_.get()),
        "scan launch"));
    CHUNKWISE_RETURN_IF_ERROR(
        CheckCuda(kernels::LaunchGather(view, encoded, stride, slot.offsets.as<std::uint64_t>(),
                                        slot.aggregated.as<std::uint8_t>(), compress_.get()),
                  "gather launch"));
    return Record(slot.end[kAggregate], compress_);
  }

  // D2H, phase one: the offsets and flags, which say how many bytes follow.
  // Queued when the batch is completed, not when it is submitted: the D2H
  // stream runs in order, so an index copy queued for batch n+1 would hold
  // batch n's data copy until n+1 had compressed.
  Status CopyIndexOut(Slot& slot) {
    const std::uint64_t items = slot.epochs * (positions_ + 1);
    CHUNKWISE_RETURN_IF_ERROR(Wait(d2h_, slot.end[kAggregate]));
    CHUNKWISE_RETURN_IF_ERROR(Record(slot.begin[kD2H], d2h_));
    CHUNKWISE_RETURN_IF_ERROR(
        CheckCuda(cudaMemcpyAsync(slot.host_offsets, slot.offsets.as<void>(), 8 * items,
                                  cudaMemcpyDeviceToHost, d2h_.get()),
                  "copy offsets to host"));
    CHUNKWISE_RETURN_IF_ERROR(
        CheckCuda(cudaMemcpyAsync(slot.host_flags, slot.present.as<void>(),
                                  slot.epochs * positions_, cudaMemcpyDeviceToHost, d2h_.get()),
                  "copy flags to host"));
    return Record(slot.index_copied, d2h_);
  }

  // D2H, phase two: exactly the compressed bytes, into page-locked memory
  // that travels with `out` to the emit thread.
  Status CopyDataOut(Slot& slot, std::uint64_t total, AggregatedBatch& out) {
    if (out.backend_memory == nullptr || out.backend_memory_bytes < buffers_.aggregated) {
      CHUNKWISE_ASSIGN_OR_RETURN(out.backend_memory, cuda::AllocatePinned(buffers_.aggregated));
      out.backend_memory_bytes = buffers_.aggregated;
    }
    if (total > out.backend_memory_bytes) {
      return Status::Internal("CUDA backend: a batch compressed past its bound");
    }
    CHUNKWISE_RETURN_IF_ERROR(Record(slot.data_copy_begin, d2h_));
    CHUNKWISE_RETURN_IF_ERROR(
        CheckCuda(cudaMemcpyAsync(out.backend_memory.get(), slot.aggregated.as<void>(), total,
                                  cudaMemcpyDeviceToHost, d2h_.get()),
                  "copy shards to host"));
    CHUNKWISE_RETURN_IF_ERROR(Record(slot.end[kD2H], d2h_));
    return CheckCuda(cudaEventSynchronize(slot.end[kD2H].get()), "copy shards to host");
  }

  Status AccountStages(Slot& slot) {
    for (std::size_t s = 0; s < kStageCount; ++s) {
      const cuda::CudaEvent& last = s == kD2H ? slot.index_copied : slot.end[s];
      float ms = 0;
      CHUNKWISE_RETURN_IF_ERROR(
          CheckCuda(cudaEventElapsedTime(&ms, slot.begin[s].get(), last.get()), "event time"));
      seconds_[s] += ms / 1e3;
    }
    float ms = 0;
    CHUNKWISE_RETURN_IF_ERROR(CheckCuda(
        cudaEventElapsedTime(&ms, slot.data_copy_begin.get(), slot.end[kD2H].get()), "event time"));
    seconds_[kD2H] += ms / 1e3;
    return Status::Ok();
  }

  static Status Record(const cuda::CudaEvent& event, const cuda::CudaStream& stream) {
    return CheckCuda(cudaEventRecord(event.get(), stream.get()), "event record");
  }
  static Status Wait(const cuda::CudaStream& stream, const cuda::CudaEvent& event) {
    return CheckCuda(cudaStreamWaitEvent(stream.get(), event.get(), 0), "stream wait");
  }

  const StreamPlan& plan_;
  ScatterGeometry g_;
  std::uint32_t unit_bytes_;
  std::uint64_t tiles_per_epoch_;  // M.
  std::uint64_t positions_;        // M'.
  std::uint64_t batch_tiles_;      // E·M.
  std::uint64_t index_items_;      // E·(M'+1): a full batch's offsets.
  CudaBufferSizes buffers_;
  cuda::CudaStream h2d_, compute_, compress_, d2h_;
  cuda::DeviceBuffer row_offsets_, permutation_, fill_tile_, scan_scratch_;
  std::unique_ptr<cuda::GpuBloscLz4Batch> encoder_;  // Null for codec none.
  std::array<Slot, kSlots> slots_;
  std::uint64_t submitted_ = 0;
  std::uint64_t completed_ = 0;
  std::array<double, kStageCount> seconds_{};
};

}  // namespace

Result<std::unique_ptr<StreamBackend>> MakeCudaBackend(const StreamPlan& plan,
                                                       core::ThreadPool& /*pool*/) {
  if (plan.backend != StreamBackendKind::kCuda) {
    return Status::InvalidArgument("the CUDA backend needs a plan made for it (backend cuda)");
  }
  if (std::string reason = cuda::NoDeviceReason(); !reason.empty()) {
    return Status::Unsupported("the CUDA backend: " + reason).WithField("backend");
  }
  auto backend = std::make_unique<CudaBackend>(plan);
  CHUNKWISE_RETURN_IF_ERROR(backend->Init());
  return std::unique_ptr<StreamBackend>(std::move(backend));
}

Status ProbeCudaBackend() {
  StreamConfig config;
  config.dimensions = {{0, 8, 2, ""}, {256, 64, 2, ""}, {256, 64, 2, ""}};
  config.data_type = core::DataType(core::DataTypeId::kUInt16);
  config.codec = "blosc:lz4det";
  config.backend = StreamBackendKind::kCuda;
  CHUNKWISE_ASSIGN_OR_RETURN(StreamPlan plan, PlanStream(config));
  core::ThreadPool pool(1);
  return MakeCudaBackend(plan, pool).status();
}

}  // namespace chunkwise::pipelines::stream
