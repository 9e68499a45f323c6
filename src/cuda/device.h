// What the CUDA build sees of the GPU: whether one is present and usable.
//
// The CUDA target builds wherever nvcc is found, including machines with no
// GPU (CI). Everything here reports "no device" there instead of failing, so
// GPU tests can report themselves skipped. The streaming writer's CUDA backend
// (issue 9) builds on this.
#ifndef CHUNKWISE_CUDA_DEVICE_H_
#define CHUNKWISE_CUDA_DEVICE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "chunkwise/core/result.h"

namespace chunkwise::cuda {

struct DeviceInfo {
  int ordinal = 0;
  std::string name;
  std::uint64_t total_memory_bytes = 0;
  std::uint64_t free_memory_bytes = 0;
  int compute_capability_major = 0;
  int compute_capability_minor = 0;
  int multiprocessor_count = 0;
};

// The visible CUDA devices; empty (not an error) when there is no GPU or no driver.
std::vector<DeviceInfo> ListDevices();

// The reason no device is usable ("no CUDA driver", "no CUDA device"), or "" if one is.
std::string NoDeviceReason();

// Runs a trivial kernel on device 0 that writes out[i] = 3 * i + seed, then
// copies the result back. Proves that compilation, launch and copies work.
// Unsupported when no device is usable; Internal on a CUDA error.
Result<std::vector<std::uint32_t>> RunAffineKernel(std::uint32_t count, std::uint32_t seed);

// The copy rate from page-locked host memory to device 0, in GB/s: the
// median of `repeats` copies of `bytes`. The ceiling of any pipeline that
// streams its input to the GPU. Unsupported without a device.
Result<double> MeasureHostToDeviceRate(std::uint64_t bytes, int repeats);

}  // namespace chunkwise::cuda

#endif  // CHUNKWISE_CUDA_DEVICE_H_
