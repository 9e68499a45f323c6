// The CUDA backend's kernels, one launcher each: fill, scatter, fill-tile
// detection, and the design's aggregation (permute sizes, exclusive scan,
// gather). All are asynchronous on the given stream and return the launch's
// error. Positions and offsets follow stream_backend.h's AggregatedBatch:
// per epoch M' + 1 offsets, continuing from one epoch to the next.
#ifndef CHUNKWISE_PIPELINES_STREAM_CUDA_STREAM_KERNELS_H_
#define CHUNKWISE_PIPELINES_STREAM_CUDA_STREAM_KERNELS_H_

#include <cuda_runtime.h>

#include <cstdint>

#include "pipelines/stream/scatter_geometry.h"

namespace chunkwise::pipelines::stream::cuda_kernels {

// The tiles of one batch and where their encoded bytes are.
struct TileBatchView {
  std::uint64_t tiles;            // E·M.
  std::uint64_t tiles_per_epoch;  // M.
  std::uint64_t positions;        // M'.
  std::uint64_t tile_bytes;
  const std::uint8_t* fill_flags;    // 1 where a tile is all fill value: not stored.
  const std::uint64_t* sizes;        // Encoded sizes; null: every tile is tile_bytes (codec none).
  const std::uint32_t* permutation;  // P: pool tile i → shard-major position.
};

// Writes `pattern` (pattern_bytes long) over `out` again and again.
cudaError_t LaunchRepeat(std::uint8_t* out, std::uint64_t bytes, const std::uint8_t* pattern,
                         std::uint64_t pattern_bytes, cudaStream_t stream);

// Scatters `input_bytes` of frame-major input into the tile pool `tiles`, in
// units of `unit_bytes` (ScatterUnitBytes).
cudaError_t LaunchScatter(const std::uint8_t* input, std::uint64_t input_bytes,
                          std::uint32_t unit_bytes, const ScatterGeometry& geometry,
                          const std::uint64_t* row_offsets, std::uint8_t* tiles,
                          cudaStream_t stream);

// flags[k] = 1 when tile k (of `tile_count`) equals `fill_tile`.
cudaError_t LaunchFindFillTiles(const std::uint8_t* tiles, std::uint64_t tile_count,
                                std::uint64_t tile_bytes, const std::uint8_t* fill_tile,
                                std::uint8_t* flags, cudaStream_t stream);

// Pass 1: permuted[e·(M'+1) + P[i]] = stored size of tile e·M + i, and
// present[e·M' + P[i]] = 1 where stored. Both must be zero beforehand.
cudaError_t LaunchPermuteSizes(const TileBatchView& batch, std::uint64_t* permuted,
                               std::uint8_t* present, cudaStream_t stream);

// Pass 2: the temporary bytes LaunchExclusiveScan needs for `count` items.
cudaError_t ExclusiveScanScratchBytes(std::uint64_t count, std::size_t* bytes);
cudaError_t LaunchExclusiveScan(void* scratch, std::size_t scratch_bytes, const std::uint64_t* in,
                                std::uint64_t* out, std::uint64_t count, cudaStream_t stream);

// Pass 3: copies each stored tile k from encoded + k·encoded_stride to
// aggregated + offsets[e·(M'+1) + P[i]].
cudaError_t LaunchGather(const TileBatchView& batch, const std::uint8_t* encoded,
                         std::uint64_t encoded_stride, const std::uint64_t* offsets,
                         std::uint8_t* aggregated, cudaStream_t stream);

}  // namespace chunkwise::pipelines::stream::cuda_kernels

#endif  // CHUNKWISE_PIPELINES_STREAM_CUDA_STREAM_KERNELS_H_
