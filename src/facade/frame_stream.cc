#include "chunkwise/facade/frame_stream.h"

#include <algorithm>

#include "chunkwise/facade/cuda_support.h"
#include "formats/zarr/array_cache.h"

namespace chunkwise {

namespace stream = pipelines::stream;

namespace {

// Drops what the context's cache holds of the arrays under `store`'s root.
void DropCached(const Context& context, const std::shared_ptr<store::Store>& store) {
  formats::zarr::ArrayCache(context.chunk_cache(), store, "").InvalidatePrefix("");
}

}  // namespace

Result<StreamBackendRequest> ParseStreamBackend(std::string_view text) {
  return stream::ParseBackendRequest(text);
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
  CHUNKWISE_ASSIGN_OR_RETURN(const stream::StreamPlan plan, stream::PlanStream(config));
  return stream::DescribePlan(plan);
}

Result<StreamConfig> ChooseBackend(StreamConfig config, StreamBackendRequest request,
                                   std::string* note) {
  CHUNKWISE_ASSIGN_OR_RETURN(const stream::BackendChoice choice,
                             stream::ChooseStreamBackend(request, config, NoGpuReason()));
  config.backend = choice.kind;
  if (note != nullptr) *note = choice.note;
  return config;
}

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
  writer->context_ = &context;
  writer->call_ = call;
  writer->url_ = std::string(url);
  writer->store_ = store;
  if (config.threads == 0) config.threads = call.threads != 0 ? call.threads : context.threads();
  CHUNKWISE_ASSIGN_OR_RETURN(
      config, ChooseBackend(std::move(config), options.backend, &writer->backend_note_));
  CHUNKWISE_ASSIGN_OR_RETURN(const stream::StreamPlan plan, stream::PlanStream(config));
  const std::uint64_t total =
      plan.layout.unbounded()
          ? 0
          : plan.frame_bytes * static_cast<std::uint64_t>(plan.layout.dims()[0].size);
  writer->progress_ = context.StartProgress(call, "zarr stream", total, "B");
  stream::StreamWriterOptions writer_options{options.overwrite, nullptr, writer->progress_.get(),
                                             CudaStreamBackendFactory()};
  Result<std::unique_ptr<stream::StreamWriter>> created =
      stream::StreamWriter::Create(config, std::move(store), "", writer_options);
  if (!created.ok()) return created.status().WithContext(writer->url_);
  writer->writer_ = std::move(*created);
  DropCached(context, writer->store_);
  return writer;
}

FrameStreamWriter::~FrameStreamWriter() = default;

Status FrameStreamWriter::Append(ByteView bytes) {
  // Pieces of whole frames, at least kMinPieceBytes, so that a cancellation
  // is seen within about a frame's work whatever the caller hands over.
  constexpr std::size_t kMinPieceBytes = std::size_t{4} << 20;
  const std::size_t frame = std::max<std::size_t>(writer_->plan().frame_bytes, 1);
  const std::size_t piece = std::max<std::size_t>(kMinPieceBytes / frame, 1) * frame;
  do {
    CHUNKWISE_RETURN_IF_ERROR(context_->CheckCancelled(call_, "streaming into " + url_));
    const std::size_t n = std::min(piece, bytes.size());
    CHUNKWISE_RETURN_IF_ERROR(writer_->Append(bytes.subspan(0, n)));
    bytes = bytes.subspan(n);
  } while (!bytes.empty());
  return Status::Ok();
}

Status FrameStreamWriter::Flush() {
  CHUNKWISE_RETURN_IF_ERROR(context_->CheckCancelled(call_, "streaming into " + url_));
  return writer_->Flush();
}

Status FrameStreamWriter::Close() {
  CHUNKWISE_RETURN_IF_ERROR(context_->CheckCancelled(call_, "streaming into " + url_));
  const Status closed = writer_->Close();
  DropCached(*context_, store_);
  CHUNKWISE_RETURN_IF_ERROR(closed);
  progress_->Finish();
  return Status::Ok();
}

}  // namespace chunkwise
