// The stream writer's CUDA backend as the facade hands it to the writer
// (src/facade/cuda_support.cc, where CHUNKWISE_HAVE_CUDA decides).
#ifndef CHUNKWISE_FACADE_CUDA_STREAM_BACKEND_H_
#define CHUNKWISE_FACADE_CUDA_STREAM_BACKEND_H_

#include "pipelines/stream/stream_backend.h"

namespace chunkwise {

// The stream writer's CUDA backend, or an empty factory without CUDA.
pipelines::stream::StreamBackendFactory CudaStreamBackendFactory();

}  // namespace chunkwise

#endif  // CHUNKWISE_FACADE_CUDA_STREAM_BACKEND_H_
