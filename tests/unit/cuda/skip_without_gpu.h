// SKIP_WITHOUT_GPU(): the first line of a GPU test. Without a usable device
// the test reports SKIPPED (CTest shows it as skipped), never passed.
#ifndef CHUNKWISE_TESTS_UNIT_CUDA_SKIP_WITHOUT_GPU_H_
#define CHUNKWISE_TESTS_UNIT_CUDA_SKIP_WITHOUT_GPU_H_

#include <gtest/gtest.h>

#include <string>

#include "cuda/device.h"

#define SKIP_WITHOUT_GPU()                                                           \
  do {                                                                               \
    if (std::string reason = ::chunkwise::cuda::NoDeviceReason(); !reason.empty()) { \
      GTEST_SKIP() << "SKIPPED: " << reason;                                         \
    }                                                                                \
  } while (false)

#endif  // CHUNKWISE_TESTS_UNIT_CUDA_SKIP_WITHOUT_GPU_H_
