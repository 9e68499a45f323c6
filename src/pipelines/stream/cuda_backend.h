// The stream writer's CUDA backend (src/pipelines/stream/cuda; built when nvcc
// is found, in the chunkwise_pipelines_cuda archive).
//
// The design's GPU pipeline (docs/pipelines/stream-writer.md, "The CUDA
// backend"): input → H2D → scatter → compress → aggregate-by-shard → D2H →
// shard index bookkeeping → emit. Frames are staged frame-major in page-locked
// memory (frame_major_batch.h) and copied to the GPU on one stream; a second
// stream scatters them into tiles (scatter_geometry.h) and flags tiles equal to
// the fill value; a third compresses them (codec none, or the deterministic
// blosc-lz4 encoder, cuda/blosc_lz4.h) and aggregates them shard-major (permute
// sizes, CUB exclusive scan, gather); a fourth copies the offsets back, then
// exactly the compressed bytes. Events order the streams, and two slots of
// device buffers let batch n+1 be copied in and scattered while batch n
// compresses and is copied out. The shards are byte-identical to the CPU
// backend's.
#ifndef CHUNKWISE_PIPELINES_STREAM_CUDA_BACKEND_H_
#define CHUNKWISE_PIPELINES_STREAM_CUDA_BACKEND_H_

#include <memory>

#include "chunkwise/core/result.h"
#include "chunkwise/core/thread_pool.h"
#include "pipelines/stream/stream_backend.h"

namespace chunkwise::pipelines::stream {

// The CUDA backend for `plan` (plan.backend kCuda) on GPU 0. Unsupported
// without a usable GPU; InvalidArgument when the plan's GPU memory
// (plan.memory.device) exceeds what is free, naming both; Internal naming the
// CUDA call on other CUDA errors. `pool` is not used: the GPU does the work.
Result<std::unique_ptr<StreamBackend>> MakeCudaBackend(const StreamPlan& plan,
                                                       core::ThreadPool& pool);

// Whether the backend can run here: plans a small stream (deterministic
// blosc-lz4) for the GPU and creates its backend. OK, or why not.
Status ProbeCudaBackend();

}  // namespace chunkwise::pipelines::stream

#endif  // CHUNKWISE_PIPELINES_STREAM_CUDA_BACKEND_H_
