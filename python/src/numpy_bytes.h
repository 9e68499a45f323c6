// Bytes handed to Python as a numpy uint8 array without a copy.
#ifndef CHUNKWISE_PYTHON_NUMPY_BYTES_H_
#define CHUNKWISE_PYTHON_NUMPY_BYTES_H_

#include <nanobind/nanobind.h>

#include <memory>

#include "chunkwise/chunkwise.h"

namespace chunkwise::python {

// A 1-d numpy uint8 array that takes over `bytes`, freed when the array is.
nanobind::object BytesToNumpy(Bytes bytes);
// A read-only 1-d numpy uint8 array over `bytes`, which it keeps alive (one
// reference, dropped when the array is): the buffer is viewed, not copied.
nanobind::object SharedBytesToNumpy(std::shared_ptr<const Bytes> bytes);

}  // namespace chunkwise::python

#endif  // CHUNKWISE_PYTHON_NUMPY_BYTES_H_
