#include "pipelines/stream/stream_writer.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <mutex>
#include <thread>

#include "chunkwise/core/thread_pool.h"
#include "core/bounded_queue.h"
#include "formats/zarr/array.h"
#include "formats/zarr/array_metadata.h"
#include "pipelines/stream/pyramid_accumulator.h"
#include "pipelines/stream/pyramid_plan.h"
#include "pipelines/stream/shard_accumulator.h"
#include "pipelines/stream/stream_backend.h"

namespace chunkwise::pipelines::stream {
namespace {

using Clock = std::chrono::steady_clock;

// How long a backend holding a batch waits for the next before completing it.
constexpr auto kNextBatchWait = std::chrono::milliseconds(20);
// Appends shorter than two of these are staged by the caller alone.
constexpr std::size_t kStagingPieceBytes = std::size_t{1} << 20;

formats::zarr::ArrayOptions ArrayOptionsOf(const StreamPlan& plan,
                                           std::shared_ptr<core::ThreadPool> pool) {
  formats::zarr::ArrayOptions options;
  options.pool = std::move(pool);
  options.codec_build = plan.codec_build;
  return options;
}

std::string Gigabytes(std::uint64_t bytes) {
  char text[32];
  std::snprintf(text, sizeof(text), "%.2f GB", static_cast<double>(bytes) / 1e9);
  return text;
}

}  // namespace

class StreamWriter::Pipeline {
 public:
  Pipeline(StreamPlan plan, std::shared_ptr<store::Store> store, std::string prefix,
           StreamWriterOptions options, std::shared_ptr<core::ThreadPool> pool)
      : plan_(std::move(plan)),
        store_(std::move(store)),
        prefix_(std::move(prefix)),
        options_(std::move(options)),
        pool_(std::move(pool)),
        free_batches_(kStreamBatchesPerStage),
        full_batches_(kStreamBatchesPerStage),
        free_aggregated_(kStreamBatchesPerStage),
        ready_aggregated_(kStreamBatchesPerStage),
        started_(Clock::now()) {}

  ~Pipeline() {
    Fail(Status::Internal("the stream writer was destroyed before Close"));
    Join();
  }

  Status Start(formats::zarr::IndexLocation location) {
    CHUNKWISE_ASSIGN_OR_RETURN(backend_, MakeBackend());
    sink_ = options_.sink;
    if (sink_ == nullptr) {
      own_sink_ = std::make_unique<StoreShardSink>(
          store_, prefix_, plan_.metadata.chunk_key_encoding, location,
          formats::zarr::ShardIndex::EncodedSize(
              static_cast<std::size_t>(plan_.layout.tiles_per_shard_total())));
      sink_ = own_sink_.get();
    }
    // Shards are written in parallel on the pool: idle under the CUDA backend,
    // shared with compression under the CPU one.
    accumulator_ = std::make_unique<ShardAccumulator>(plan_, location, *sink_, pool_.get());
    for (std::size_t i = 0; i < kStreamBatchesPerStage; ++i) {
      CHUNKWISE_ASSIGN_OR_RETURN(std::unique_ptr<StagingBatch> batch, backend_->NewBatch());
      free_batches_.Push(std::move(batch));
    }
    const std::size_t outputs =
        std::clamp<std::size_t>(backend_->output_batches(), 1, kStreamBatchesPerStage);
    for (std::size_t i = 0; i < outputs; ++i) {
      free_aggregated_.Push(std::make_unique<AggregatedBatch>());
    }
    CHUNKWISE_ASSIGN_OR_RETURN(compress_thread_,
                               core::StartThread([this] { CompressLoop(); }, "the stream writer"));
    CHUNKWISE_ASSIGN_OR_RETURN(emit_thread_,
                               core::StartThread([this] { EmitLoop(); }, "the stream writer"));
    return Status::Ok();
  }

  Status Append(ByteView bytes) {
    CHUNKWISE_RETURN_IF_ERROR(CheckOpen());
    const core::Index size0 = plan_.layout.dims()[0].size;
    if (size0 != 0 &&
        bytes_total_ + bytes.size() > static_cast<std::uint64_t>(size0) * plan_.frame_bytes) {
      return Status::InvalidArgument("the input is longer than the array: dimension 0 holds " +
                                     std::to_string(size0) + " frames of " +
                                     std::to_string(plan_.frame_bytes) + " bytes");
    }
    if (options_.progress != nullptr) options_.progress->Add(bytes.size());
    while (!bytes.empty()) {
      if (current_ == nullptr) CHUNKWISE_RETURN_IF_ERROR(TakeBatch());
      const std::size_t n = std::min(bytes.size(), current_->capacity() - bytes_in_batch_);
      Stage(bytes_in_batch_, bytes.first(n));
      bytes = bytes.subspan(n);
      bytes_in_batch_ += n;
      bytes_total_ += n;
      if (bytes_in_batch_ == current_->capacity()) {
        CHUNKWISE_RETURN_IF_ERROR(SubmitBatch(plan_.epochs_per_batch));
      }
    }
    return Status::Ok();
  }

  Status Flush() {
    CHUNKWISE_RETURN_IF_ERROR(CheckOpen());
    return WaitEmitted();
  }

  // Writes every shard, the last padded with the fill value; publishes
  // nothing (Publish does). OK or the pipeline's first error; what the input
  // left after its last whole frame is reported by trailing().
  Status Finish() {
    CHUNKWISE_RETURN_IF_ERROR(CheckOpen());
    closed_ = true;
    trailing_ = TrailingInputStatus();
    CHUNKWISE_RETURN_IF_ERROR(SubmitLastBatch(AppendedFrames()));
    full_batches_.Close();
    Join();
    CHUNKWISE_RETURN_IF_ERROR(FirstError());
    seconds_ = std::chrono::duration<double>(Clock::now() - started_).count();
    stages_ = backend_->stage_times();
    return Status::Ok();
  }

  // Writes the array's metadata once Finish has succeeded, through the zarr
  // layer's unpublished-array mechanism (Array::CreateUnpublished at Start).
  // Dimension 0's extent is known only now, so the array is joined with its
  // final shape and published: zarr.json appears, then the marker goes.
  Status Publish() {
    formats::zarr::ArrayMetadata metadata = plan_.metadata;
    metadata.shape[0] = AppendedFrames();
    CHUNKWISE_ASSIGN_OR_RETURN(formats::zarr::Array array, formats::zarr::Array::JoinUnpublished(
                                                               store_, prefix_, std::move(metadata),
                                                               ArrayOptionsOf(plan_, pool_)));
    return array.Publish();
  }

  const Status& trailing() const { return trailing_; }

  const StreamPlan& plan() const { return plan_; }

  StreamStats stats() const {
    StreamStats stats;
    stats.frames = AppendedFrames();
    stats.bytes_in = static_cast<std::uint64_t>(stats.frames) * plan_.frame_bytes;
    stats.bytes_out = bytes_out_.load();
    stats.shards = shards_out_.load();
    stats.seconds =
        seconds_ > 0 ? seconds_ : std::chrono::duration<double>(Clock::now() - started_).count();
    stats.backend = std::string(backend_->name());
    stats.stages = stages_;
    return stats;
  }

 private:
  Result<std::unique_ptr<StreamBackend>> MakeBackend() {
    if (plan_.backend == StreamBackendKind::kCpu) return MakeCpuBackend(plan_, *pool_);
    if (!options_.cuda_backend) {
      return Status::Unsupported(
          "the CUDA backend was asked for, but this program was built without it "
          "(nvcc was not found when it was built)");
    }
    return options_.cuda_backend(plan_, *pool_);
  }

  Status CheckOpen() {
    if (closed_) return Status::InvalidArgument("the stream writer is already closed");
    return FirstError();
  }

  Status FirstError() {
    std::lock_guard lock(mutex_);
    return error_;
  }

  // Records the first error and wakes every stage so that they stop.
  void Fail(Status status) {
    {
      std::lock_guard lock(mutex_);
      if (error_.ok()) error_ = std::move(status);
    }
    emitted_changed_.notify_all();
    free_batches_.Close();
    full_batches_.Close();
    free_aggregated_.Close();
    ready_aggregated_.Close();
  }

  void Join() {
    if (compress_thread_.joinable()) compress_thread_.join();
    if (emit_thread_.joinable()) emit_thread_.join();
  }

  core::Index AppendedFrames() const {
    return static_cast<core::Index>(bytes_total_ / plan_.frame_bytes);
  }

  core::Index DurableFrames() const {
    const core::Index frames = finished_epochs_.load() * plan_.layout.tile_shape()[0];
    return std::min(frames, AppendedFrames());
  }

  // Copies `bytes` into the current batch from `offset` on, split over the
  // pool when large: one thread's copy would otherwise bound a fast backend
  // (under the CUDA backend the pool is idle). Under the CPU backend the
  // pool is compressing the previous batch; the caller then stages what no
  // worker takes, so this is never slower than staging alone.
  void Stage(std::size_t offset, ByteView bytes) {
    const std::size_t pieces =
        std::min(pool_->num_threads() + 1, bytes.size() / kStagingPieceBytes);
    if (pieces < 2) return current_->Stage(offset, bytes);
    const std::size_t piece = (bytes.size() + pieces - 1) / pieces;
    StagingBatch& batch = *current_;
    (void)pool_->ParallelFor(pieces, [&](std::size_t i) {
      const std::size_t begin = i * piece;
      batch.Stage(offset + begin, bytes.subspan(begin, std::min(piece, bytes.size() - begin)));
      return Status::Ok();
    });
  }

  Status TakeBatch() {
    std::optional<std::unique_ptr<StagingBatch>> batch = free_batches_.Pop();
    if (!batch) return FirstError();
    current_ = std::move(*batch);
    current_->first_epoch = next_epoch_;
    bytes_in_batch_ = 0;
    return Status::Ok();
  }

  Status SubmitBatch(std::size_t epochs) {
    current_->epochs = epochs;
    next_epoch_ += static_cast<core::Index>(epochs);
    {
      std::lock_guard lock(mutex_);
      ++submitted_;
    }
    if (!full_batches_.Push(std::move(current_))) return FirstError();
    current_ = nullptr;
    return Status::Ok();
  }

  // Submits the batch holding the last whole frames; the frames after them,
  // up to the end of their tile epoch, hold the fill value.
  Status SubmitLastBatch(core::Index frames) {
    if (current_ == nullptr) return Status::Ok();
    const core::Index tile0 = plan_.layout.tile_shape()[0];
    const core::Index in_batch = frames - current_->first_epoch * tile0;
    if (in_batch <= 0) return Status::Ok();
    const core::Index epochs = (in_batch + tile0 - 1) / tile0;
    current_->FillFrames(in_batch, epochs * tile0);
    return SubmitBatch(static_cast<std::size_t>(epochs));
  }

  // What the input left after its last whole frame: OK when nothing.
  Status TrailingInputStatus() const {
    const std::size_t item = plan_.tile_spec.dtype.size();
    const std::uint64_t extra = bytes_total_ % plan_.frame_bytes;
    if (extra == 0) return Status::Ok();
    const std::string where = "the input ends " + std::to_string(extra) + " bytes into frame " +
                              std::to_string(AppendedFrames()) + " (of " +
                              std::to_string(plan_.frame_bytes) + " bytes)";
    if (extra % item != 0) {
      return Status::InvalidArgument(where + ", inside an element of " + std::to_string(item) +
                                     " bytes; the whole frames before it were written");
    }
    return Status::InvalidArgument(where + "; the whole frames before it were written");
  }

  // Submits each full batch to the backend and completes the oldest once
  // the backend holds as many as it works on at once, or once no new batch
  // has come for kNextBatchWait (so that Flush and a paused input do not wait
  // on a backend holding finished work, while a steady input keeps two
  // batches on a GPU).
  void CompressLoop() {
    std::size_t in_flight = 0;
    for (;;) {
      bool idle = false;
      std::optional<std::unique_ptr<StagingBatch>> batch =
          in_flight == 0 ? full_batches_.Pop() : full_batches_.PopFor(kNextBatchWait, &idle);
      if (!batch && !idle) break;  // Closed and drained.
      if (batch) {
        if (Status status = backend_->Submit(**batch); !status.ok()) return Fail(std::move(status));
        free_batches_.Push(std::move(*batch));
        ++in_flight;
      }
      if (!batch || in_flight == backend_->depth()) {
        if (!CompleteOldest()) return;
        --in_flight;
      }
    }
    for (; in_flight > 0; --in_flight) {
      if (!CompleteOldest()) return;
    }
    ready_aggregated_.Close();
  }

  // Completes the backend's oldest batch and hands it to the emit thread;
  // false once the writer has failed.
  bool CompleteOldest() {
    std::optional<std::unique_ptr<AggregatedBatch>> out = free_aggregated_.Pop();
    if (!out) return false;
    if (Status status = backend_->Complete(**out); !status.ok()) {
      Fail(std::move(status));
      return false;
    }
    return ready_aggregated_.Push(std::move(*out));
  }

  void EmitLoop() {
    for (;;) {
      std::optional<std::unique_ptr<AggregatedBatch>> batch = ready_aggregated_.Pop();
      if (!batch) break;  // Closed and drained.
      if (Status status = accumulator_->Add(**batch); !status.ok()) return Fail(std::move(status));
      Account();
      free_aggregated_.Push(std::move(*batch));
      {
        std::lock_guard lock(mutex_);
        ++emitted_;
      }
      emitted_changed_.notify_all();
    }
    if (!FirstError().ok()) return;
    if (Status status = accumulator_->FinishOpen(); !status.ok()) return Fail(std::move(status));
    Account();
  }

  // Copies the accumulator's counts where other threads read them.
  void Account() {
    finished_epochs_ = accumulator_->finished_epochs();
    bytes_out_ = accumulator_->bytes_written();
    shards_out_ = accumulator_->shards_written();
    if (options_.progress != nullptr && options_.progress->done() > 0) {
      const double ratio = bytes_out_ == 0 ? 0.0
                                           : static_cast<double>(DurableFrames()) *
                                                 static_cast<double>(plan_.frame_bytes) /
                                                 static_cast<double>(bytes_out_);
      char extra[96];
      std::snprintf(extra, sizeof(extra), "out %s, %llu shards, ratio %.2f",
                    Gigabytes(bytes_out_).c_str(), static_cast<unsigned long long>(shards_out_),
                    ratio);
      options_.progress->SetExtra(extra);
    }
  }

  Status WaitEmitted() {
    std::unique_lock lock(mutex_);
    emitted_changed_.wait(lock, [this] { return !error_.ok() || emitted_ == submitted_; });
    return error_;
  }

  StreamPlan plan_;
  std::shared_ptr<store::Store> store_;
  std::string prefix_;
  StreamWriterOptions options_;
  std::shared_ptr<core::ThreadPool> pool_;  // Shared by a multiscale stream's levels.
  std::unique_ptr<StreamBackend> backend_;
  std::unique_ptr<ShardSink> own_sink_;
  ShardSink* sink_ = nullptr;
  std::unique_ptr<ShardAccumulator> accumulator_;  // Used by the emit thread only.

  core::BoundedQueue<std::unique_ptr<StagingBatch>> free_batches_;
  core::BoundedQueue<std::unique_ptr<StagingBatch>> full_batches_;
  core::BoundedQueue<std::unique_ptr<AggregatedBatch>> free_aggregated_;
  core::BoundedQueue<std::unique_ptr<AggregatedBatch>> ready_aggregated_;
  std::thread compress_thread_;
  std::thread emit_thread_;

  // The caller's state.
  std::unique_ptr<StagingBatch> current_;
  std::size_t bytes_in_batch_ = 0;
  std::uint64_t bytes_total_ = 0;
  core::Index next_epoch_ = 0;
  bool closed_ = false;
  Status trailing_;  // Set by Finish.

  std::mutex mutex_;  // Guards error_, submitted_, emitted_.
  std::condition_variable emitted_changed_;
  Status error_;
  std::size_t submitted_ = 0;
  std::size_t emitted_ = 0;
  std::atomic<core::Index> finished_epochs_{0};
  std::atomic<std::uint64_t> bytes_out_{0};
  std::atomic<std::uint64_t> shards_out_{0};
  Clock::time_point started_;
  double seconds_ = 0;
  std::vector<StageTime> stages_;  // Copied from the backend at Close.
};

Result<std::unique_ptr<StreamWriter::Pipeline>> StreamWriter::StartArray(
    const StreamConfig& config, const StreamPlan& plan, std::shared_ptr<store::Store> store,
    std::string prefix, StreamWriterOptions options, std::shared_ptr<core::ThreadPool> pool) {
  // Checks the codecs, refuses an existing array unless overwriting (as zarr
  // convert does: only a zarr node or an unpublished array of ours is
  // replaced) and marks the prefix; no metadata until Close publishes it, so
  // a stream killed or failing half-way leaves nothing a reader opens.
  CHUNKWISE_RETURN_IF_ERROR(formats::zarr::Array::CreateUnpublished(store, prefix, plan.metadata,
                                                                    options.overwrite,
                                                                    ArrayOptionsOf(plan, pool))
                                .status());
  auto pipeline = std::make_unique<Pipeline>(plan, std::move(store), std::move(prefix),
                                             std::move(options), std::move(pool));
  CHUNKWISE_RETURN_IF_ERROR(pipeline->Start(config.index_location));
  return pipeline;
}

Result<std::unique_ptr<StreamWriter>> StreamWriter::Create(const StreamConfig& config,
                                                           std::shared_ptr<store::Store> store,
                                                           std::string prefix,
                                                           StreamWriterOptions options) {
  CHUNKWISE_ASSIGN_OR_RETURN(StreamPlan plan, PlanStream(config));
  if (!prefix.empty() && prefix.back() != '/') prefix += '/';
  auto pool = std::make_shared<core::ThreadPool>(plan.threads);
  std::unique_ptr<StreamWriter> writer(new StreamWriter(plan, pool));
  if (plan.pyramid == nullptr) {
    CHUNKWISE_ASSIGN_OR_RETURN(std::unique_ptr<Pipeline> array,
                               StartArray(config, plan, store, prefix, options, pool));
    writer->levels_.push_back(std::move(array));
    return writer;
  }
  // A multiscale group: one array per level, all compressing and writing on
  // one pool; the group's zarr.json is published after every level's.
  const PyramidPlan& pyramid = *plan.pyramid;
  CHUNKWISE_RETURN_IF_ERROR(
      formats::zarr::CreateUnpublishedGroup(*store, prefix, options.overwrite));
  for (std::size_t k = 0; k < pyramid.levels.size(); ++k) {
    StreamWriterOptions level_options = options;
    level_options.overwrite = false;
    if (k > 0) level_options.progress = nullptr;  // Progress counts the input once.
    CHUNKWISE_ASSIGN_OR_RETURN(
        std::unique_ptr<Pipeline> level,
        StartArray(pyramid.configs[k], pyramid.levels[k], store, prefix + LevelPath(k) + "/",
                   std::move(level_options), pool));
    writer->levels_.push_back(std::move(level));
  }
  core::Shape frame;
  for (std::size_t d = 1; d < plan.layout.dims().size(); ++d) {
    frame.push_back(plan.layout.dims()[d].size);
  }
  StreamWriter* self = writer.get();
  writer->store_ = store;
  writer->prefix_ = prefix;
  writer->pyramid_ = std::make_unique<PyramidAccumulator>(
      pyramid.MakeDownsampler(), frame, pyramid.levels.size() - 1,
      [self](std::size_t level, ByteView frames) { return self->levels_[level]->Append(frames); },
      pool.get());
  return writer;
}

StreamWriter::StreamWriter(StreamPlan plan, std::shared_ptr<core::ThreadPool> pool)
    : plan_(std::move(plan)), pool_(std::move(pool)) {}

StreamWriter::~StreamWriter() = default;

Status StreamWriter::Append(ByteView bytes) {
  CHUNKWISE_RETURN_IF_ERROR(levels_[0]->Append(bytes));
  return pyramid_ == nullptr ? Status::Ok() : pyramid_->Add(bytes);
}

Status StreamWriter::Flush() {
  Status status;
  for (const auto& level : levels_) {
    Status flushed = level->Flush();
    if (status.ok()) status = std::move(flushed);
  }
  return status;
}

// The coarser levels first take the windows still partial and finish; once
// every level's shards are written, each level is published, then the group.
// Level 0's trailing input comes last: it is reported after everything was
// written and published.
Status StreamWriter::Close() {
  Status status = pyramid_ == nullptr ? Status::Ok() : pyramid_->Finish();
  for (std::size_t k = levels_.size(); k-- > 1;) {
    Status finished = levels_[k]->Finish();
    if (status.ok()) status = std::move(finished);
  }
  Status finished = levels_[0]->Finish();
  if (status.ok()) status = std::move(finished);
  CHUNKWISE_RETURN_IF_ERROR(status);
  for (const auto& level : levels_) CHUNKWISE_RETURN_IF_ERROR(level->Publish());
  if (pyramid_ != nullptr) {
    CHUNKWISE_RETURN_IF_ERROR(
        formats::zarr::PublishGroup(*store_, prefix_, 3, plan_.pyramid->attributes));
  }
  return levels_[0]->trailing();
}

const StreamPlan& StreamWriter::plan() const { return plan_; }

StreamStats StreamWriter::stats() const {
  StreamStats stats = levels_[0]->stats();
  if (plan_.pyramid == nullptr) return stats;
  stats.level_frames.push_back(stats.frames);
  for (std::size_t k = 1; k < levels_.size(); ++k) {
    const StreamStats level = levels_[k]->stats();
    stats.level_frames.push_back(level.frames);
    stats.bytes_out += level.bytes_out;
    stats.shards += level.shards;
    for (const StageTime& stage : level.stages) {
      auto same = std::find_if(stats.stages.begin(), stats.stages.end(),
                               [&](const StageTime& s) { return s.name == stage.name; });
      if (same != stats.stages.end()) same->seconds += stage.seconds;
    }
  }
  return stats;
}

}  // namespace chunkwise::pipelines::stream
