// CUDA runtime resources that free themselves (device and page-locked
// memory, streams, events) and the Status for a failed CUDA call. Private to
// the CUDA code (src/cuda and the pipelines' cuda/ folders).
#ifndef CHUNKWISE_CUDA_CUDA_RESOURCES_H_
#define CHUNKWISE_CUDA_CUDA_RESOURCES_H_

#include <cuda_runtime.h>

#include <cstdint>
#include <memory>
#include <string>

#include "chunkwise/core/result.h"

namespace chunkwise::cuda {

inline Status CudaError(cudaError_t error, const char* what) {
  return Status::Internal(std::string("CUDA ") + what + ": " + cudaGetErrorString(error));
}

// OK for cudaSuccess, else Internal naming `what`.
inline Status CheckCuda(cudaError_t error, const char* what) {
  return error == cudaSuccess ? Status::Ok() : CudaError(error, what);
}

// Device memory, freed with the object.
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  ~DeviceBuffer() {
    if (pointer_ != nullptr) cudaFree(pointer_);
  }
  Status Allocate(std::uint64_t bytes) {
    bytes_ = bytes;
    return CheckCuda(cudaMalloc(&pointer_, bytes == 0 ? 1 : bytes), "malloc");
  }
  // A synchronous copy of `bytes` from the host to the buffer's start.
  Status Upload(const void* host, std::uint64_t bytes) {
    if (bytes == 0) return Status::Ok();
    return CheckCuda(cudaMemcpy(pointer_, host, bytes, cudaMemcpyHostToDevice), "copy to device");
  }
  template <typename T>
  T* as() const {
    return static_cast<T*>(pointer_);
  }
  std::uint64_t bytes() const { return bytes_; }

 private:
  void* pointer_ = nullptr;
  std::uint64_t bytes_ = 0;
};

// Page-locked host memory (the GPU copies it at full speed, asynchronously),
// shared so that buffers handed to other threads keep it alive.
Result<std::shared_ptr<std::uint8_t>> AllocatePinned(std::uint64_t bytes);

// A stream that does not synchronize with the legacy default stream.
class CudaStream {
 public:
  CudaStream() = default;
  CudaStream(const CudaStream&) = delete;
  CudaStream& operator=(const CudaStream&) = delete;
  ~CudaStream() {
    if (stream_ != nullptr) cudaStreamDestroy(stream_);
  }
  Status Create() {
    return CheckCuda(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "stream create");
  }
  cudaStream_t get() const { return stream_; }

 private:
  cudaStream_t stream_ = nullptr;
};

// An event with timing, to order streams and to time stages.
class CudaEvent {
 public:
  CudaEvent() = default;
  CudaEvent(const CudaEvent&) = delete;
  CudaEvent& operator=(const CudaEvent&) = delete;
  ~CudaEvent() {
    if (event_ != nullptr) cudaEventDestroy(event_);
  }
  Status Create() { return CheckCuda(cudaEventCreate(&event_), "event create"); }
  cudaEvent_t get() const { return event_; }

 private:
  cudaEvent_t event_ = nullptr;
};

}  // namespace chunkwise::cuda

#endif  // CHUNKWISE_CUDA_CUDA_RESOURCES_H_
