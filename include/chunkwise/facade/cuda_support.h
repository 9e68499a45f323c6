// What the library knows of its CUDA build: the one place where
// CHUNKWISE_HAVE_CUDA decides, so that the CLI, the Python module and the
// stream facade ask instead of testing the macro.
#ifndef CHUNKWISE_FACADE_CUDA_SUPPORT_H_
#define CHUNKWISE_FACADE_CUDA_SUPPORT_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "chunkwise/core/status.h"

namespace chunkwise {

// Empty when this build has the CUDA backend and a usable GPU; else why not.
std::string NoGpuReason();

// One visible CUDA device.
struct GpuDevice {
  int ordinal = 0;
  std::string name;
  std::uint64_t total_memory_bytes = 0;
  std::uint64_t free_memory_bytes = 0;
  int compute_capability_major = 0;
  int compute_capability_minor = 0;
  int multiprocessor_count = 0;
};

// What the CUDA build sees (`chunkwise gpu-info`). Each check runs only when
// the one before it passed.
struct GpuReport {
  bool cuda_built = false;
  std::string no_device_reason;  // Empty when a GPU is usable.
  std::vector<GpuDevice> devices;
  // A small kernel run and its values checked: Internal for a wrong value.
  Status self_test = Status::Unsupported("not run");
  std::optional<double> host_to_device_gb_per_s;  // Page-locked copies.
  // Whether the stream writer's CUDA backend can be made here.
  Status stream_backend = Status::Unsupported("not run");
};

// Runs the checks above (on a GPU: a kernel, a 256 MiB copy, a backend
// probe); without CUDA or a GPU, says so and runs nothing.
GpuReport DescribeGpus();

}  // namespace chunkwise

#endif  // CHUNKWISE_FACADE_CUDA_SUPPORT_H_
