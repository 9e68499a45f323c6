// chunkwise grid / morton: show how an array is cut into chunks and shards.
#include <cstdio>

#include "chunkwise/chunkwise.h"
#include "cli/command.h"

namespace chunkwise::cli {
namespace {

struct GridOptions {
  std::string shape;
  std::string chunk;
  std::string tiles_per_shard;
  std::string region;
  std::string grid;
  std::string coord;
  std::uint64_t code = 0;
  bool decode = false;
};

// A list of extents from `flag`, named in its error.
Result<core::Shape> Extents(const std::string& text, const char* flag) {
  Result<core::Shape> shape = ParseArrayShape(text);
  if (!shape.ok()) return shape.status().WithContext(flag);
  return shape;
}

Status PrintGrid(const GridOptions& options) {
  ChunkGridQuery query;
  CHUNKWISE_ASSIGN_OR_RETURN(query.shape, Extents(options.shape, "--shape"));
  CHUNKWISE_ASSIGN_OR_RETURN(query.chunks, Extents(options.chunk, "--chunk"));
  if (!options.tiles_per_shard.empty()) {
    CHUNKWISE_ASSIGN_OR_RETURN(query.tiles_per_shard,
                               Extents(options.tiles_per_shard, "--tiles-per-shard"));
  }
  query.region = options.region;
  CHUNKWISE_ASSIGN_OR_RETURN(const std::string report, DescribeChunkGrid(query));
  std::fputs(report.c_str(), stdout);
  return Status::Ok();
}

Status PrintMorton(const GridOptions& options) {
  CHUNKWISE_ASSIGN_OR_RETURN(const core::Shape grid, Extents(options.grid, "--grid"));
  if (options.decode) {
    CHUNKWISE_ASSIGN_OR_RETURN(const core::Shape xyz,
                               DecodeCompressedMortonCode(grid, options.code));
    std::printf("%s\n", core::FormatShape(xyz).c_str());
    return Status::Ok();
  }
  CHUNKWISE_ASSIGN_OR_RETURN(const core::Shape xyz, Extents(options.coord, "--coord"));
  CHUNKWISE_ASSIGN_OR_RETURN(const std::uint64_t code, CompressedMortonCode(grid, xyz));
  std::printf("0x%llx\n", static_cast<unsigned long long>(code));
  return Status::Ok();
}

}  // namespace

void AddGridCommands(CLI::App& app, CommandContext& context) {
  auto options = std::make_shared<GridOptions>();
  CLI::App* grid = app.add_subcommand(
      "grid", "Show the chunk grid, shard layout and the chunks a region touches");
  grid->add_option("--shape", options->shape, "Array shape, e.g. 2132,2048,2048")->required();
  grid->add_option("--chunk", options->chunk, "Chunk (tile) shape")->required();
  grid->add_option("--tiles-per-shard", options->tiles_per_shard,
                   "Chunks per shard along each dimension");
  grid->add_option("--region", options->region, "A region such as 0:10,:,100:");
  SetAction(grid, context, [options] { return PrintGrid(*options); });

  CLI::App* morton =
      app.add_subcommand("morton", "Neuroglancer compressed Morton code of a chunk coordinate");
  morton->add_option("--grid", options->grid, "Grid size in chunks x,y,z")->required();
  morton->add_option("--coord", options->coord, "Chunk coordinate x,y,z");
  morton->add_option("--code", options->code, "A code to decode (with --decode)");
  morton->add_flag("--decode", options->decode, "Decode --code into x,y,z");
  SetAction(morton, context, [options] { return PrintMorton(*options); });
}

}  // namespace chunkwise::cli
