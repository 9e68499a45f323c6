#include <cuda_runtime.h>

#include <string>

#include "chunkwise/cuda/device.h"

namespace chunkwise::cuda {
namespace {

__global__ void AffineKernel(std::uint32_t* out, std::uint32_t count, std::uint32_t seed) {
  const std::uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < count) out[i] = 3u * i + seed;
}

Status CudaError(cudaError_t error, const char* what) {
  return Status::Internal(std::string("CUDA ") + what + ": " + cudaGetErrorString(error));
}

// Frees device memory on every return path.
struct DeviceBuffer {
  void* pointer = nullptr;
  ~DeviceBuffer() {
    if (pointer != nullptr) cudaFree(pointer);
  }
};

}  // namespace

std::string NoDeviceReason() {
  int count = 0;
  const cudaError_t error = cudaGetDeviceCount(&count);
  if (error == cudaErrorInsufficientDriver) return "no CUDA driver";
  if (error != cudaSuccess)
    return std::string("no CUDA device (") + cudaGetErrorString(error) + ")";
  if (count == 0) return "no CUDA device";
  return "";
}

std::vector<DeviceInfo> ListDevices() {
  std::vector<DeviceInfo> devices;
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) return devices;
  for (int ordinal = 0; ordinal < count; ++ordinal) {
    cudaDeviceProp properties{};
    if (cudaGetDeviceProperties(&properties, ordinal) != cudaSuccess) continue;
    DeviceInfo info;
    info.ordinal = ordinal;
    info.name = properties.name;
    info.total_memory_bytes = properties.totalGlobalMem;
    info.compute_capability_major = properties.major;
    info.compute_capability_minor = properties.minor;
    info.multiprocessor_count = properties.multiProcessorCount;
    std::size_t free_bytes = 0, total_bytes = 0;
    if (cudaSetDevice(ordinal) == cudaSuccess &&
        cudaMemGetInfo(&free_bytes, &total_bytes) == cudaSuccess) {
      info.free_memory_bytes = free_bytes;
    }
    devices.push_back(std::move(info));
  }
  return devices;
}

Result<std::vector<std::uint32_t>> RunAffineKernel(std::uint32_t count, std::uint32_t seed) {
  if (std::string reason = NoDeviceReason(); !reason.empty()) return Status::Unsupported(reason);
  if (cudaError_t e = cudaSetDevice(0); e != cudaSuccess) return CudaError(e, "set device");
  std::vector<std::uint32_t> host(count);
  if (count == 0) return host;
  DeviceBuffer device;
  const std::size_t bytes = sizeof(std::uint32_t) * count;
  if (cudaError_t e = cudaMalloc(&device.pointer, bytes); e != cudaSuccess)
    return CudaError(e, "malloc");
  const unsigned threads = 256;
  const unsigned blocks = (count + threads - 1) / threads;
  AffineKernel<<<blocks, threads>>>(static_cast<std::uint32_t*>(device.pointer), count, seed);
  if (cudaError_t e = cudaGetLastError(); e != cudaSuccess) return CudaError(e, "launch");
  if (cudaError_t e = cudaMemcpy(host.data(), device.pointer, bytes, cudaMemcpyDeviceToHost);
      e != cudaSuccess) {
    return CudaError(e, "copy to host");
  }
  return host;
}

}  // namespace chunkwise::cuda
