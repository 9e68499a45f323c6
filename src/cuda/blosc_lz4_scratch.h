// The GPU memory the CUDA blosc-lz4 encoder (blosc_lz4.h) works in, as
// header-only arithmetic so that the stream writer's memory estimate, which
// is built without nvcc, and the encoder's allocation agree.
#ifndef CHUNKWISE_CUDA_BLOSC_LZ4_SCRATCH_H_
#define CHUNKWISE_CUDA_BLOSC_LZ4_SCRATCH_H_

#include <algorithm>
#include <cstdint>

#include "codec/blosc_lz4_layout.h"

namespace chunkwise::cuda {

// Threads of the encode kernel share this many hash tables (one each) and
// take (block, stream) tasks grid-stride, so scratch does not grow with the input.
inline constexpr std::uint64_t kGpuBloscLz4MaxThreads = 131072;
inline constexpr std::uint64_t kGpuBloscLz4ThreadsPerBlock = 32;
// Per task: its description, its encoded size and where it goes; per chunk its plan.
inline constexpr std::uint64_t kGpuBloscLz4TaskBytes = 40 + 4 + 8 + 4;
inline constexpr std::uint64_t kGpuBloscLz4ChunkPlanBytes = 64;

// The (block, stream) tasks of one chunk of `chunk_bytes`.
inline std::uint64_t GpuBloscLz4TasksPerChunk(std::uint64_t chunk_bytes, int typesize,
                                              bool shuffle) {
  const codec::blosc_lz4::ChunkGeometry g =
      codec::blosc_lz4::MakeGeometry(static_cast<std::uint32_t>(chunk_bytes),
                                     static_cast<std::uint32_t>(typesize), shuffle, false);
  if (g.memcpyed_only) return 0;
  std::uint64_t tasks = 0;
  for (std::uint32_t block = 0; block < g.block_count; ++block) {
    tasks += codec::blosc_lz4::StreamCount(g, block);
  }
  return tasks;
}

// Scratch for `chunks` chunks of `chunk_bytes` each (the output not included).
inline std::uint64_t GpuBloscLz4ScratchBytes(std::uint64_t chunk_bytes, std::uint64_t chunks,
                                             int typesize, bool shuffle) {
  const std::uint64_t tasks = chunks * GpuBloscLz4TasksPerChunk(chunk_bytes, typesize, shuffle);
  const std::uint64_t threads = std::min(
      kGpuBloscLz4MaxThreads, (tasks + kGpuBloscLz4ThreadsPerBlock - 1) /
                                  kGpuBloscLz4ThreadsPerBlock * kGpuBloscLz4ThreadsPerBlock);
  const std::uint64_t slots = chunks * chunk_bytes + 4 * tasks;  // [int32 size][stream].
  const std::uint64_t gathered = chunks * chunk_bytes;           // Shuffled streams.
  const std::uint64_t tables = threads * codec::lz4::kHashEntries * 2;
  return slots + gathered + tables + tasks * kGpuBloscLz4TaskBytes +
         chunks * kGpuBloscLz4ChunkPlanBytes;
}

}  // namespace chunkwise::cuda

#endif  // CHUNKWISE_CUDA_BLOSC_LZ4_SCRATCH_H_
