// chunkwise generate: the demo's realistic dataset (neurons and microscopy frames).
#include "chunkwise/chunkwise.h"
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

// .npy by extension, raw little-endian bytes otherwise, as every array output.
Status WriteVolume(const std::string& path, const core::NpyArray& array) {
  return io::WriteArrayFile(path, array, /*raw=*/!io::HasNpyExtension(path));
}

Status Generate(const CommandContext& context, const GenerateOptions& options) {
  DemoVolumeSpec spec;
  CHUNKWISE_ASSIGN_OR_RETURN(spec.shape, ParseArrayShape(options.shape));
  if (spec.shape.size() != 3) return Status::InvalidArgument("--shape needs three extents z,y,x");
  spec.neurons = options.neurons;
  spec.seed = options.seed;
  spec.frames = !options.frames_output.empty();
  CHUNKWISE_RETURN_IF_ERROR(io::CheckOutputPath(options.labels_output, options.overwrite));
  if (spec.frames) {
    CHUNKWISE_RETURN_IF_ERROR(io::CheckOutputPath(options.frames_output, options.overwrite));
  }
  CHUNKWISE_ASSIGN_OR_RETURN(const DemoVolume volume, GenerateDemoVolume(context.library(), spec));
  CHUNKWISE_RETURN_IF_ERROR(WriteVolume(options.labels_output, volume.labels));
  Say(context, "wrote " + options.labels_output + ": uint64 labels " +
                   core::FormatShape(spec.shape) + ", " + std::to_string(options.neurons) +
                   " neurons, " + FormatBytes(static_cast<double>(volume.labels.data.size())));
  if (!volume.frames) return Status::Ok();
  CHUNKWISE_RETURN_IF_ERROR(WriteVolume(options.frames_output, *volume.frames));
  Say(context, "wrote " + options.frames_output + ": uint16 microscopy frames " +
                   core::FormatShape(spec.shape) + ", " +
                   FormatBytes(static_cast<double>(volume.frames->data.size())));
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
