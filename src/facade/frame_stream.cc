#include "chunkwise/facade/frame_stream.h"

#include <algorithm>

#include "chunkwise/core/progress.h"
#include "chunkwise/facade/cuda_support.h"
#include "facade/cuda_stream_backend.h"
#include "facade/zarr_array_access.h"
#include "formats/zarr/array_cache.h"
#include "pipelines/stream/backend_choice.h"
#include "pipelines/stream/stream_writer.h"

namespace chunkwise {

namespace stream = pipelines::stream;

struct FrameStreamWriter::State {
  const Context* context = nullptr;
  CallOptions call;  // Borrowed pointers, the creator's to keep alive.
  std::string url;
  std::string backend_note;
  // The store written, whose cached chunks (the context's cache) Create and
  // Close drop: the writer writes shards without an array in between.
  std::shared_ptr<store::Store> store;
  std::unique_ptr<core::ProgressReporter> progress;  // Outlives writer, which counts on it.
  std::unique_ptr<stream::StreamWriter> writer;
};

namespace {

// The facade's enums list the pipeline's enumerators in the pipeline's order.
static_assert(static_cast<int>(stream::StreamBackendKind::kCuda) ==
              static_cast<int>(StreamBackendKind::kCuda));
static_assert(static_cast<int>(stream::BackendRequest::kAuto) ==
              static_cast<int>(StreamBackendRequest::kAuto));

stream::StreamConfig ToPipeline(const StreamConfig& config) {
  stream::StreamConfig to;
  to.dimensions.reserve(config.dimensions.size());
  for (const StreamDimension& d : config.dimensions) {
    to.dimensions.push_back({d.size, d.tile_size, d.tiles_per_shard, d.name});
  }
  to.data_type = config.data_type;
  to.codec = config.codec;
  to.index_location = ToFormat(config.index_location);
  to.fill_value = config.fill_value;
  to.threads = config.threads;
  to.epochs_per_batch = config.epochs_per_batch;
  to.max_memory = config.max_memory;
  to.backend = static_cast<stream::StreamBackendKind>(config.backend);
  if (config.multiscale.has_value()) {
    const StreamMultiscale& m = *config.multiscale;
    to.multiscale = stream::MultiscaleConfig{.levels = m.levels,
                                             .method = m.method,
                                             .factors = m.factors,
                                             .voxel_size = m.voxel_size,
                                             .unit = m.unit,
                                             .name = m.name};
  }
  return to;
}

StreamMemoryEstimate FromPipeline(const stream::MemoryEstimate& memory) {
  return {.staging = memory.staging,
          .compressed = memory.compressed,
          .aggregated = memory.aggregated,
          .shard_indexes = memory.shard_indexes,
          .pinned = memory.pinned,
          .device = memory.device,
          .level_slabs = memory.level_slabs,
          .levels = memory.levels};
}

Result<StreamConfig> ChooseBackendFor(StreamConfig config, StreamBackendRequest request,
                                      std::string_view no_gpu_reason, std::string* note) {
  CHUNKWISE_ASSIGN_OR_RETURN(
      const stream::BackendChoice choice,
      stream::ChooseStreamBackend(static_cast<stream::BackendRequest>(request), ToPipeline(config),
                                  no_gpu_reason));
  config.backend = static_cast<StreamBackendKind>(choice.kind);
  if (note != nullptr) *note = choice.note;
  return config;
}

// Drops what the context's cache holds of the arrays under `store`'s root.
void DropCached(const Context& context, const std::shared_ptr<store::Store>& store) {
  formats::zarr::ArrayCache(context.chunk_cache(), store, "").InvalidatePrefix("");
}

}  // namespace

Result<StreamBackendRequest> ParseStreamBackend(std::string_view text) {
  CHUNKWISE_ASSIGN_OR_RETURN(const stream::BackendRequest request,
                             stream::ParseBackendRequest(text));
  return static_cast<StreamBackendRequest>(request);
}

Result<core::DownsampleMethod> ParseDownsample(std::string_view text) {
  return core::ParseDownsampleMethod(text);
}

Result<std::string> StreamCodecsWithChecksum(std::string_view codecs,
                                             std::optional<ChunkChecksum> checksum) {
  return CodecsWithChunkChecksum(codecs, checksum.value_or(ChunkChecksum::kNone), 3);
}

Result<std::optional<StreamMultiscale>> MakeStreamMultiscale(const StreamLevelsOptions& options) {
  if (options.levels == 0) {
    if (!options.downsample_factors.empty() || !options.voxel_size.empty() ||
        !options.unit.empty()) {
      return Status::InvalidArgument(
                 "downsample factors, a voxel size and a unit describe coarser levels, and "
                 "none was asked for (levels is 0)")
          .WithField("levels");
    }
    return std::optional<StreamMultiscale>();
  }
  StreamMultiscale multiscale;
  multiscale.levels = options.levels;
  CHUNKWISE_ASSIGN_OR_RETURN(multiscale.method, ParseDownsample(options.downsample));
  multiscale.factors = options.downsample_factors;
  multiscale.voxel_size = options.voxel_size;
  multiscale.unit = options.unit;
  return multiscale;
}

Result<std::string> DescribeFrameStream(const StreamConfig& config) {
  CHUNKWISE_ASSIGN_OR_RETURN(const stream::StreamPlan plan, stream::PlanStream(ToPipeline(config)));
  return stream::DescribePlan(plan);
}

Result<StreamMemoryEstimate> EstimateFrameStreamMemory(const StreamConfig& config) {
  CHUNKWISE_ASSIGN_OR_RETURN(const stream::MemoryEstimate memory,
                             stream::EstimateMemory(ToPipeline(config)));
  return FromPipeline(memory);
}

Result<StreamConfig> ChooseBackend(StreamConfig config, StreamBackendRequest request,
                                   std::string* note) {
  return ChooseBackendFor(std::move(config), request, NoGpuReason(), note);
}

Result<StreamConfig> ChooseBackendWithoutGpu(StreamConfig config, StreamBackendRequest request,
                                             std::string_view no_gpu_reason, std::string* note) {
  return ChooseBackendFor(std::move(config), request, no_gpu_reason, note);
}

FrameStreamWriter::FrameStreamWriter() : state_(std::make_unique<State>()) {}

Result<std::unique_ptr<FrameStreamWriter>> FrameStreamWriter::Create(
    const Context& context, std::string_view url, StreamConfig config,
    const FrameStreamOptions& options, const CallOptions& call) {
  CHUNKWISE_ASSIGN_OR_RETURN(std::shared_ptr<store::Store> store,
                             OpenStore(context, url, context.store_options(true)));
  return Create(context, std::move(store), url, std::move(config), options, call);
}

Result<std::unique_ptr<FrameStreamWriter>> FrameStreamWriter::Create(
    const Context& context, std::shared_ptr<store::Store> store, std::string_view url,
    StreamConfig config, const FrameStreamOptions& options, const CallOptions& call) {
  std::unique_ptr<FrameStreamWriter> writer(new FrameStreamWriter());
  State& state = *writer->state_;
  state.context = &context;
  state.call = call;
  state.url = std::string(url);
  state.store = store;
  if (config.threads == 0) config.threads = call.threads != 0 ? call.threads : context.threads();
  CHUNKWISE_ASSIGN_OR_RETURN(
      config, ChooseBackend(std::move(config), options.backend, &state.backend_note));
  const stream::StreamConfig pipeline_config = ToPipeline(config);
  CHUNKWISE_ASSIGN_OR_RETURN(const stream::StreamPlan plan, stream::PlanStream(pipeline_config));
  const std::uint64_t total =
      plan.layout.unbounded()
          ? 0
          : plan.frame_bytes * static_cast<std::uint64_t>(plan.layout.dims()[0].size);
  state.progress = context.StartProgress(call, "zarr stream", total, "B");
  stream::StreamWriterOptions writer_options{options.overwrite, nullptr, state.progress.get(),
                                             CudaStreamBackendFactory()};
  Result<std::unique_ptr<stream::StreamWriter>> created =
      stream::StreamWriter::Create(pipeline_config, std::move(store), "", writer_options);
  if (!created.ok()) return created.status().WithContext(state.url);
  state.writer = std::move(*created);
  DropCached(context, state.store);
  return writer;
}

FrameStreamWriter::~FrameStreamWriter() = default;

Status FrameStreamWriter::Append(ByteView bytes) {
  // Pieces of whole frames, at least kMinPieceBytes, so that a cancellation
  // is seen within about a frame's work whatever the caller hands over.
  constexpr std::size_t kMinPieceBytes = std::size_t{4} << 20;
  State& state = *state_;
  const std::size_t frame = std::max<std::size_t>(state.writer->plan().frame_bytes, 1);
  const std::size_t piece = std::max<std::size_t>(kMinPieceBytes / frame, 1) * frame;
  do {
    CHUNKWISE_RETURN_IF_ERROR(
        state.context->CheckCancelled(state.call, "streaming into " + state.url));
    const std::size_t n = std::min(piece, bytes.size());
    CHUNKWISE_RETURN_IF_ERROR(state.writer->Append(bytes.subspan(0, n)));
    bytes = bytes.subspan(n);
  } while (!bytes.empty());
  return Status::Ok();
}

Status FrameStreamWriter::Flush() {
  State& state = *state_;
  CHUNKWISE_RETURN_IF_ERROR(
      state.context->CheckCancelled(state.call, "streaming into " + state.url));
  return state.writer->Flush();
}

Status FrameStreamWriter::Close() {
  State& state = *state_;
  CHUNKWISE_RETURN_IF_ERROR(
      state.context->CheckCancelled(state.call, "streaming into " + state.url));
  const Status closed = state.writer->Close();
  DropCached(*state.context, state.store);
  CHUNKWISE_RETURN_IF_ERROR(closed);
  state.progress->Finish();
  return Status::Ok();
}

std::size_t FrameStreamWriter::frame_bytes() const { return state_->writer->plan().frame_bytes; }

StreamMemoryEstimate FrameStreamWriter::memory() const {
  return FromPipeline(state_->writer->plan().memory);
}

std::string FrameStreamWriter::DescribePlan() const {
  return stream::DescribePlan(state_->writer->plan());
}

StreamStats FrameStreamWriter::stats() const {
  stream::StreamStats stats = state_->writer->stats();
  StreamStats to{.bytes_in = stats.bytes_in,
                 .frames = stats.frames,
                 .bytes_out = stats.bytes_out,
                 .shards = stats.shards,
                 .seconds = stats.seconds,
                 .backend = std::move(stats.backend),
                 .stages = {},
                 .level_frames = std::move(stats.level_frames)};
  to.stages.reserve(stats.stages.size());
  for (stream::StageTime& stage : stats.stages) {
    to.stages.push_back({std::move(stage.name), stage.seconds});
  }
  return to;
}

const std::string& FrameStreamWriter::backend_note() const { return state_->backend_note; }

}  // namespace chunkwise
