// chunkwise grid / morton: show how an array is cut into chunks and shards.
#include <cstdio>

#include "chunkwise/core/chunk_grid.h"
#include "chunkwise/core/index.h"
#include "chunkwise/core/morton.h"
#include "chunkwise/core/region.h"
#include "chunkwise/core/shard_layout.h"
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

Status PrintShardLayout(const core::Shape& shape, const core::Shape& chunk,
                        const std::string& text) {
  CHUNKWISE_ASSIGN_OR_RETURN(core::Shape tiles, core::ParseShape(text));
  if (tiles.size() != shape.size()) {
    return Status::InvalidArgument("--tiles-per-shard has " + std::to_string(tiles.size()) +
                                   " extents but --shape has " + std::to_string(shape.size()));
  }
  std::vector<core::DimensionSpec> dims;
  for (std::size_t d = 0; d < shape.size(); ++d) dims.push_back({shape[d], chunk[d], tiles[d]});
  CHUNKWISE_ASSIGN_OR_RETURN(core::ShardLayout layout, core::ShardLayout::Create(std::move(dims)));
  std::printf("tile counts        %s\n", core::FormatShape(layout.tile_count()).c_str());
  std::printf("shard counts       %s\n", core::FormatShape(layout.shard_count()).c_str());
  std::printf("tiles per shard    %lld\n", static_cast<long long>(layout.tiles_per_shard_total()));
  std::printf("tiles per epoch    %lld (padded %lld)\n",
              static_cast<long long>(layout.epoch_tile_count()),
              static_cast<long long>(layout.padded_epoch_tile_count()));
  std::printf("active shards      %lld\n", static_cast<long long>(layout.active_shard_count()));
  std::printf("shard index bytes  %lld\n",
              16 * static_cast<long long>(layout.tiles_per_shard_total()) + 4);
  return Status::Ok();
}

Status PrintGrid(const GridOptions& options) {
  CHUNKWISE_ASSIGN_OR_RETURN(core::Shape shape, core::ParseShape(options.shape));
  CHUNKWISE_ASSIGN_OR_RETURN(core::Shape chunk, core::ParseShape(options.chunk));
  CHUNKWISE_ASSIGN_OR_RETURN(core::RegularChunkGrid grid,
                             core::RegularChunkGrid::Create(shape, chunk));
  std::printf("array shape        %s\n", core::FormatShape(grid.array_shape()).c_str());
  std::printf("chunk shape        %s\n", core::FormatShape(grid.chunk_shape()).c_str());
  std::printf("chunk grid         %s (%lld chunks)\n", core::FormatShape(grid.grid_shape()).c_str(),
              static_cast<long long>(grid.num_chunks()));
  if (!options.tiles_per_shard.empty()) {
    CHUNKWISE_RETURN_IF_ERROR(PrintShardLayout(shape, chunk, options.tiles_per_shard));
  }
  if (options.region.empty()) return Status::Ok();
  CHUNKWISE_ASSIGN_OR_RETURN(core::Region region, core::ParseRegion(options.region, shape));
  const std::vector<core::Coord> chunks = grid.ChunksIntersecting(region);
  std::printf("region %s touches %zu chunks:\n", region.ToString().c_str(), chunks.size());
  for (const core::Coord& coord : chunks) {
    const std::optional<core::ChunkOverlap> overlap = grid.Overlap(coord, region);
    std::printf("  chunk %-14s array %-24s within chunk %s\n", core::FormatShape(coord).c_str(),
                overlap->array.ToString().c_str(), overlap->chunk_local.ToString().c_str());
  }
  return Status::Ok();
}

Result<core::GridCoord3> ParseXyz(const std::string& text, const char* flag) {
  CHUNKWISE_ASSIGN_OR_RETURN(core::Shape values, core::ParseShape(text));
  if (values.size() != 3)
    return Status::InvalidArgument(std::string(flag) + " needs three values x,y,z");
  return core::GridCoord3{values[0], values[1], values[2]};
}

Status PrintMorton(const GridOptions& options) {
  CHUNKWISE_ASSIGN_OR_RETURN(core::GridCoord3 grid, ParseXyz(options.grid, "--grid"));
  CHUNKWISE_ASSIGN_OR_RETURN(core::MortonBits bits, core::MortonBits::FromGrid(grid));
  if (options.decode) {
    const core::GridCoord3 xyz = core::DecodeCompressedMorton(options.code, bits);
    std::printf("%lld,%lld,%lld\n", static_cast<long long>(xyz[0]), static_cast<long long>(xyz[1]),
                static_cast<long long>(xyz[2]));
    return Status::Ok();
  }
  CHUNKWISE_ASSIGN_OR_RETURN(core::GridCoord3 xyz, ParseXyz(options.coord, "--coord"));
  for (int d = 0; d < 3; ++d) {
    if (xyz[d] < 0 || xyz[d] >= grid[d]) return Status::OutOfRange("--coord lies outside --grid");
  }
  std::printf("0x%llx\n", static_cast<unsigned long long>(core::CompressedMortonCode(xyz, bits)));
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
