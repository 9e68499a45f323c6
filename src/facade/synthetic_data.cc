#include "chunkwise/facade/synthetic_data.h"

#include <cstring>
#include <vector>

#include "core/synthetic_volume.h"

namespace chunkwise {
namespace {

// `values` as a C-order array of `typestr` and `shape`.
template <typename T>  // uint64 labels or uint16 frames
Result<core::NpyArray> AsArray(const std::vector<T>& values, const char* typestr,
                               const core::Shape& shape) {
  core::NpyArray array;
  CHUNKWISE_ASSIGN_OR_RETURN(array.dtype, core::NpyDtype::FromTypestr(typestr));
  array.shape = shape;
  array.fortran_order = false;
  array.data.resize(values.size() * sizeof(T));
  std::memcpy(array.data.data(), values.data(), array.data.size());
  return array;
}

}  // namespace

Result<DemoVolume> GenerateDemoVolume(const Context& context, const DemoVolumeSpec& spec,
                                      const CallOptions& call) {
  if (spec.shape.size() != 3) {
    return Status::InvalidArgument("the demo volume's shape needs three extents z,y,x, not [" +
                                   core::FormatShape(spec.shape) + "]");
  }
  CHUNKWISE_RETURN_IF_ERROR(context.CheckCancelled(call, "drawing neurons"));
  core::NeuronVolumeOptions volume;
  volume.shape = {spec.shape[0], spec.shape[1], spec.shape[2]};
  volume.neuron_count = spec.neurons;
  volume.seed = spec.seed;
  std::unique_ptr<core::ProgressReporter> neurons = context.StartProgress(
      call, "neurons", static_cast<std::uint64_t>(std::max(spec.neurons, 0)), "neurons");
  volume.progress = neurons.get();
  CHUNKWISE_ASSIGN_OR_RETURN(const std::vector<std::uint64_t> labels,
                             core::GenerateNeuronLabels(volume));
  neurons->Finish();
  DemoVolume result;
  CHUNKWISE_ASSIGN_OR_RETURN(result.labels, AsArray(labels, "<u8", spec.shape));
  if (!spec.frames) return result;
  CHUNKWISE_RETURN_IF_ERROR(context.CheckCancelled(call, "rendering frames"));
  core::MicroscopyFrameOptions frame_options;
  frame_options.seed = spec.seed + 1;
  std::unique_ptr<core::ProgressReporter> frames =
      context.StartProgress(call, "frames", static_cast<std::uint64_t>(spec.shape[0]), "frames");
  frame_options.progress = frames.get();
  const std::vector<std::uint16_t> rendered =
      core::RenderMicroscopyFrames(labels, volume.shape, frame_options);
  frames->Finish();
  CHUNKWISE_ASSIGN_OR_RETURN(result.frames, AsArray(rendered, "<u2", spec.shape));
  return result;
}

}  // namespace chunkwise
