// chunkwise mesh: surface meshes and segment properties of a label volume,
// written into a precomputed segmentation (facade/meshes.h).
#include <cstdio>
#include <nlohmann/json.hpp>

#include "chunkwise/chunkwise.h"
#include "cli/command.h"
#include "cli/vocabulary.h"

namespace chunkwise::cli {
namespace {

struct MeshCommandOptions {
  std::string source;
  std::string dest;
  std::string format = "legacy";
  std::string labels;
  std::string names;
  std::string chunk;
  int lods = 3;
  double simplification_factor = MeshOptions{}.simplification_factor;
  double max_simplification_error = MeshOptions{}.max_simplification_error;
  std::size_t threads = 0;
  bool overwrite = false;
  bool json = false;
};

Status MeshCommand(const CommandContext& context, const MeshCommandOptions& options) {
  MeshOptions mesh;
  mesh.format = options.format;
  mesh.names_csv = options.names;
  mesh.overwrite = options.overwrite;
  mesh.lods = options.lods;
  mesh.simplification_factor = options.simplification_factor;
  mesh.max_simplification_error = options.max_simplification_error;
  if (!options.chunk.empty()) {
    CHUNKWISE_ASSIGN_OR_RETURN(const core::Shape chunk, ParseArrayShape(options.chunk));
    if (chunk.size() != 3) {
      return Status::InvalidArgument("--chunk takes z,y,x, not \"" + options.chunk + "\"");
    }
    mesh.chunk = {chunk[0], chunk[1], chunk[2]};
  }
  if (!options.labels.empty()) {
    CHUNKWISE_ASSIGN_OR_RETURN(mesh.labels, ParseLabelList(options.labels));
  }
  // Under mpirun or srun, one rank of the job (docs/scale.md); else the process alone.
  CHUNKWISE_ASSIGN_OR_RETURN(const std::unique_ptr<Communicator> ranks, JoinJobRanks());
  mesh.ranks = ranks.get();
  const CallOptions call{.threads = options.threads, .progress_mode = context.progress_mode()};
  CHUNKWISE_ASSIGN_OR_RETURN(
      const MeshSummary summary,
      GenerateMeshes(context.library(), options.source, options.dest, mesh, call));
  if (ranks->rank() != 0) return Status::Ok();  // Rank 0 reports the job.
  if (options.json) {
    const nlohmann::ordered_json out = {{"segments", summary.segments},
                                        {"vertices", summary.vertices},
                                        {"triangles", summary.triangles},
                                        {"bytes", summary.bytes},
                                        {"voxels", summary.voxels},
                                        {"mesh", summary.mesh_dir},
                                        {"segment_properties", summary.properties_dir}};
    std::printf("%s\n", out.dump().c_str());
    return Status::Ok();
  }
  if (summary.mesh_dir.empty()) {  // --format vectors: a store of its own
    Say(context, "meshed " + std::to_string(summary.segments) + " segments of " + options.source +
                     ": " + std::to_string(summary.vertices) + " vertices, " +
                     std::to_string(summary.triangles) + " triangles in the zarr-vectors store " +
                     options.dest);
    return Status::Ok();
  }
  Say(context, "meshed " + std::to_string(summary.segments) + " segments of " + options.source +
                   ": " + std::to_string(summary.triangles) + " triangles, " +
                   FormatBytes(static_cast<double>(summary.bytes)) + " in " + options.dest + "/" +
                   summary.mesh_dir + ", segment properties in " + options.dest + "/" +
                   summary.properties_dir);
  return Status::Ok();
}

}  // namespace

void AddMeshCommand(CLI::App& app, CommandContext& context) {
  auto options = std::make_shared<MeshCommandOptions>();
  CLI::App* command = app.add_subcommand(
      "mesh", "Surface meshes and segment properties of labels, into a precomputed segmentation");
  command
      ->add_option("SRC", options->source,
                   StoreHelp("Labels: a 3-d zarr array (z,y,x) or a precomputed segmentation",
                             "s3://bucket/labels.zarr"))
      ->required();
  command
      ->add_option("DEST", options->dest,
                   StoreHelp("The precomputed segmentation that gets the meshes (may be SRC)",
                             "s3://bucket/volume"))
      ->required();
  command
      ->add_option("--format", options->format,
                   "legacy (single-resolution), multires (levels of detail, Draco), "
                   "multires-sharded (the same in shard files) or vectors (a zarr-vectors "
                   "mesh store at DEST); default legacy")
      ->check(CLI::IsMember({"legacy", "multires", "multires-sharded", "vectors"}));
  command->add_option("--lods", options->lods,
                      "multires: levels of detail at most; vectors: the store's resolution "
                      "levels; 1 to 16 (default 3)");
  command->add_option("--chunk", options->chunk,
                      "Voxels meshed at a time, z,y,x (default 128,128,128); multires: the "
                      "fragments of the finest level");
  command->add_option("--simplification-factor", options->simplification_factor,
                      "Simplify each mesh down to 1/FACTOR of its triangles at most (default "
                      "100; 0 or 1: only the error bounds it)");
  command->add_option("--max-simplification-error,--max-error", options->max_simplification_error,
                      "How far simplification may move a vertex from the surface, in the "
                      "destination's physical units (nm; default 40; 0: no simplification)");
  command->add_option("--labels", options->labels, "Only these labels, e.g. 3,17,40");
  command->add_option("--names", options->names,
                      "CSV of id,name[,tags] rows: segment names and tags (tags split by ';')");
  AddThreadsOption(command, options->threads, "Worker threads (default: one per core)");
  command->add_flag("--overwrite", options->overwrite,
                    "Replace meshes and segment properties DEST already has");
  AddJsonFlag(command, options->json);
  SetAction(command, context, [&context, options] { return MeshCommand(context, *options); });
}

}  // namespace chunkwise::cli
