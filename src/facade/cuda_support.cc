#include "chunkwise/facade/cuda_support.h"

#if CHUNKWISE_HAVE_CUDA
#include "chunkwise/cuda/device.h"
#include "chunkwise/pipelines/stream/cuda_backend.h"
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

}  // namespace chunkwise
