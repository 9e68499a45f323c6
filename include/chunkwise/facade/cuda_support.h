// What the library knows of its CUDA build: the one place where
// CHUNKWISE_HAVE_CUDA decides, so that the CLI, the Python module and the
// stream facade ask instead of testing the macro.
#ifndef CHUNKWISE_FACADE_CUDA_SUPPORT_H_
#define CHUNKWISE_FACADE_CUDA_SUPPORT_H_

#include <string>

#include "chunkwise/pipelines/stream/stream_backend.h"

namespace chunkwise {

// Empty when this build has the CUDA backend and a usable GPU; else why not.
std::string NoGpuReason();

// The stream writer's CUDA backend, or an empty factory without CUDA.
pipelines::stream::StreamBackendFactory CudaStreamBackendFactory();

}  // namespace chunkwise

#endif  // CHUNKWISE_FACADE_CUDA_SUPPORT_H_
