// chunkwise gpu-info: what the CUDA build sees.
#include <cstdio>

#include "cli/command.h"
#if CHUNKWISE_HAVE_CUDA
#include "chunkwise/cuda/device.h"
#include "chunkwise/pipelines/stream/cuda_backend.h"
#endif

namespace chunkwise::cli {
namespace {

Status PrintGpuInfo() {
#if CHUNKWISE_HAVE_CUDA
  const std::string reason = cuda::NoDeviceReason();
  std::printf("CUDA backend: built\n");
  if (!reason.empty()) {
    std::printf("GPU: none usable (%s)\n", reason.c_str());
    return Status::Ok();
  }
  for (const cuda::DeviceInfo& device : cuda::ListDevices()) {
    std::printf("GPU %d: %s, compute capability %d.%d, %d SMs, memory %s total, %s free\n",
                device.ordinal, device.name.c_str(), device.compute_capability_major,
                device.compute_capability_minor, device.multiprocessor_count,
                FormatBytes(static_cast<double>(device.total_memory_bytes)).c_str(),
                FormatBytes(static_cast<double>(device.free_memory_bytes)).c_str());
  }
  CHUNKWISE_ASSIGN_OR_RETURN(std::vector<std::uint32_t> values, cuda::RunAffineKernel(1 << 20, 5));
  for (std::uint32_t i = 0; i < values.size(); ++i) {
    if (values[i] != 3 * i + 5)
      return Status::Internal("GPU self-test kernel returned a wrong value");
  }
  std::printf("self-test kernel: ok\n");
  if (Result<double> rate = cuda::MeasureHostToDeviceRate(std::uint64_t{256} << 20, 5); rate.ok()) {
    std::printf("host-to-device copy (page-locked): %.1f GB/s\n", *rate);
  }
  const Status backend = pipelines::stream::ProbeCudaBackend();
  std::printf("stream writer backend (zarr stream --backend cuda): %s\n",
              backend.ok() ? "usable" : ("not usable: " + backend.ToString()).c_str());
#else
  std::printf("CUDA backend: not built (nvcc was not found at configure time)\n");
#endif
  return Status::Ok();
}

}  // namespace

void AddGpuCommands(CLI::App& app, CommandContext& context) {
  CLI::App* command = app.add_subcommand("gpu-info", "Show the GPU the CUDA backend would use");
  SetAction(command, context, [] { return PrintGpuInfo(); });
}

}  // namespace chunkwise::cli
