#include "chunkwise/facade/zarr_array_updates.h"

#include <utility>

namespace chunkwise {

Status SetZarrAttributes(ZarrArray& array, const nlohmann::json& attributes) {
  return array.SetAttributes(attributes);
}

Status ResizeZarrArray(ZarrArray& array, const core::Shape& shape) { return array.Resize(shape); }

}  // namespace chunkwise
