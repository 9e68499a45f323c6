// The deterministic blosc-lz4 encoder on the GPU: the shuffle, the block split
// and the per-stream LZ4 encoding of codec/blosc_lz4_layout.h run in kernels,
// one thread per (block, stream), and a second kernel assembles each chunk
// (header, block starts, streams; memcpyed when the encoding would not pay).
// The chunks are byte-identical to codec::EncodeDeterministicBloscLz4's, the
// CPU encoder in the library, which is what the GPU tests check.
//
// Spec: docs/formats/blosc-lz4-deterministic.md. This is the compression stage
// the streaming writer's CUDA backend (issue 9) will call on device buffers;
// for now it takes and returns host buffers.
#ifndef CHUNKWISE_CUDA_BLOSC_LZ4_H_
#define CHUNKWISE_CUDA_BLOSC_LZ4_H_

#include <cstdint>
#include <span>
#include <vector>

#include "chunkwise/core/bytes.h"
#include "chunkwise/core/result.h"

namespace chunkwise::cuda {

// As codec::DeterministicBloscLz4Options (the cuda target links only core).
struct GpuBloscLz4Options {
  int typesize = 1;         // 1 to 255.
  bool shuffle = true;      // Byte shuffle; false is "noshuffle".
  bool store_only = false;  // clevel 0: chunks are stored memcpyed.
};

// Encodes every chunk of `chunks` on GPU 0 and returns the Blosc1 chunks in
// order. Unsupported without a GPU; InvalidArgument for a typesize outside
// 1..255 or a chunk over the Blosc1 limit; Internal naming the CUDA call on a
// CUDA error. All chunks of one call are encoded in one pair of launches.
Result<std::vector<Bytes>> EncodeBloscLz4OnGpu(std::span<const ByteView> chunks,
                                               const GpuBloscLz4Options& options);

}  // namespace chunkwise::cuda

#endif  // CHUNKWISE_CUDA_BLOSC_LZ4_H_
