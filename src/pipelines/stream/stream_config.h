// StreamConfig: what a streaming shard writer is asked to write, and
// StreamPlan: everything derived from it before the first byte arrives.
//
// Design: docs/pipelines/stream-writer.md ("Words", "Layout arithmetic"). A
// tile is a zarr inner chunk; a shard holds tiles_per_shard tiles along each
// dimension. Frames (one index of dimension 0) arrive in row-major order.
// Planning checks the configuration, builds the zarr v3 metadata the writer
// publishes, chooses how many tile epochs one compression batch holds, and
// bounds the memory a run will use.
#ifndef CHUNKWISE_PIPELINES_STREAM_STREAM_CONFIG_H_
#define CHUNKWISE_PIPELINES_STREAM_STREAM_CONFIG_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "chunkwise/core/data_type.h"
#include "chunkwise/core/downsample.h"
#include "chunkwise/core/index.h"
#include "chunkwise/core/result.h"
#include "codec/codec.h"
#include "codec/codec_chain.h"
#include "codec/codec_registry.h"
#include "core/shard_layout.h"
#include "formats/zarr/array_metadata.h"
#include "formats/zarr/shard_index.h"

namespace chunkwise::pipelines::stream {

struct StreamDimension {
  core::Index size = 0;  // Elements; 0 makes dimension 0 unbounded.
  core::Index tile_size = 0;
  core::Index tiles_per_shard = 1;
  std::string name;  // Optional zarr dimension name.
};

// Who scatters, compresses and aggregates (stream_backend.h). The CUDA
// backend exists in builds made with nvcc; backend_choice.h picks one.
enum class StreamBackendKind { kCpu, kCuda };

// The tile codec as the GPU runs it (backend_choice.h's GpuTileCodecFor).
struct GpuTileCodec {
  bool blosc_lz4 = false;   // false: codec "none", tiles stored as they are.
  int typesize = 1;         // Blosc's element size (the data type's).
  bool shuffle = true;      // Byte shuffle.
  bool store_only = false;  // clevel 0.
};

// A multiscale stream: an OME-Zarr image group whose arrays "0", "1", ...
// are the frames and `levels` coarser levels made from them while they
// stream (docs/pipelines/stream-writer.md, "Multiscale"). Each level is its own sharded
// array with the tiles and shards of level 0, clipped to its extent.
struct MultiscaleConfig {
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

struct StreamConfig {
  std::vector<StreamDimension> dimensions;  // Slowest first; dimension 0 is appended along.
  core::DataType data_type;
  std::string codec = "zstd:1";  // Bytes→bytes shorthand (codec/codec_shorthand.h).
  formats::zarr::IndexLocation index_location = formats::zarr::IndexLocation::kEnd;
  std::optional<std::string> fill_value;  // --fill text; absent means 0.
  std::size_t threads = 0;                // Compression threads; 0 = one per core.
  std::size_t epochs_per_batch = 0;       // Tile epochs compressed together; 0 = automatic.
  std::uint64_t max_memory = 0;           // Refuse plans whose estimate exceeds this; 0 = none.
  StreamBackendKind backend = StreamBackendKind::kCpu;
  // Set: an OME-Zarr multiscale group instead of one array. The dimension
  // names, when given, name its axes.
  std::optional<MultiscaleConfig> multiscale;
};

// Peak memory of a run, by buffer, in bytes. Worst case: compressed sizes are
// taken at the codec's bound (incompressible data). The CUDA backend stages
// and aggregates in page-locked host memory instead of `staging`,
// `compressed` and most of `aggregated`, and needs `device` on the GPU.
struct MemoryEstimate {
  std::uint64_t staging = 0;        // Two batches of tiles, the input scattered into them
                                    // (one filling, one compressing), and the fill tile.
  std::uint64_t compressed = 0;     // One batch of compressed tiles before aggregation.
  std::uint64_t aggregated = 0;     // Two aggregated batches (one compressing, one writing).
  std::uint64_t shard_indexes = 0;  // The active shards' indexes.
  std::uint64_t pinned = 0;         // CUDA: page-locked staging and aggregated batches.
  std::uint64_t device = 0;         // CUDA: GPU memory (not part of total()), every level's.
  // Multiscale: the partial windows the coarser levels hold and their
  // writers' memory (every field above, for levels 1..N).
  std::uint64_t level_slabs = 0;
  std::uint64_t levels = 0;
  // Host memory, page-locked included.
  std::uint64_t total() const {
    return staging + compressed + aggregated + shard_indexes + pinned + level_slabs + levels;
  }
};

struct PyramidPlan;

struct StreamPlan {
  core::ShardLayout layout;
  formats::zarr::ArrayMetadata
      metadata;                // Shape dimension 0 is what has been written (0 at start).
  codec::ChunkSpec tile_spec;  // dtype, tile shape, fill value.
  // The inner codec chain every tile is encoded with, parsed once from the metadata.
  std::shared_ptr<const codec::CodecChain> tile_codecs;
  codec::CodecBuildOptions codec_build;  // The encoders chosen (e.g. deterministic blosc-lz4).
  std::size_t tile_bytes = 0;
  std::size_t max_encoded_tile_bytes = 0;  // The inner codec chain's bound for one tile.
  std::size_t frame_bytes = 0;             // One index of dimension 0.
  std::size_t epochs_per_batch = 1;        // Divides tiles_per_shard[0].
  std::size_t threads = 1;
  StreamBackendKind backend = StreamBackendKind::kCpu;
  GpuTileCodec gpu_codec;  // For the CUDA backend.
  MemoryEstimate memory;
  // A multiscale stream's levels (pyramid_plan.h); null for one array. The
  // fields above are then level 0's, but for memory, which counts them all.
  std::shared_ptr<const PyramidPlan> pyramid;
};

// Checks `config` and derives its plan. InvalidArgument naming the option for
// a rank of 0, mismatched fields, a tile not dividing nothing, a bad codec or
// fill value; ResourceExhausted-style InvalidArgument when the estimate is over
// max_memory.
Result<StreamPlan> PlanStream(const StreamConfig& config);
// The plan of one array of `config`, its levels and memory limit left out
// (each level of a multiscale stream is one).
Result<StreamPlan> PlanStreamArray(const StreamConfig& config);

// The staging and the aggregated batches the writer keeps (one being
// filled while the next stage drains the other); the estimate counts them.
inline constexpr std::size_t kStreamBatchesPerStage = 2;

// One full batch of `plan`: its input bytes (E·tile[0] frames) and its tiles (E·M).
std::uint64_t BatchInputBytes(const StreamPlan& plan);
std::uint64_t BatchTiles(const StreamPlan& plan);

// The GPU-side buffers of the CUDA backend for `plan`, in bytes, so that the
// estimate and the allocation agree. Each of the two slots (one batch in
// flight while the next is copied in) has every per-batch buffer.
struct CudaBufferSizes {
  std::uint64_t staging = 0;     // Frame-major input of one batch.
  std::uint64_t tiles = 0;       // The batch's tile pool.
  std::uint64_t compressed = 0;  // Encoded tiles at their bound (0 for codec none).
  std::uint64_t aggregated = 0;  // Shard-major compressed tiles at their bound.
  std::uint64_t tile_sizes = 0;  // Encoded sizes and fill flags, per tile.
  std::uint64_t offsets = 0;     // Permuted sizes and their scan, per position, and flags.
  std::uint64_t shared = 0;      // Row offsets, permutation, fill tile, scan and encoder scratch.
  std::uint64_t per_slot() const {
    return staging + tiles + compressed + aggregated + tile_sizes + offsets;
  }
  std::uint64_t total() const { return 2 * per_slot() + shared; }
};
CudaBufferSizes PlanCudaBuffers(const StreamPlan& plan);

// The memory a run of `config` will use at most (memory_estimate(config)).
Result<MemoryEstimate> EstimateMemory(const StreamConfig& config);

// A human-readable account of the plan: shapes, counts, batch and memory.
std::string DescribePlan(const StreamPlan& plan);

}  // namespace chunkwise::pipelines::stream

#endif  // CHUNKWISE_PIPELINES_STREAM_STREAM_CONFIG_H_
