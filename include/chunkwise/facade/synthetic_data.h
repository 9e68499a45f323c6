// The demo's dataset (`chunkwise generate`): a labelled volume of neurons
// (uint64) and, if asked, microscopy-like frames rendered from it (uint16),
// as arrays ready for io's WriteArrayFile (core/synthetic_volume.h draws them).
#ifndef CHUNKWISE_FACADE_SYNTHETIC_DATA_H_
#define CHUNKWISE_FACADE_SYNTHETIC_DATA_H_

#include <cstdint>
#include <optional>

#include "chunkwise/core/index.h"
#include "chunkwise/core/npy.h"
#include "chunkwise/facade/call_options.h"
#include "chunkwise/facade/context.h"

namespace chunkwise {

struct DemoVolumeSpec {
  core::Shape shape = {128, 256, 256};  // z, y, x.
  int neurons = 40;
  std::uint64_t seed = 1;  // The same seed gives the same data.
  bool frames = false;     // Also render the microscopy frames.
};

struct DemoVolume {
  core::NpyArray labels;                 // <u8, C order, `shape`.
  std::optional<core::NpyArray> frames;  // <u2, C order, `shape`; when asked for.
};

// Draws the volume, reporting neurons and then frames to the call's
// progress. InvalidArgument when the shape has not three extents or is too
// large to hold; Cancelled if the call was, before each part.
Result<DemoVolume> GenerateDemoVolume(const Context& context, const DemoVolumeSpec& spec,
                                      const CallOptions& call = {});

}  // namespace chunkwise

#endif  // CHUNKWISE_FACADE_SYNTHETIC_DATA_H_
