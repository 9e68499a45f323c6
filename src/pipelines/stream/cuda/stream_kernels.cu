#include <cub/device/device_scan.cuh>

#include "stream_kernels.h"

namespace chunkwise::pipelines::stream::cuda_kernels {
namespace {

constexpr unsigned kThreads = 256;
// Grid-stride kernels use at most this many blocks; enough to fill any GPU.
constexpr std::uint64_t kMaxBlocks = 65535;

unsigned BlocksFor(std::uint64_t items) {
  const std::uint64_t blocks = (items + kThreads - 1) / kThreads;
  return static_cast<unsigned>(blocks < 1 ? 1 : (blocks > kMaxBlocks ? kMaxBlocks : blocks));
}

__global__ void RepeatKernel(std::uint8_t* out, std::uint64_t bytes, const std::uint8_t* pattern,
                             std::uint64_t pattern_bytes) {
  const std::uint64_t stride = std::uint64_t{gridDim.x} * blockDim.x;
  for (std::uint64_t i = blockIdx.x * blockDim.x + threadIdx.x; i < bytes; i += stride) {
    out[i] = pattern[i % pattern_bytes];
  }
}

// One unit of `Unit` bytes per step; units never straddle a tile segment.
template <typename Unit>
__global__ void ScatterKernel(const Unit* input, std::uint64_t units, ScatterGeometry g,
                              const std::uint64_t* row_offsets, std::uint8_t* tiles) {
  const std::uint64_t stride = std::uint64_t{gridDim.x} * blockDim.x;
  for (std::uint64_t u = blockIdx.x * blockDim.x + threadIdx.x; u < units; u += stride) {
    const std::uint64_t to = TilePoolOffset(g, row_offsets, u * sizeof(Unit));
    *reinterpret_cast<Unit*>(tiles + to) = input[u];
  }
}

template <typename Unit>
cudaError_t Scatter(const std::uint8_t* input, std::uint64_t input_bytes, const ScatterGeometry& g,
                    const std::uint64_t* row_offsets, std::uint8_t* tiles, cudaStream_t stream) {
  const std::uint64_t units = input_bytes / sizeof(Unit);
  ScatterKernel<Unit><<<BlocksFor(units), kThreads, 0, stream>>>(
      reinterpret_cast<const Unit*>(input), units, g, row_offsets, tiles);
  return cudaGetLastError();
}

// One block per tile; 16-byte words when the tile allows.
__global__ void FindFillTilesKernel(const std::uint8_t* tiles, std::uint64_t tile_bytes,
                                    const std::uint8_t* fill_tile, std::uint8_t* flags) {
  const std::uint8_t* tile = tiles + blockIdx.x * tile_bytes;
  bool differs = false;
  if (tile_bytes % sizeof(uint4) == 0) {
    const auto* a = reinterpret_cast<const uint4*>(tile);
    const auto* b = reinterpret_cast<const uint4*>(fill_tile);
    for (std::uint64_t i = threadIdx.x; i < tile_bytes / sizeof(uint4) && !differs;
         i += blockDim.x) {
      const uint4 x = a[i], y = b[i];
      differs = x.x != y.x || x.y != y.y || x.z != y.z || x.w != y.w;
    }
  } else {
    for (std::uint64_t i = threadIdx.x; i < tile_bytes && !differs; i += blockDim.x) {
      differs = tile[i] != fill_tile[i];
    }
  }
  const int any = __syncthreads_or(differs ? 1 : 0);
  if (threadIdx.x == 0) flags[blockIdx.x] = any ? 0 : 1;
}

__device__ std::uint64_t StoredSize(const TileBatchView& b, std::uint64_t k) {
  if (b.fill_flags[k] != 0) return 0;
  return b.sizes != nullptr ? b.sizes[k] : b.tile_bytes;
}

__global__ void PermuteSizesKernel(TileBatchView b, std::uint64_t* permuted,
                                   std::uint8_t* present) {
  const std::uint64_t stride = std::uint64_t{gridDim.x} * blockDim.x;
  for (std::uint64_t k = blockIdx.x * blockDim.x + threadIdx.x; k < b.tiles; k += stride) {
    const std::uint64_t e = k / b.tiles_per_epoch;
    const std::uint64_t j = b.permutation[k % b.tiles_per_epoch];
    const std::uint64_t size = StoredSize(b, k);
    permuted[e * (b.positions + 1) + j] = size;
    present[e * b.positions + j] = size != 0 ? 1 : 0;
  }
}

// One block per tile.
__global__ void GatherKernel(TileBatchView b, const std::uint8_t* encoded,
                             std::uint64_t encoded_stride, const std::uint64_t* offsets,
                             std::uint8_t* aggregated) {
  const std::uint64_t k = blockIdx.x;
  const std::uint64_t size = StoredSize(b, k);
  if (size == 0) return;
  const std::uint64_t e = k / b.tiles_per_epoch;
  const std::uint64_t j = b.permutation[k % b.tiles_per_epoch];
  std::uint8_t* to = aggregated + offsets[e * (b.positions + 1) + j];
  const std::uint8_t* from = encoded + k * encoded_stride;
  for (std::uint64_t i = threadIdx.x; i < size; i += blockDim.x) to[i] = from[i];
}

}  // namespace

cudaError_t LaunchRepeat(std::uint8_t* out, std::uint64_t bytes, const std::uint8_t* pattern,
                         std::uint64_t pattern_bytes, cudaStream_t stream) {
  if (bytes == 0) return cudaSuccess;
  RepeatKernel<<<BlocksFor(bytes), kThreads, 0, stream>>>(out, bytes, pattern, pattern_bytes);
  return cudaGetLastError();
}

cudaError_t LaunchScatter(const std::uint8_t* input, std::uint64_t input_bytes,
                          std::uint32_t unit_bytes, const ScatterGeometry& geometry,
                          const std::uint64_t* row_offsets, std::uint8_t* tiles,
                          cudaStream_t stream) {
  if (input_bytes == 0) return cudaSuccess;
  switch (unit_bytes) {
    case 16:
      return Scatter<uint4>(input, input_bytes, geometry, row_offsets, tiles, stream);
    case 8:
      return Scatter<std::uint64_t>(input, input_bytes, geometry, row_offsets, tiles, stream);
    case 4:
      return Scatter<std::uint32_t>(input, input_bytes, geometry, row_offsets, tiles, stream);
    case 2:
      return Scatter<std::uint16_t>(input, input_bytes, geometry, row_offsets, tiles, stream);
    default:
      return Scatter<std::uint8_t>(input, input_bytes, geometry, row_offsets, tiles, stream);
  }
}

cudaError_t LaunchFindFillTiles(const std::uint8_t* tiles, std::uint64_t tile_count,
                                std::uint64_t tile_bytes, const std::uint8_t* fill_tile,
                                std::uint8_t* flags, cudaStream_t stream) {
  if (tile_count == 0) return cudaSuccess;
  FindFillTilesKernel<<<static_cast<unsigned>(tile_count), kThreads, 0, stream>>>(tiles, tile_bytes,
                                                                                  fill_tile, flags);
  return cudaGetLastError();
}

cudaError_t LaunchPermuteSizes(const TileBatchView& batch, std::uint64_t* permuted,
                               std::uint8_t* present, cudaStream_t stream) {
  if (batch.tiles == 0) return cudaSuccess;
  PermuteSizesKernel<<<BlocksFor(batch.tiles), kThreads, 0, stream>>>(batch, permuted, present);
  return cudaGetLastError();
}

cudaError_t ExclusiveScanScratchBytes(std::uint64_t count, std::size_t* bytes) {
  return cub::DeviceScan::ExclusiveSum(nullptr, *bytes, static_cast<const std::uint64_t*>(nullptr),
                                       static_cast<std::uint64_t*>(nullptr),
                                       static_cast<std::int64_t>(count));
}

cudaError_t LaunchExclusiveScan(void* scratch, std::size_t scratch_bytes, const std::uint64_t* in,
                                std::uint64_t* out, std::uint64_t count, cudaStream_t stream) {
  return cub::DeviceScan::ExclusiveSum(scratch, scratch_bytes, in, out,
                                       static_cast<std::int64_t>(count), stream);
}

cudaError_t LaunchGather(const TileBatchView& batch, const std::uint8_t* encoded,
                         std::uint64_t encoded_stride, const std::uint64_t* offsets,
                         std::uint8_t* aggregated, cudaStream_t stream) {
  if (batch.tiles == 0) return cudaSuccess;
  GatherKernel<<<static_cast<unsigned>(batch.tiles), kThreads, 0, stream>>>(
      batch, encoded, encoded_stride, offsets, aggregated);
  return cudaGetLastError();
}

}  // namespace chunkwise::pipelines::stream::cuda_kernels
