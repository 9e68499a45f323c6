// The deterministic blosc-lz4 encoder's kernels: the same functions as the
// CPU encoder (codec/blosc_lz4_layout.h). One CUDA block per (block, stream)
// gathers (shuffles) the stream, one thread per stream encodes it, then one
// CUDA block per chunk assembles the chunk. See src/cuda/blosc_lz4.h.
#include <cuda_runtime.h>

#include <algorithm>
#include <string>

#include "codec/blosc_lz4_layout.h"
#include "cuda/blosc_lz4.h"
#include "cuda/blosc_lz4_scratch.h"
#include "cuda/device.h"
#include "cuda_resources.h"

namespace chunkwise::cuda {
namespace {

namespace layout = codec::blosc_lz4;
namespace lz4 = codec::lz4;

// One stream of one block: what a thread of EncodeStreamsKernel encodes.
struct StreamTask {
  std::uint64_t block_input_offset;  // The block's first byte in the input.
  std::uint64_t slot_offset;         // Its [int32 size][data] slot: 4 + stream bytes.
  std::uint64_t gather_offset;       // Its gathered (shuffled) copy: stream bytes.
  std::uint32_t chunk;
  std::uint32_t block;
  std::uint32_t stream;
  std::uint32_t stream_count;
};

struct ChunkPlan {
  layout::ChunkGeometry geometry;
  std::uint64_t input_offset;
  std::uint64_t output_offset;  // Each chunk has room for nbytes + 16.
  std::uint32_t first_task;
  std::uint32_t task_count;
};

static_assert(sizeof(StreamTask) + 4 + 8 + 4 <= kGpuBloscLz4TaskBytes);
static_assert(sizeof(ChunkPlan) <= kGpuBloscLz4ChunkPlanBytes);
constexpr unsigned kEncodeBlockThreads = kGpuBloscLz4ThreadsPerBlock;
constexpr unsigned kAssembleBlockThreads = 256;
constexpr unsigned kGatherBlockThreads = 256;
constexpr std::uint32_t kMaxGatherBlocks = 65535;

// One CUDA block per stream: its threads gather the stream's bytes (the
// shuffle), so that a warp reads and writes neighbouring bytes.
__global__ void GatherStreamsKernel(const std::uint8_t* input, const ChunkPlan* chunks,
                                    const StreamTask* tasks, std::uint32_t task_count,
                                    std::uint8_t* gathered) {
  for (std::uint32_t t = blockIdx.x; t < task_count; t += gridDim.x) {
    const StreamTask task = tasks[t];
    const layout::ChunkGeometry g = chunks[task.chunk].geometry;
    const std::uint32_t block_bytes = layout::BlockBytes(g, task.block);
    const std::uint32_t stream_bytes = block_bytes / task.stream_count;
    const std::uint8_t* block = input + task.block_input_offset;
    std::uint8_t* out = gathered + task.gather_offset;
    for (std::uint32_t o = threadIdx.x; o < stream_bytes; o += blockDim.x) {
      out[o] = layout::GatheredStreamByte(g, block, block_bytes, task.stream, task.stream_count, o);
    }
  }
}

// One thread per stream: the LZ4 pass is sequential within a stream. Threads
// take the tasks in `order` (all the plan's tasks) and skip those at or past
// task_count (chunks after the launch's).
__global__ void EncodeStreamsKernel(const ChunkPlan* chunks, const StreamTask* tasks,
                                    const std::uint32_t* order, std::uint32_t order_count,
                                    std::uint32_t task_count, std::uint8_t* slots,
                                    const std::uint8_t* gathered, std::uint16_t* tables,
                                    std::uint32_t* sizes) {
  const std::uint32_t thread = blockIdx.x * blockDim.x + threadIdx.x;
  const std::uint32_t threads = gridDim.x * blockDim.x;
  std::uint16_t* table = tables + static_cast<std::uint64_t>(thread) * lz4::kHashEntries;
  for (std::uint32_t i = thread; i < order_count; i += threads) {
    const std::uint32_t t = order[i];
    if (t >= task_count) continue;
    const StreamTask task = tasks[t];
    const layout::ChunkGeometry g = chunks[task.chunk].geometry;
    const std::uint32_t block_bytes = layout::BlockBytes(g, task.block);
    sizes[t] = layout::EncodeStream(gathered + task.gather_offset, block_bytes / task.stream_count,
                                    slots + task.slot_offset, table);
  }
}

// Thread 0 lays the chunk out (header, block starts, where each stream goes,
// or memcpyed when the encoding exceeds nbytes + 16) and records its size in
// chunk_sizes (when given), then the block copies.
__global__ void AssembleChunksKernel(const std::uint8_t* input, const ChunkPlan* chunks,
                                     const StreamTask* tasks, const std::uint8_t* slots,
                                     const std::uint32_t* sizes, std::uint64_t* task_positions,
                                     std::uint8_t* output, std::uint64_t* chunk_sizes) {
  __shared__ bool memcpyed;
  const ChunkPlan plan = chunks[blockIdx.x];
  const layout::ChunkGeometry& g = plan.geometry;
  std::uint8_t* out = output + plan.output_offset;
  if (threadIdx.x == 0) {
    std::uint64_t position = layout::BlocksOffset(g);
    for (std::uint32_t i = 0; i < plan.task_count; ++i) {
      const std::uint32_t t = plan.first_task + i;
      if (tasks[t].stream == 0) {
        layout::Store32(out + layout::kHeaderBytes + 4 * tasks[t].block,
                        static_cast<std::uint32_t>(position));
      }
      task_positions[t] = position;
      position += sizes[t];
    }
    memcpyed = g.memcpyed_only || position > std::uint64_t{g.nbytes} + layout::kHeaderBytes;
    const std::uint64_t cbytes = memcpyed ? g.nbytes + layout::kHeaderBytes : position;
    layout::WriteHeader(g, memcpyed, static_cast<std::uint32_t>(cbytes), out);
    if (chunk_sizes != nullptr) chunk_sizes[blockIdx.x] = cbytes;
  }
  __syncthreads();
  if (memcpyed) {
    for (std::uint32_t i = threadIdx.x; i < g.nbytes; i += blockDim.x) {
      out[layout::kHeaderBytes + i] = input[plan.input_offset + i];
    }
    return;
  }
  const std::uint32_t lane = threadIdx.x % 32, warp = threadIdx.x / 32, warps = blockDim.x / 32;
  for (std::uint32_t i = warp; i < plan.task_count; i += warps) {
    const std::uint32_t t = plan.first_task + i;
    const std::uint8_t* from = slots + tasks[t].slot_offset;
    for (std::uint32_t j = lane; j < sizes[t]; j += 32) out[task_positions[t] + j] = from[j];
  }
}

struct Plan {
  std::vector<ChunkPlan> chunks;
  std::vector<StreamTask> tasks;
  // The tasks in the order threads take them: by stream, so that a warp
  // encodes the same byte of neighbouring blocks, data of one kind (the
  // smooth high bytes or the noisy low bytes of a shuffled sample), and its
  // threads diverge less than over mixed streams.
  std::vector<std::uint32_t> encode_order;
  std::uint64_t input_bytes = 0, output_bytes = 0, slot_bytes = 0, gather_bytes = 0;
};

void AddChunk(std::uint32_t chunk_bytes, const GpuBloscLz4Options& options, Plan& plan) {
  ChunkPlan chunk{};
  chunk.geometry = layout::MakeGeometry(chunk_bytes, static_cast<std::uint32_t>(options.typesize),
                                        options.shuffle, options.store_only);
  const layout::ChunkGeometry& g = chunk.geometry;
  chunk.input_offset = plan.input_bytes;
  chunk.output_offset = plan.output_bytes;
  chunk.first_task = static_cast<std::uint32_t>(plan.tasks.size());
  for (std::uint32_t block = 0; !g.memcpyed_only && block < g.block_count; ++block) {
    const std::uint32_t streams = layout::StreamCount(g, block);
    const std::uint32_t stream_bytes = layout::BlockBytes(g, block) / streams;
    for (std::uint32_t stream = 0; stream < streams; ++stream) {
      plan.tasks.push_back({chunk.input_offset + std::uint64_t{block} * g.blocksize,
                            plan.slot_bytes, plan.gather_bytes,
                            static_cast<std::uint32_t>(plan.chunks.size()), block, stream,
                            streams});
      plan.slot_bytes += 4 + stream_bytes;
      plan.gather_bytes += stream_bytes;
    }
  }
  chunk.task_count = static_cast<std::uint32_t>(plan.tasks.size()) - chunk.first_task;
  plan.input_bytes += chunk_bytes;
  plan.output_bytes += std::uint64_t{chunk_bytes} + layout::kHeaderBytes;
  plan.chunks.push_back(chunk);
}

// Orders the plan's tasks by stream, then as added (see Plan::encode_order).
void OrderTasks(Plan& plan) {
  plan.encode_order.resize(plan.tasks.size());
  for (std::uint32_t t = 0; t < plan.tasks.size(); ++t) plan.encode_order[t] = t;
  std::stable_sort(plan.encode_order.begin(), plan.encode_order.end(),
                   [&](std::uint32_t a, std::uint32_t b) {
                     return plan.tasks[a].stream < plan.tasks[b].stream;
                   });
}

// The checks both entry points make: the typesize and one chunk's size.
Status CheckChunk(std::uint64_t chunk_bytes, const GpuBloscLz4Options& options) {
  if (options.typesize < 1 || options.typesize > 255) {
    return Status::InvalidArgument("blosc (deterministic lz4, GPU): typesize must be in 1..255");
  }
  if (chunk_bytes > layout::kMaxInputBytes) {
    return Status::InvalidArgument("blosc (deterministic lz4, GPU): a chunk of " +
                                   std::to_string(chunk_bytes) + " bytes exceeds the Blosc1 limit");
  }
  return Status::Ok();
}

Status CheckOptions(std::span<const ByteView> chunks, const GpuBloscLz4Options& options) {
  CHUNKWISE_RETURN_IF_ERROR(CheckChunk(0, options));
  for (const ByteView chunk : chunks) CHUNKWISE_RETURN_IF_ERROR(CheckChunk(chunk.size(), options));
  if (std::string reason = NoDeviceReason(); !reason.empty()) return Status::Unsupported(reason);
  return Status::Ok();
}

// The device side of a plan: its tables and scratch, made once and reused
// by every launch.
struct DeviceWork {
  DeviceBuffer chunks, tasks, order, slots, gathered, tables, sizes, positions;
  std::uint64_t encode_threads = 0;

  Status Allocate(const Plan& plan) {
    const std::uint64_t task_count = plan.tasks.size();
    const std::uint64_t rounded =
        (task_count + kEncodeBlockThreads - 1) / kEncodeBlockThreads * kEncodeBlockThreads;
    encode_threads = std::min<std::uint64_t>(kGpuBloscLz4MaxThreads, rounded);
    CHUNKWISE_RETURN_IF_ERROR(chunks.Allocate(sizeof(ChunkPlan) * plan.chunks.size()));
    CHUNKWISE_RETURN_IF_ERROR(tasks.Allocate(sizeof(StreamTask) * task_count));
    CHUNKWISE_RETURN_IF_ERROR(order.Allocate(4 * task_count));
    CHUNKWISE_RETURN_IF_ERROR(order.Upload(plan.encode_order.data(), 4 * task_count));
    CHUNKWISE_RETURN_IF_ERROR(slots.Allocate(plan.slot_bytes));
    CHUNKWISE_RETURN_IF_ERROR(gathered.Allocate(plan.gather_bytes));
    CHUNKWISE_RETURN_IF_ERROR(tables.Allocate(encode_threads * lz4::kHashEntries * 2));
    CHUNKWISE_RETURN_IF_ERROR(sizes.Allocate(4 * task_count));
    CHUNKWISE_RETURN_IF_ERROR(positions.Allocate(8 * task_count));
    CHUNKWISE_RETURN_IF_ERROR(
        chunks.Upload(plan.chunks.data(), sizeof(ChunkPlan) * plan.chunks.size()));
    return tasks.Upload(plan.tasks.data(), sizeof(StreamTask) * task_count);
  }

  // Encodes the plan's first `chunk_count` chunks of `input` into `output`
  // (chunk k at its plan's output_offset), asynchronously on `stream`.
  Status Launch(const Plan& plan, std::uint32_t chunk_count, const std::uint8_t* input,
                std::uint8_t* output, std::uint64_t* chunk_sizes, cudaStream_t stream) {
    if (chunk_count == 0) return Status::Ok();
    const ChunkPlan& last = plan.chunks[chunk_count - 1];
    const std::uint32_t task_count = last.first_task + last.task_count;
    if (task_count > 0) {
      GatherStreamsKernel<<<std::min(task_count, kMaxGatherBlocks), kGatherBlockThreads, 0,
                            stream>>>(input, chunks.as<ChunkPlan>(), tasks.as<StreamTask>(),
                                      task_count, gathered.as<std::uint8_t>());
      if (cudaError_t e = cudaGetLastError(); e != cudaSuccess)
        return CudaError(e, "gather launch");
      EncodeStreamsKernel<<<static_cast<unsigned>(encode_threads / kEncodeBlockThreads),
                            kEncodeBlockThreads, 0, stream>>>(
          chunks.as<ChunkPlan>(), tasks.as<StreamTask>(), order.as<std::uint32_t>(),
          static_cast<std::uint32_t>(plan.tasks.size()), task_count, slots.as<std::uint8_t>(),
          gathered.as<std::uint8_t>(), tables.as<std::uint16_t>(), sizes.as<std::uint32_t>());
      if (cudaError_t e = cudaGetLastError(); e != cudaSuccess)
        return CudaError(e, "encode launch");
    }
    AssembleChunksKernel<<<chunk_count, kAssembleBlockThreads, 0, stream>>>(
        input, chunks.as<ChunkPlan>(), tasks.as<StreamTask>(), slots.as<std::uint8_t>(),
        sizes.as<std::uint32_t>(), positions.as<std::uint64_t>(), output, chunk_sizes);
    if (cudaError_t e = cudaGetLastError(); e != cudaSuccess)
      return CudaError(e, "assemble launch");
    return Status::Ok();
  }
};

// Copies the assembled chunks back and cuts them at their cbytes.
Result<std::vector<Bytes>> CollectChunks(const Plan& plan, const DeviceBuffer& output) {
  Bytes host(plan.output_bytes);
  if (cudaError_t e = cudaMemcpy(host.data(), output.as<std::uint8_t>(), plan.output_bytes,
                                 cudaMemcpyDeviceToHost);
      e != cudaSuccess) {
    return CudaError(e, "copy to host (or an earlier kernel)");
  }
  std::vector<Bytes> encoded;
  encoded.reserve(plan.chunks.size());
  for (const ChunkPlan& chunk : plan.chunks) {
    const std::uint8_t* at = host.data() + chunk.output_offset;
    const std::uint32_t cbytes = LoadLittleEndian<std::uint32_t>(at + 12);
    if (cbytes > std::uint64_t{chunk.geometry.nbytes} + layout::kHeaderBytes) {
      return Status::Internal("blosc (deterministic lz4, GPU): a chunk claims too many bytes");
    }
    encoded.push_back(CopyToBytes({at, cbytes}));
  }
  return encoded;
}

}  // namespace

Result<std::vector<Bytes>> EncodeBloscLz4OnGpu(std::span<const ByteView> chunks,
                                               const GpuBloscLz4Options& options) {
  CHUNKWISE_RETURN_IF_ERROR(CheckOptions(chunks, options));
  if (chunks.empty()) return std::vector<Bytes>{};
  if (cudaError_t e = cudaSetDevice(0); e != cudaSuccess) return CudaError(e, "set device");
  Plan plan;
  for (const ByteView chunk : chunks) {
    AddChunk(static_cast<std::uint32_t>(chunk.size()), options, plan);
  }
  OrderTasks(plan);
  DeviceBuffer input;
  CHUNKWISE_RETURN_IF_ERROR(input.Allocate(plan.input_bytes));
  for (std::size_t i = 0; i < chunks.size(); ++i) {
    if (chunks[i].empty()) continue;
    const cudaError_t e = cudaMemcpy(input.as<std::uint8_t>() + plan.chunks[i].input_offset,
                                     chunks[i].data(), chunks[i].size(), cudaMemcpyHostToDevice);
    if (e != cudaSuccess) return CudaError(e, "copy to device");
  }
  DeviceWork work;
  DeviceBuffer output;
  CHUNKWISE_RETURN_IF_ERROR(work.Allocate(plan));
  CHUNKWISE_RETURN_IF_ERROR(output.Allocate(plan.output_bytes));
  CHUNKWISE_RETURN_IF_ERROR(work.Launch(plan, static_cast<std::uint32_t>(plan.chunks.size()),
                                        input.as<std::uint8_t>(), output.as<std::uint8_t>(),
                                        nullptr, nullptr));
  return CollectChunks(plan, output);
}

struct GpuBloscLz4Batch::Impl {
  Plan plan;
  DeviceWork work;
};

Result<std::unique_ptr<GpuBloscLz4Batch>> GpuBloscLz4Batch::Create(
    std::uint64_t chunk_bytes, std::uint32_t max_chunks, const GpuBloscLz4Options& options) {
  CHUNKWISE_RETURN_IF_ERROR(CheckChunk(chunk_bytes, options));
  auto impl = std::make_unique<Impl>();
  for (std::uint32_t k = 0; k < max_chunks; ++k) {
    AddChunk(static_cast<std::uint32_t>(chunk_bytes), options, impl->plan);
  }
  OrderTasks(impl->plan);
  CHUNKWISE_RETURN_IF_ERROR(impl->work.Allocate(impl->plan));
  return std::unique_ptr<GpuBloscLz4Batch>(
      new GpuBloscLz4Batch(std::move(impl), chunk_bytes + layout::kHeaderBytes, max_chunks));
}

GpuBloscLz4Batch::GpuBloscLz4Batch(std::unique_ptr<Impl> impl, std::uint64_t output_stride,
                                   std::uint32_t max_chunks)
    : impl_(std::move(impl)), output_stride_(output_stride), max_chunks_(max_chunks) {}

GpuBloscLz4Batch::~GpuBloscLz4Batch() = default;

Status GpuBloscLz4Batch::Launch(const std::uint8_t* input, std::uint32_t chunks,
                                std::uint8_t* output, std::uint64_t* sizes, CUstream_st* stream) {
  if (chunks > max_chunks_) {
    return Status::Internal("blosc (deterministic lz4, GPU): more chunks than planned");
  }
  return impl_->work.Launch(impl_->plan, chunks, input, output, sizes, stream);
}

}  // namespace chunkwise::cuda
