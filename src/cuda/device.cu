#include <cuda_runtime.h>

#include <algorithm>
#include <string>
#include <vector>

#include "cuda/device.h"
#include "cuda_resources.h"

namespace chunkwise::cuda {
namespace {

__global__ void AffineKernel(std::uint32_t* out, std::uint32_t count, std::uint32_t seed) {
  const std::uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < count) out[i] = 3u * i + seed;
}

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
  CHUNKWISE_RETURN_IF_ERROR(device.Allocate(bytes));
  const unsigned threads = 256;
  const unsigned blocks = (count + threads - 1) / threads;
  AffineKernel<<<blocks, threads>>>(device.as<std::uint32_t>(), count, seed);
  if (cudaError_t e = cudaGetLastError(); e != cudaSuccess) return CudaError(e, "launch");
  if (cudaError_t e =
          cudaMemcpy(host.data(), device.as<std::uint32_t>(), bytes, cudaMemcpyDeviceToHost);
      e != cudaSuccess) {
    return CudaError(e, "copy to host");
  }
  return host;
}

Result<double> MeasureHostToDeviceRate(std::uint64_t bytes, int repeats) {
  if (std::string reason = NoDeviceReason(); !reason.empty()) return Status::Unsupported(reason);
  CHUNKWISE_RETURN_IF_ERROR(CheckCuda(cudaSetDevice(0), "set device"));
  CHUNKWISE_ASSIGN_OR_RETURN(std::shared_ptr<std::uint8_t> host, AllocatePinned(bytes));
  std::fill(host.get(), host.get() + bytes, std::uint8_t{7});  // Touch every page first.
  DeviceBuffer device;
  CHUNKWISE_RETURN_IF_ERROR(device.Allocate(bytes));
  CudaEvent begin, end;
  CHUNKWISE_RETURN_IF_ERROR(begin.Create());
  CHUNKWISE_RETURN_IF_ERROR(end.Create());
  std::vector<double> rates;
  for (int i = 0; i < std::max(repeats, 1); ++i) {
    CHUNKWISE_RETURN_IF_ERROR(CheckCuda(cudaEventRecord(begin.get()), "event record"));
    CHUNKWISE_RETURN_IF_ERROR(CheckCuda(
        cudaMemcpy(device.as<void>(), host.get(), bytes, cudaMemcpyHostToDevice), "copy"));
    CHUNKWISE_RETURN_IF_ERROR(CheckCuda(cudaEventRecord(end.get()), "event record"));
    CHUNKWISE_RETURN_IF_ERROR(CheckCuda(cudaEventSynchronize(end.get()), "event wait"));
    float ms = 0;
    CHUNKWISE_RETURN_IF_ERROR(
        CheckCuda(cudaEventElapsedTime(&ms, begin.get(), end.get()), "event time"));
    rates.push_back(static_cast<double>(bytes) / 1e9 / (ms / 1e3));
  }
  std::sort(rates.begin(), rates.end());
  return rates[rates.size() / 2];
}

}  // namespace chunkwise::cuda
