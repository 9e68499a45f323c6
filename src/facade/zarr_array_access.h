// The facade's ZarrArray handle wrapped around, and unwrapped to, the
// library's array (formats/zarr), and the plain values converted between the
// two. Private to src/facade.
#ifndef CHUNKWISE_FACADE_ZARR_ARRAY_ACCESS_H_
#define CHUNKWISE_FACADE_ZARR_ARRAY_ACCESS_H_

#include <utility>

#include "chunkwise/facade/zarr_arrays.h"
#include "formats/zarr/array.h"
#include "formats/zarr/shard_index.h"

namespace chunkwise {

struct ZarrArray::Held {
  formats::zarr::Array array;
};

class ZarrArrayAccess {
 public:
  // The handle over `array`, its metadata read from it.
  static ZarrArray Wrap(formats::zarr::Array array);
  static Result<ZarrArray> Wrap(Result<formats::zarr::Array> array) {
    if (!array.ok()) return array.status();
    return Wrap(*std::move(array));
  }
  // REQUIRES: `array` was not moved from (every ZarrArray comes from Wrap).
  static formats::zarr::Array& Held(ZarrArray& array) { return array.held_->array; }
  static const formats::zarr::Array& Held(const ZarrArray& array) { return array.held_->array; }
  // Makes metadata() say what the held array's metadata says again, after a
  // call that changed it (attributes, shape).
  static void Refresh(ZarrArray& array);
};

// The facade's metadata of `array`: the fields ZarrArrayMetadata keeps.
ZarrArrayMetadata FacadeMetadata(const formats::zarr::Array& array);

inline formats::zarr::IndexLocation ToFormat(ZarrIndexLocation location) {
  return location == ZarrIndexLocation::kStart ? formats::zarr::IndexLocation::kStart
                                               : formats::zarr::IndexLocation::kEnd;
}

}  // namespace chunkwise

#endif  // CHUNKWISE_FACADE_ZARR_ARRAY_ACCESS_H_
