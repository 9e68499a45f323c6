#include "numpy_bytes.h"

#include <nanobind/ndarray.h>

#include <cstdint>
#include <memory>
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

nb::object SharedBytesToNumpy(std::shared_ptr<const Bytes> bytes) {
  // A const element type: numpy gets the array with writeable=False.
  using ReadOnlyArray = nb::ndarray<nb::numpy, const std::uint8_t, nb::ndim<1>>;
  static const std::uint8_t kNothing = 0;  // An empty buffer still has an address.
  const std::uint8_t* data = bytes->empty() ? &kNothing : bytes->data();
  const std::size_t size = bytes->size();
  using Owned = std::shared_ptr<const Bytes>;
  auto* owned = new Owned(std::move(bytes));
  nb::capsule owner(owned, [](void* pointer) noexcept { delete static_cast<Owned*>(pointer); });
  return nb::cast(ReadOnlyArray(data, {size}, owner));
}

}  // namespace chunkwise::python
