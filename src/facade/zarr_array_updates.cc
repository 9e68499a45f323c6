#include "chunkwise/facade/zarr_array_updates.h"

#include <utility>

#include "facade/zarr_array_access.h"

namespace chunkwise {

Status SetZarrAttributes(ZarrArray& array, const nlohmann::json& attributes) {
  const Status status = ZarrArrayAccess::Held(array).SetAttributes(attributes);
  ZarrArrayAccess::Refresh(array);
  return status;
}

Status ResizeZarrArray(ZarrArray& array, const core::Shape& shape) {
  const Status status = ZarrArrayAccess::Held(array).Resize(shape);
  ZarrArrayAccess::Refresh(array);
  return status;
}

}  // namespace chunkwise
