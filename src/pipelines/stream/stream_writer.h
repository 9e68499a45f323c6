// StreamWriter: frames in, zarr v3 sharded array out, in parallel and in
// bounded memory (docs/pipelines/stream-writer.md).
//
// Append takes the array's elements in row-major order, split anywhere (not
// only at frames or elements). Three stages overlap, joined by bounded queues
// of recycled buffers: the caller copies input into one staging batch while
// a compression thread (with the thread pool) scatters, compresses and
// aggregates the previous one and an emit thread hands the one before that
// to the shard accumulator and its sink. The array appears whole or not at
// all: its zarr.json is written once, by Close, after every shard (the zarr
// layer's Array::CreateUnpublished and Publish). A writer destroyed, failing
// or killed before Close leaves no zarr.json, so no reader opens what it
// wrote; the keys it left carry the zarr layer's incomplete marker, so a later
// writer with overwrite replaces them. A shard still being written is a
// temporary file, never a partial shard under its key.
#ifndef CHUNKWISE_PIPELINES_STREAM_STREAM_WRITER_H_
#define CHUNKWISE_PIPELINES_STREAM_STREAM_WRITER_H_

#include <memory>
#include <string>

#include "chunkwise/core/bytes.h"
#include "chunkwise/core/progress.h"
#include "chunkwise/core/result.h"
#include "chunkwise/core/thread_pool.h"
#include "chunkwise/store/store.h"
#include "pipelines/stream/shard_sink.h"
#include "pipelines/stream/stream_backend.h"
#include "pipelines/stream/stream_config.h"

namespace chunkwise::pipelines::stream {

struct StreamWriterOptions {
  bool overwrite = false;                      // Replace an existing array at the prefix.
  ShardSink* sink = nullptr;                   // Null: shards go to the store. Not owned.
  core::ProgressReporter* progress = nullptr;  // Counts input bytes. Not owned.
  // Makes the backend for config.backend kCuda (the CUDA build's
  // MakeCudaBackend); kCpu always uses MakeCpuBackend.
  StreamBackendFactory cuda_backend;
};

struct StreamStats {
  std::uint64_t bytes_in = 0;     // Input taken, whole frames.
  core::Index frames = 0;         // Frames written (shape[0] at close).
  std::uint64_t bytes_out = 0;    // Shard bytes emitted, indexes included.
  std::uint64_t shards = 0;       // Shards emitted.
  double seconds = 0;             // From Create to Close.
  std::string backend;            // "cpu" or "cuda".
  std::vector<StageTime> stages;  // The backend's stage times, once closed.
  // A multiscale stream: frames written per level, level 0 first. bytes_out
  // and shards count every level; each stage's time is summed over them.
  std::vector<core::Index> level_frames;
};

class PyramidAccumulator;

class StreamWriter {
 public:
  // Plans `config`, creates the array under `prefix` of `store` unpublished
  // (refusing anything already there unless options.overwrite, and then
  // anything but a zarr node or an unpublished array) and starts the pipeline
  // threads. With config.multiscale, `prefix` becomes an OME-Zarr group whose
  // level arrays ("0/", "1/", ...) each grow as level 0 does, published with
  // them at Close; options.sink, when set, takes every level's shards.
  static Result<std::unique_ptr<StreamWriter>> Create(const StreamConfig& config,
                                                      std::shared_ptr<store::Store> store,
                                                      std::string prefix,
                                                      StreamWriterOptions options = {});
  // Stops the pipeline; without Close the open shards are discarded and
  // nothing is published.
  ~StreamWriter();
  StreamWriter(const StreamWriter&) = delete;
  StreamWriter& operator=(const StreamWriter&) = delete;

  // Takes the next bytes of the array. InvalidArgument once a bounded
  // dimension 0 would be exceeded; a pipeline error is returned by the next
  // call after it happens.
  Status Append(ByteView bytes);
  // Waits until every whole batch appended so far has been emitted (each
  // level's: a coarser level's frame waits for every frame of its window).
  // Publishes nothing: the array appears only at Close.
  Status Flush();
  // Pads the last tile epoch with the fill value, finishes every open shard,
  // then publishes zarr.json with shape[0] = the whole frames appended; a
  // multiscale stream's levels first reduce the frames their last, partial
  // windows hold, and the group is published after its levels. An error
  // before that publishes nothing. InvalidArgument if the input ended inside
  // an element or a frame: the whole frames are still written and published,
  // the rest is reported, never padded silently.
  Status Close();

  // Level 0's plan; its `pyramid` holds a multiscale stream's levels.
  const StreamPlan& plan() const;
  StreamStats stats() const;

 private:
  class Pipeline;  // One array.
  StreamWriter(StreamPlan plan, std::shared_ptr<core::ThreadPool> pool);
  static Result<std::unique_ptr<Pipeline>> StartArray(
      const StreamConfig& config, const StreamPlan& plan, std::shared_ptr<store::Store> store,
      std::string prefix, StreamWriterOptions options, std::shared_ptr<core::ThreadPool> pool);

  StreamPlan plan_;
  std::shared_ptr<core::ThreadPool> pool_;
  std::shared_ptr<store::Store> store_;  // A multiscale stream's, for its group.
  std::string prefix_;
  std::vector<std::unique_ptr<Pipeline>> levels_;  // Level 0 first; one without levels.
  std::unique_ptr<PyramidAccumulator> pyramid_;    // Multiscale streams only.
};

}  // namespace chunkwise::pipelines::stream

#endif  // CHUNKWISE_PIPELINES_STREAM_STREAM_WRITER_H_
