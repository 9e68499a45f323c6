#include "cuda/device.h"

#include <gtest/gtest.h>

#include "unit/cuda/skip_without_gpu.h"

namespace chunkwise::cuda {
namespace {

TEST(CudaDevice, ListsDevicesWhenPresent) {
  SKIP_WITHOUT_GPU();
  const std::vector<DeviceInfo> devices = ListDevices();
  ASSERT_FALSE(devices.empty());
  EXPECT_GT(devices[0].total_memory_bytes, 0u);
  EXPECT_GE(devices[0].compute_capability_major, 7);
}

TEST(CudaDevice, AffineKernelComputesEveryElement) {
  SKIP_WITHOUT_GPU();
  Result<std::vector<std::uint32_t>> out = RunAffineKernel(100003, 7);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  ASSERT_EQ(out->size(), 100003u);
  for (std::uint32_t i = 0; i < out->size(); ++i) ASSERT_EQ((*out)[i], 3 * i + 7) << "at " << i;
}

TEST(CudaDevice, WithoutGpuTheKernelSaysUnsupported) {
  if (NoDeviceReason().empty()) GTEST_SKIP() << "SKIPPED: a GPU is present";
  Result<std::vector<std::uint32_t>> out = RunAffineKernel(16, 1);
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), StatusCode::kUnsupported);
}

}  // namespace
}  // namespace chunkwise::cuda
