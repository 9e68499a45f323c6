// chunkwise generate: the demo's realistic dataset (neurons and microscopy frames).
#include <cstring>

#include "chunkwise/core/file_io.h"
#include "chunkwise/core/index.h"
#include "chunkwise/core/npy.h"
#include "chunkwise/core/synthetic_volume.h"
#include "chunkwise/io/array_file.h"
#include "chunkwise/io/file.h"
#include "cli/command.h"

namespace chunkwise::cli {
namespace {

struct GenerateOptions {
  std::string shape = "128,256,256";
  int neurons = 40;
  std::uint64_t seed = 1;
  std::string labels_output;
  std::string frames_output;
  bool overwrite = false;
};

template <typename T>  // uint64 labels or uint16 frames
Status WriteVolume(const std::string& path, const char* typestr, const std::vector<T>& values,
                   const std::array<std::int64_t, 3>& shape) {
  core::NpyArray array;
  CHUNKWISE_ASSIGN_OR_RETURN(array.dtype, core::NpyDtype::FromTypestr(typestr));
  array.shape.assign(shape.begin(), shape.end());
  array.fortran_order = false;
  array.data.resize(values.size() * sizeof(T));
  std::memcpy(array.data.data(), values.data(), array.data.size());
  // .npy by extension, raw little-endian bytes otherwise, as every array output.
  return io::WriteArrayFile(path, array, /*raw=*/!io::HasNpyExtension(path));
}

Status Generate(const CommandContext& context, const GenerateOptions& options) {
  CHUNKWISE_ASSIGN_OR_RETURN(core::Shape shape, core::ParseShape(options.shape));
  if (shape.size() != 3) return Status::InvalidArgument("--shape needs three extents z,y,x");
  CHUNKWISE_RETURN_IF_ERROR(io::CheckOutputPath(options.labels_output, options.overwrite));
  if (!options.frames_output.empty()) {
    CHUNKWISE_RETURN_IF_ERROR(io::CheckOutputPath(options.frames_output, options.overwrite));
  }
  core::NeuronVolumeOptions volume;
  volume.shape = {shape[0], shape[1], shape[2]};
  volume.neuron_count = options.neurons;
  volume.seed = options.seed;
  core::ProgressReporter neuron_progress(
      {"neurons", static_cast<std::uint64_t>(options.neurons), "neurons", context.progress_mode()});
  volume.progress = &neuron_progress;
  CHUNKWISE_ASSIGN_OR_RETURN(std::vector<std::uint64_t> labels, core::GenerateNeuronLabels(volume));
  neuron_progress.Finish();
  CHUNKWISE_RETURN_IF_ERROR(WriteVolume(options.labels_output, "<u8", labels, volume.shape));
  Say(context, "wrote " + options.labels_output + ": uint64 labels " + core::FormatShape(shape) +
                   ", " + std::to_string(options.neurons) + " neurons, " +
                   FormatBytes(static_cast<double>(labels.size() * 8)));
  if (options.frames_output.empty()) return Status::Ok();
  core::MicroscopyFrameOptions frame_options;
  frame_options.seed = options.seed + 1;
  core::ProgressReporter frame_progress(
      {"frames", static_cast<std::uint64_t>(shape[0]), "frames", context.progress_mode()});
  frame_options.progress = &frame_progress;
  const std::vector<std::uint16_t> frames =
      core::RenderMicroscopyFrames(labels, volume.shape, frame_options);
  frame_progress.Finish();
  CHUNKWISE_RETURN_IF_ERROR(WriteVolume(options.frames_output, "<u2", frames, volume.shape));
  Say(context, "wrote " + options.frames_output + ": uint16 microscopy frames " +
                   core::FormatShape(shape) + ", " +
                   FormatBytes(static_cast<double>(frames.size() * 2)));
  return Status::Ok();
}

}  // namespace

void AddGenerateCommands(CLI::App& app, CommandContext& context) {
  auto options = std::make_shared<GenerateOptions>();
  CLI::App* command = app.add_subcommand(
      "generate",
      "Generate a labelled volume of neurons (uint64) and microscopy-like frames (uint16)");
  command->add_option("--shape", options->shape, "z,y,x extents")->capture_default_str();
  command->add_option("--neurons", options->neurons, "Number of neurons")->capture_default_str();
  command->add_option("--seed", options->seed, "Random seed (same seed, same data)")
      ->capture_default_str();
  command
      ->add_option("--labels", options->labels_output,
                   "Output for the labels: .npy, or raw bytes for any other name")
      ->required();
  command->add_option("--frames", options->frames_output,
                      "Output for the frames (optional): .npy or raw");
  command->add_flag("--overwrite", options->overwrite, "Replace existing outputs");
  SetAction(command, context, [&context, options] { return Generate(context, *options); });
}

}  // namespace chunkwise::cli
