#include "chunkwise/facade/frame_stream.h"

#include "chunkwise/facade/cuda_support.h"

namespace chunkwise {

namespace stream = pipelines::stream;

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
    const FrameStreamOptions& options) {
  std::unique_ptr<FrameStreamWriter> writer(new FrameStreamWriter());
  writer->context_ = &context;
  writer->url_ = std::string(url);
  if (config.threads == 0) config.threads = context.threads();
  CHUNKWISE_ASSIGN_OR_RETURN(
      config, ChooseBackend(std::move(config), options.backend, &writer->backend_note_));
  CHUNKWISE_ASSIGN_OR_RETURN(const stream::StreamPlan plan, stream::PlanStream(config));
  const std::uint64_t total =
      plan.layout.unbounded()
          ? 0
          : plan.frame_bytes * static_cast<std::uint64_t>(plan.layout.dims()[0].size);
  CHUNKWISE_ASSIGN_OR_RETURN(std::shared_ptr<store::Store> store,
                             OpenStore(context, url, context.store_options(true)));
  writer->progress_ = context.StartProgress("zarr stream", total, "B");
  stream::StreamWriterOptions writer_options{options.overwrite, nullptr, writer->progress_.get(),
                                             CudaStreamBackendFactory()};
  Result<std::unique_ptr<stream::StreamWriter>> created =
      stream::StreamWriter::Create(config, std::move(store), "", writer_options);
  if (!created.ok()) return created.status().WithContext(writer->url_);
  writer->writer_ = std::move(*created);
  return writer;
}

FrameStreamWriter::~FrameStreamWriter() = default;

Status FrameStreamWriter::Append(ByteView bytes) {
  CHUNKWISE_RETURN_IF_ERROR(context_->CheckCancelled("streaming into " + url_));
  return writer_->Append(bytes);
}

Status FrameStreamWriter::Close() {
  CHUNKWISE_RETURN_IF_ERROR(context_->CheckCancelled("streaming into " + url_));
  CHUNKWISE_RETURN_IF_ERROR(writer_->Close());
  progress_->Finish();
  return Status::Ok();
}

}  // namespace chunkwise
