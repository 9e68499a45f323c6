// The deterministic blosc-lz4 encoder on the GPU: the shuffle, the block split
// and the per-stream LZ4 encoding of codec/blosc_lz4_layout.h run in kernels,
// one thread per (block, stream), and a second kernel assembles each chunk
// (header, block starts, streams; memcpyed when the encoding would not pay).
// The chunks are byte-identical to codec::EncodeDeterministicBloscLz4's, the
// CPU encoder in the library, which is what the GPU tests check.
//
// Spec: docs/formats/blosc-lz4-deterministic.md. EncodeBloscLz4OnGpu takes
// and returns host buffers (for tests); GpuBloscLz4Batch is the compression
// stage of the stream writer's CUDA backend, on device buffers and a stream.
#ifndef CHUNKWISE_CUDA_BLOSC_LZ4_H_
#define CHUNKWISE_CUDA_BLOSC_LZ4_H_

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "chunkwise/core/bytes.h"
#include "chunkwise/core/result.h"

struct CUstream_st;  // cudaStream_t, without cuda_runtime.h.

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

// Encodes batches of up to `max_chunks` chunks of `chunk_bytes` each, lying
// back to back in device memory. The plan and its scratch
// (blosc_lz4_scratch.h) are made once, by Create, on the current device.
class GpuBloscLz4Batch {
 public:
  // InvalidArgument for a typesize outside 1..255 or a chunk over the Blosc1
  // limit; Internal naming the CUDA call when an allocation fails.
  static Result<std::unique_ptr<GpuBloscLz4Batch>> Create(std::uint64_t chunk_bytes,
                                                          std::uint32_t max_chunks,
                                                          const GpuBloscLz4Options& options);
  ~GpuBloscLz4Batch();
  GpuBloscLz4Batch(const GpuBloscLz4Batch&) = delete;
  GpuBloscLz4Batch& operator=(const GpuBloscLz4Batch&) = delete;

  // Chunk k of a launch's output starts at k · output_stride() = chunk_bytes + 16.
  std::uint64_t output_stride() const { return output_stride_; }

  // Queues the encoding of chunks [0, chunks) of device `input` into device
  // `output`, and each chunk's size into device `sizes[k]`, on `stream`.
  // Launches of one object must not overlap (they share its scratch), so
  // queue them on one stream.
  Status Launch(const std::uint8_t* input, std::uint32_t chunks, std::uint8_t* output,
                std::uint64_t* sizes, CUstream_st* stream);

 private:
  struct Impl;
  GpuBloscLz4Batch(std::unique_ptr<Impl> impl, std::uint64_t output_stride,
                   std::uint32_t max_chunks);
  std::unique_ptr<Impl> impl_;
  std::uint64_t output_stride_;
  std::uint32_t max_chunks_;
};

}  // namespace chunkwise::cuda

#endif  // CHUNKWISE_CUDA_BLOSC_LZ4_H_
