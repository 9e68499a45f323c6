// CHUNKWISE_HOST_DEVICE marks plain functions that both the CPU build and
// nvcc compile, so that a kernel and the library run literally the same code
// (the deterministic blosc-lz4 encoder, issue 9, relies on this to produce the
// same bytes on either side). Such functions use no std:: containers, no
// exceptions and no allocation; they take raw pointers with explicit bounds.
#ifndef CHUNKWISE_CORE_HOST_DEVICE_H_
#define CHUNKWISE_CORE_HOST_DEVICE_H_

#if defined(__CUDACC__)
#define CHUNKWISE_HOST_DEVICE __host__ __device__
#else
#define CHUNKWISE_HOST_DEVICE
#endif

#endif  // CHUNKWISE_CORE_HOST_DEVICE_H_
