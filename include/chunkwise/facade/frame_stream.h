// FrameStreamWriter: frames appended in order become a sharded zarr v3 array
// at a URL, in parallel and in bounded memory, through the library's stream
// writer (docs/pipelines/stream-writer.md).
//
// The facade adds what a caller would otherwise repeat: the store by URL
// (created, a killed writer's temporaries removed), the backend chosen for
// this build and GPU, the context's progress, and cancellation checked on
// every Append.
#ifndef CHUNKWISE_FACADE_FRAME_STREAM_H_
#define CHUNKWISE_FACADE_FRAME_STREAM_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "chunkwise/core/data_type.h"
#include "chunkwise/core/downsample.h"
#include "chunkwise/core/index.h"
#include "chunkwise/facade/call_options.h"
#include "chunkwise/facade/context.h"
#include "chunkwise/facade/options.h"

namespace chunkwise {

// One dimension of the array: tiles are its inner chunks, and a shard holds
// tiles_per_shard tiles along it.
struct StreamDimension {
  core::Index size = 0;  // Elements; 0 makes dimension 0 unbounded.
  core::Index tile_size = 0;
  core::Index tiles_per_shard = 1;
  std::string name;  // Optional zarr dimension name.
};

// Who scatters, compresses and aggregates the tiles: the CPU, or the GPU in
// builds made with nvcc (ChooseBackend picks one).
enum class StreamBackendKind { kCpu, kCuda };
// The backend a caller asks for: "cpu", "cuda" or "auto".
enum class StreamBackendRequest { kCpu, kCuda, kAuto };

// A multiscale stream: an OME-Zarr image group whose arrays "0", "1", ...
// are the frames and `levels` coarser levels made from them while they
// stream (docs/pipelines/stream-writer.md, "Multiscale").
struct StreamMultiscale {
  std::size_t levels = 0;  // Levels below the full resolution.
  core::DownsampleMethod method = core::DownsampleMethod::kMean;
  // The window per dimension, e.g. {2, 2, 2}; empty: 2 along space axes, 1
  // along time and channel.
  core::Shape factors;
  // Level 0's voxel size along each space axis, slowest first; empty: 1s.
  std::vector<double> voxel_size;
  std::string unit;  // The space axes' unit (an OME-NGFF name); empty: none.
  std::string name;  // The image's name; empty: none.
};

// What a FrameStreamWriter writes.
struct StreamConfig {
  std::vector<StreamDimension> dimensions;  // Slowest first; dimension 0 is appended along.
  core::DataType data_type;
  std::string codec = "zstd:1";  // Bytes→bytes shorthand (StreamCodecsWithChecksum).
  ZarrIndexLocation index_location = ZarrIndexLocation::kEnd;
  std::optional<std::string> fill_value;  // --fill text; absent means 0.
  std::size_t threads = 0;                // Compression threads; 0 = one per core.
  std::size_t epochs_per_batch = 0;       // Tile epochs compressed together; 0 = automatic.
  std::uint64_t max_memory = 0;           // Refuse plans whose estimate exceeds this; 0 = none.
  StreamBackendKind backend = StreamBackendKind::kCpu;
  // Set: an OME-Zarr multiscale group instead of one array. The dimension
  // names, when given, name its axes.
  std::optional<StreamMultiscale> multiscale;
};

// Peak memory of a stream, by buffer, in bytes, at worst (incompressible
// data). The CUDA backend stages and aggregates in page-locked host memory
// (`pinned`) and needs `device` on the GPU.
struct StreamMemoryEstimate {
  std::uint64_t staging = 0;        // Two batches of tiles and the fill tile.
  std::uint64_t compressed = 0;     // One batch of compressed tiles before aggregation.
  std::uint64_t aggregated = 0;     // Two aggregated batches.
  std::uint64_t shard_indexes = 0;  // The active shards' indexes.
  std::uint64_t pinned = 0;         // CUDA: page-locked staging and aggregated batches.
  std::uint64_t device = 0;         // CUDA: GPU memory (not part of total()), every level's.
  // Multiscale: the partial windows the coarser levels hold and their
  // writers' memory.
  std::uint64_t level_slabs = 0;
  std::uint64_t levels = 0;
  // Host memory, page-locked included.
  std::uint64_t total() const {
    return staging + compressed + aggregated + shard_indexes + pinned + level_slabs + levels;
  }
};

// Time the backend spent in one stage of its pipeline (stages overlap).
struct StreamStageTime {
  std::string name;  // e.g. "H2D", "scatter", "compress", "aggregate", "D2H".
  double seconds = 0;
};

struct StreamStats {
  std::uint64_t bytes_in = 0;           // Input taken, whole frames.
  core::Index frames = 0;               // Frames written (shape[0] at close).
  std::uint64_t bytes_out = 0;          // Shard bytes emitted, indexes included.
  std::uint64_t shards = 0;             // Shards emitted.
  double seconds = 0;                   // From Create to Close.
  std::string backend;                  // "cpu" or "cuda".
  std::vector<StreamStageTime> stages;  // The backend's stage times, once closed.
  // A multiscale stream: frames written per level, level 0 first. bytes_out
  // and shards count every level.
  std::vector<core::Index> level_frames;
};

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
// (`zarr stream --dry-run`): nothing is created. The planner's errors:
// InvalidArgument naming the option for a rank of 0, mismatched fields, a
// bad codec or fill value, or an estimate over max_memory.
Result<std::string> DescribeFrameStream(const StreamConfig& config);
// The memory a stream of `config` will use at most; the planner's errors.
Result<StreamMemoryEstimate> EstimateFrameStreamMemory(const StreamConfig& config);

// `config` with its backend resolved for this build and machine, and the
// reason in *note when the choice differs from the request (may be null).
// InvalidArgument when kCuda is asked for and no GPU can be used; kCuda with
// a codec the GPU does not run chooses the CPU and notes it; kAuto chooses
// the GPU when there is one and it runs the codec.
Result<StreamConfig> ChooseBackend(StreamConfig config, StreamBackendRequest request,
                                   std::string* note);
// As ChooseBackend, for a door that has no GPU whatever this build has
// (the Python module): `no_gpu_reason` says why in the messages.
Result<StreamConfig> ChooseBackendWithoutGpu(StreamConfig config, StreamBackendRequest request,
                                             std::string_view no_gpu_reason, std::string* note);

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
  // Waits until every whole batch appended so far is written; publishes
  // nothing.
  Status Flush();
  // Finishes every shard, then publishes zarr.json: until then no reader
  // sees an array at the URL. InvalidArgument if the input ended inside an
  // element or a frame (the whole frames are still written and published).
  Status Close();

  // Bytes of one frame (one index of dimension 0).
  std::size_t frame_bytes() const;
  // The memory the planned layout needs at most.
  StreamMemoryEstimate memory() const;
  // The planned layout, as DescribeFrameStream gives it.
  std::string DescribePlan() const;
  StreamStats stats() const;
  // Why the backend differs from the one asked for; empty when it does not.
  const std::string& backend_note() const;

 private:
  struct State;  // The library's writer and what it borrows.
  FrameStreamWriter();

  std::unique_ptr<State> state_;
};

}  // namespace chunkwise

#endif  // CHUNKWISE_FACADE_FRAME_STREAM_H_
