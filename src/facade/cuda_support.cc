#include "chunkwise/facade/cuda_support.h"

#include "facade/cuda_stream_backend.h"

#if CHUNKWISE_HAVE_CUDA
#include "cuda/device.h"
#include "pipelines/stream/cuda_backend.h"
#endif

namespace chunkwise {

std::string NoGpuReason() {
#if CHUNKWISE_HAVE_CUDA
  return cuda::NoDeviceReason();
#else
  return "this build has no CUDA backend (nvcc was not found when it was built)";
#endif
}

pipelines::stream::StreamBackendFactory CudaStreamBackendFactory() {
#if CHUNKWISE_HAVE_CUDA
  return pipelines::stream::MakeCudaBackend;
#else
  return {};
#endif
}

GpuReport DescribeGpus() {
  GpuReport report;
#if CHUNKWISE_HAVE_CUDA
  report.cuda_built = true;
  report.no_device_reason = cuda::NoDeviceReason();
  if (!report.no_device_reason.empty()) return report;
  for (const cuda::DeviceInfo& device : cuda::ListDevices()) {
    report.devices.push_back({.ordinal = device.ordinal,
                              .name = device.name,
                              .total_memory_bytes = device.total_memory_bytes,
                              .free_memory_bytes = device.free_memory_bytes,
                              .compute_capability_major = device.compute_capability_major,
                              .compute_capability_minor = device.compute_capability_minor,
                              .multiprocessor_count = device.multiprocessor_count});
  }
  Result<std::vector<std::uint32_t>> values = cuda::RunAffineKernel(1 << 20, 5);
  report.self_test = values.status();
  for (std::uint32_t i = 0; values.ok() && i < values->size(); ++i) {
    if ((*values)[i] != 3 * i + 5) {
      report.self_test = Status::Internal("GPU self-test kernel returned a wrong value");
      break;
    }
  }
  if (!report.self_test.ok()) return report;
  if (Result<double> rate = cuda::MeasureHostToDeviceRate(std::uint64_t{256} << 20, 5); rate.ok()) {
    report.host_to_device_gb_per_s = *rate;
  }
  report.stream_backend = pipelines::stream::ProbeCudaBackend();
#else
  report.no_device_reason = NoGpuReason();
#endif
  return report;
}

}  // namespace chunkwise
