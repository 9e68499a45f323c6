#include "numpy_bytes.h"

#include <nanobind/ndarray.h>

#include <cstdint>
#include <utility>

namespace nb = nanobind;

namespace chunkwise::python {

nb::object BytesToNumpy(Bytes bytes) {
  using ValueArray = nb::ndarray<nb::numpy, std::uint8_t, nb::ndim<1>>;
  auto* owned = new Bytes(std::move(bytes));
  owned->reserve(1);  // An empty value still gets a buffer to point at.
  nb::capsule owner(owned, [](void* pointer) noexcept { delete static_cast<Bytes*>(pointer); });
  return nb::cast(ValueArray(owned->data(), {owned->size()}, owner));
}

}  // namespace chunkwise::python
