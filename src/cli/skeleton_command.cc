// `chunkwise skeletonize SRC DEST`: TEASAR skeletons of a label volume as
// neuroglancer precomputed skeletons (sharded or not), SWC files or a
// zarr-vectors skeleton store (facade/skeletons.h).
#include <cstdio>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "cli/command.h"
#include "cli/vocabulary.h"

namespace chunkwise::cli {
namespace {

struct SkeletonizeFlags {
  std::string source;
  std::string dest;
  std::string format = "precomputed";
  std::vector<std::uint64_t> labels;
  double scale = SkeletonizeOptions{}.scale;
  double constant = SkeletonizeOptions{}.constant;
  std::vector<double> voxel_size;
  std::string directory = "skeletons";
  std::vector<double> chunk_shape;
  bool overwrite = false;
  double max_memory_mib = 0;
  std::size_t threads = 0;
};

Status SkeletonizeCommand(const CommandContext& context, const SkeletonizeFlags& flags) {
  SkeletonizeOptions options;
  CHUNKWISE_ASSIGN_OR_RETURN(options.format, ParseSkeletonFormat(flags.format));
  options.labels = flags.labels;
  options.scale = flags.scale;
  options.constant = flags.constant;
  if (!flags.voxel_size.empty()) {
    options.voxel_size =
        std::array<double, 3>{flags.voxel_size[0], flags.voxel_size[1], flags.voxel_size[2]};
  }
  options.directory = flags.directory;
  if (!flags.chunk_shape.empty()) {
    options.vectors_chunk_shape =
        std::array<double, 3>{flags.chunk_shape[0], flags.chunk_shape[1], flags.chunk_shape[2]};
  }
  options.overwrite = flags.overwrite;
  options.max_memory = static_cast<std::uint64_t>(flags.max_memory_mib * (1 << 20));
  // Under mpirun or srun, one rank of the job (docs/scale.md); else the process alone.
  CHUNKWISE_ASSIGN_OR_RETURN(const std::unique_ptr<Communicator> ranks, JoinJobRanks());
  options.ranks = ranks.get();
  CHUNKWISE_ASSIGN_OR_RETURN(const SkeletonizeSummary summary,
                             Skeletonize(context.library(), flags.source, flags.dest, options,
                                         {.threads = flags.threads}));
  if (ranks->rank() != 0) return Status::Ok();  // Rank 0 reports the job.
  char cable[64];
  std::snprintf(cable, sizeof cable, "%.6g", summary.cable_length);
  Say(context, "skeletonized " + std::to_string(summary.labels) + " labels (" +
                   std::to_string(summary.voxels) + " voxels) of " + flags.source + ": " +
                   std::to_string(summary.vertices) + " vertices, " +
                   std::to_string(summary.edges) + " edges, cable " + cable + " nm; wrote " +
                   std::to_string(summary.files) + " files (" +
                   FormatBytes(static_cast<double>(summary.bytes)) + ") to " + flags.dest +
                   (summary.prefix.empty() ? "" : "/" + summary.prefix));
  return Status::Ok();
}

}  // namespace

void AddSkeletonCommands(CLI::App& app, CommandContext& context) {
  auto flags = std::make_shared<SkeletonizeFlags>();
  CLI::App* command = app.add_subcommand(
      "skeletonize",
      "TEASAR skeletons of a 3-d label volume (zarr array or precomputed segmentation), written "
      "as neuroglancer precomputed skeletons or SWC files");
  command->add_option("SRC", flags->source, StoreHelp("Label volume", "s3://bucket/labels.zarr"))
      ->required();
  command
      ->add_option("DEST", flags->dest,
                   StoreHelp("Precomputed segmentation (skeletons go into it) or a directory",
                             "s3://bucket/segmentation"))
      ->required();
  command
      ->add_option("--format", flags->format,
                   "precomputed (default), precomputed-sharded (shard files), swc or vectors "
                   "(a zarr-vectors skeleton store at DEST)")
      ->check(CLI::IsMember({"precomputed", "precomputed-sharded", "swc", "vectors"}));
  command->add_option("--labels", flags->labels, "Labels to skeletonize, e.g. 3,17 (default: all)")
      ->delimiter(',');
  command->add_option("--scale", flags->scale,
                      "Invalidation ball: scale times the distance to the boundary (default 1.5)");
  command->add_option("--const", flags->constant,
                      "Invalidation ball: plus this many nanometres (default 300)");
  command
      ->add_option(
          "--voxel-size", flags->voxel_size,
          "Voxel size x,y,z in nm (default: a precomputed source's resolution, else 1,1,1)")
      ->delimiter(',')
      ->expected(3);
  command->add_option("--skeleton-dir", flags->directory,
                      "Folder of the segmentation for the skeletons (default skeletons)");
  command
      ->add_option("--chunk-shape", flags->chunk_shape,
                   "vectors: the store's chunk x,y,z in nm (default 128 voxels each)")
      ->delimiter(',')
      ->expected(3);
  command->add_flag("--overwrite", flags->overwrite, "Replace skeletons already in DEST");
  command->add_option("--max-memory", flags->max_memory_mib,
                      "The most one label may hold at once, in MiB (default 1024); a label "
                      "needing more (its bounding box padded by one voxel, 55 bytes a voxel) "
                      "is skeletonized in overlapping blocks that fit");
  AddThreadsOption(command, flags->threads, "Worker threads (default: one per core)");
  SetAction(command, context, [&context, flags] { return SkeletonizeCommand(context, *flags); });
}

}  // namespace chunkwise::cli
