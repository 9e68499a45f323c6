// FrameStreamWriter: frames appended in order become a sharded zarr v3 array
// at a URL, through the stream writer (pipelines/stream/stream_writer.h).
//
// The facade adds what a caller would otherwise repeat: the store by URL
// (created, a killed writer's temporaries removed), the backend chosen for
// this build and GPU, the context's progress, and cancellation checked on
// every Append.
#ifndef CHUNKWISE_FACADE_FRAME_STREAM_H_
#define CHUNKWISE_FACADE_FRAME_STREAM_H_

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "chunkwise/core/downsample.h"
#include "chunkwise/facade/call_options.h"
#include "chunkwise/facade/context.h"
#include "chunkwise/facade/options.h"
#include "chunkwise/pipelines/stream/backend_choice.h"
#include "chunkwise/pipelines/stream/stream_writer.h"

namespace chunkwise {

using StreamConfig = pipelines::stream::StreamConfig;
using StreamDimension = pipelines::stream::StreamDimension;
using StreamBackendRequest = pipelines::stream::BackendRequest;
using StreamMultiscale = pipelines::stream::MultiscaleConfig;
using StreamStats = pipelines::stream::StreamStats;

struct FrameStreamOptions {
  bool overwrite = false;  // Replace an array already at the URL.
  StreamBackendRequest backend = StreamBackendRequest::kCpu;
};

// "cpu", "cuda" or "auto"; InvalidArgument naming the text otherwise.
Result<StreamBackendRequest> ParseStreamBackend(std::string_view text);
// How a level of a multiscale stream is made from the one above: "mean",
// "mode", "min" or "max"; InvalidArgument otherwise.
Result<core::DownsampleMethod> ParseDownsample(std::string_view text);
// A multiscale stream as a caller names it (`zarr stream --levels N
// --downsample M ...`, StreamWriter(levels=N, downsample=M, ...)), before it
// is checked: both doors give these to MakeStreamMultiscale.
struct StreamLevelsOptions {
  std::size_t levels = 0;           // Coarser levels; 0: one array, no group.
  std::string downsample = "mean";  // ParseDownsample's names.
  core::Shape downsample_factors;   // The window per dimension; empty: the default.
  std::vector<double> voxel_size;   // Level 0's, along the space axes; empty: 1s.
  std::string unit;                 // The space axes' unit; empty: none.
};
// StreamConfig::multiscale for `options`: none when levels is 0.
// InvalidArgument naming the field (downsample_method) for an unknown
// method, or (levels) for factors, a voxel size or a unit given without
// levels. The factors, voxel size and unit are checked against the array
// when the stream is planned.
Result<std::optional<StreamMultiscale>> MakeStreamMultiscale(const StreamLevelsOptions& options);
// StreamConfig::codec for the stream's `codecs` (a shorthand) with `checksum`
// added (options.h). Absent: none, not crc32c as for the arrays `zarr create`
// and the imports make: the CUDA backend compresses on the GPU only codecs it
// writes byte-identical to the CPU's (none, blosc:lz4det), and a crc32c
// default would send every stream to the CPU. InvalidArgument (field
// "checksum") for a zstd checksum without zstd.
Result<std::string> StreamCodecsWithChecksum(std::string_view codecs,
                                             std::optional<ChunkChecksum> checksum);
// The layout `config` plans and the memory it needs, as text for a person
// (`zarr stream --dry-run`): nothing is created. The planner's errors.
Result<std::string> DescribeFrameStream(const StreamConfig& config);

// `config` with its backend resolved for this build and machine, and the
// reason in *note when the choice differs from the request (may be null).
// InvalidArgument when kCuda is asked for and no GPU can be used.
Result<StreamConfig> ChooseBackend(StreamConfig config, StreamBackendRequest request,
                                   std::string* note);

class FrameStreamWriter {
 public:
  // Plans `config` (config.threads 0 takes the call's threads, else the
  // context's), creates the array at `url` and starts the pipeline. The
  // writer's progress and cancellation are the call's (else the context's)
  // for its whole life: the context and what `call` points to must outlive it.
  static Result<std::unique_ptr<FrameStreamWriter>> Create(const Context& context,
                                                           std::string_view url,
                                                           StreamConfig config,
                                                           const FrameStreamOptions& options = {},
                                                           const CallOptions& call = {});
  // As Create, into `store` (opened by the caller) at its root; `url` names
  // it in messages.
  static Result<std::unique_ptr<FrameStreamWriter>> Create(
      const Context& context, std::shared_ptr<store::Store> store, std::string_view url,
      StreamConfig config, const FrameStreamOptions& options = {}, const CallOptions& call = {});
  ~FrameStreamWriter();

  // The next bytes of the array, split anywhere. The call's cancellation
  // is checked before each piece of about a frame: Cancelled then, with the
  // bytes before taken and the rest not (the writer is then to be dropped:
  // finished shards stay, open ones are discarded, and no array is published
  // at the URL). The writer's errors otherwise.
  Status Append(ByteView bytes);
  // Waits until every whole batch appended so far is written (stream_writer.h's
  // Flush); publishes nothing.
  Status Flush();
  // Finishes every shard, then publishes zarr.json (stream_writer.h's Close):
  // until then no reader sees an array at the URL.
  Status Close();

  const pipelines::stream::StreamPlan& plan() const { return writer_->plan(); }
  pipelines::stream::StreamStats stats() const { return writer_->stats(); }
  // Why the backend differs from the one asked for; empty when it does not.
  const std::string& backend_note() const { return backend_note_; }

 private:
  FrameStreamWriter() = default;

  const Context* context_ = nullptr;
  CallOptions call_;  // Borrowed pointers, the creator's to keep alive.
  std::string url_;
  std::string backend_note_;
  // The store written, whose cached chunks (the context's cache) Create and
  // Close drop: the writer writes shards without an array in between.
  std::shared_ptr<store::Store> store_;
  std::unique_ptr<core::ProgressReporter> progress_;  // Outlives writer_, which counts on it.
  std::unique_ptr<pipelines::stream::StreamWriter> writer_;
};

}  // namespace chunkwise

#endif  // CHUNKWISE_FACADE_FRAME_STREAM_H_
