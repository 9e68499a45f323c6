// Synthetic datasets that look like what chunkwise's users store: a
// segmentation of neurons (uint64 labels, mostly large smooth objects) and
// electron-microscopy-like frames (uint16, dark membranes at label
// boundaries, textured cytoplasm, sensor noise).
//
// Used by the demo, the benchmarks and the tests. Generation is
// deterministic for a given seed, so figures are comparable between runs.
#ifndef CHUNKWISE_CORE_SYNTHETIC_VOLUME_H_
#define CHUNKWISE_CORE_SYNTHETIC_VOLUME_H_

#include <array>
#include <cstdint>
#include <vector>

#include "chunkwise/core/progress.h"
#include "chunkwise/core/result.h"

namespace chunkwise::core {

struct NeuronVolumeOptions {
  std::array<std::int64_t, 3> shape = {128, 256, 256};  // z, y, x
  int neuron_count = 40;
  int branches_per_neuron = 6;
  std::uint64_t seed = 1;
  // Labels are spread over a wide range, as agglomerated DVID ids are.
  std::uint64_t first_label = 1'000'000;
  // Told of each neuron drawn (one unit each); optional.
  ProgressReporter* progress = nullptr;
};

// A z,y,x C-order uint64 label volume: each neuron is a soma (sphere) with
// branching tubes that thin as they go; 0 is extracellular space.
// InvalidArgument if a dimension is not positive or the volume is over 2^34 voxels.
Result<std::vector<std::uint64_t>> GenerateNeuronLabels(const NeuronVolumeOptions& options);

struct MicroscopyFrameOptions {
  std::uint16_t membrane_level = 600;
  std::uint16_t cytoplasm_level = 2600;
  std::uint16_t background_level = 1800;
  std::uint16_t noise_sigma = 120;
  std::uint64_t seed = 2;
  // Told of each frame rendered (one unit each); optional.
  ProgressReporter* progress = nullptr;
};

// Frames (z = time or section) rendered from `labels` of the given shape:
// membranes where a voxel's label differs from a neighbour's, texture inside
// objects, Gaussian noise everywhere, 12-bit range. REQUIRES: labels.size()
// equals the product of shape.
std::vector<std::uint16_t> RenderMicroscopyFrames(const std::vector<std::uint64_t>& labels,
                                                  const std::array<std::int64_t, 3>& shape,
                                                  const MicroscopyFrameOptions& options);

}  // namespace chunkwise::core

#endif  // CHUNKWISE_CORE_SYNTHETIC_VOLUME_H_
