// chunkwise gpu-info: what the CUDA build sees.
#include <cstdio>

#include "chunkwise/chunkwise.h"
#include "cli/command.h"

namespace chunkwise::cli {
namespace {

Status PrintGpuInfo() {
  const GpuReport report = DescribeGpus();
  if (!report.cuda_built) {
    std::printf("CUDA backend: not built (nvcc was not found at configure time)\n");
    return Status::Ok();
  }
  std::printf("CUDA backend: built\n");
  if (!report.no_device_reason.empty()) {
    std::printf("GPU: none usable (%s)\n", report.no_device_reason.c_str());
    return Status::Ok();
  }
  for (const GpuDevice& device : report.devices) {
    std::printf("GPU %d: %s, compute capability %d.%d, %d SMs, memory %s total, %s free\n",
                device.ordinal, device.name.c_str(), device.compute_capability_major,
                device.compute_capability_minor, device.multiprocessor_count,
                FormatBytes(static_cast<double>(device.total_memory_bytes)).c_str(),
                FormatBytes(static_cast<double>(device.free_memory_bytes)).c_str());
  }
  if (!report.self_test.ok()) return report.self_test;
  std::printf("self-test kernel: ok\n");
  if (report.host_to_device_gb_per_s.has_value()) {
    std::printf("host-to-device copy (page-locked): %.1f GB/s\n", *report.host_to_device_gb_per_s);
  }
  const Status& backend = report.stream_backend;
  std::printf("stream writer backend (zarr stream --backend cuda): %s\n",
              backend.ok() ? "usable" : ("not usable: " + backend.ToString()).c_str());
  return Status::Ok();
}

}  // namespace

void AddGpuCommands(CLI::App& app, CommandContext& context) {
  CLI::App* command = app.add_subcommand("gpu-info", "Show the GPU the CUDA backend would use");
  SetAction(command, context, [] { return PrintGpuInfo(); });
}

}  // namespace chunkwise::cli
