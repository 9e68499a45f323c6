// The facade's Labelmap handle wrapped around, and unwrapped to, the format's
// labelmap (formats/dvid), and the plain values converted between the two.
#ifndef CHUNKWISE_FACADE_LABELMAP_ACCESS_H_
#define CHUNKWISE_FACADE_LABELMAP_ACCESS_H_

#include <memory>

#include "chunkwise/facade/labelmap.h"
#include "formats/dvid/labelmap.h"

namespace chunkwise {

class LabelmapAccess {
 public:
  static Labelmap Wrap(std::shared_ptr<formats::dvid::Labelmap> held) {
    Labelmap wrapped;
    wrapped.held_ = std::move(held);
    return wrapped;
  }
  // REQUIRES: `labelmap` came from Wrap (every Labelmap does: it has no
  // public constructor) and was not moved from.
  static formats::dvid::Labelmap& Held(const Labelmap& labelmap) { return *labelmap.held_; }
};

inline formats::dvid::VoxelBox ToFormat(const VoxelBox& box) { return {box.offset, box.shape}; }
inline VoxelBox FromFormat(const formats::dvid::VoxelBox& box) { return {box.offset, box.shape}; }
inline formats::dvid::BlockCoord ToFormat(const LabelBlockCoord& coord) {
  return {coord.x, coord.y, coord.z};
}

}  // namespace chunkwise

#endif  // CHUNKWISE_FACADE_LABELMAP_ACCESS_H_
