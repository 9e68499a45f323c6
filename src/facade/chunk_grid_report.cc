#include "chunkwise/facade/chunk_grid_report.h"

#include <cstdio>
#include <vector>

#include "chunkwise/core/morton.h"
#include "chunkwise/core/region.h"
#include "core/chunk_grid.h"
#include "core/shard_layout.h"

namespace chunkwise {
namespace {

// printf into a string, for the report's aligned columns.
template <typename... Args>
void AppendLine(std::string& text, const char* format, Args... args) {
  char line[512];
  std::snprintf(line, sizeof(line), format, args...);
  text += line;
  text += '\n';
}

Status AppendShardLayout(const ChunkGridQuery& query, std::string& text) {
  const core::Shape& tiles = *query.tiles_per_shard;
  if (tiles.size() != query.shape.size()) {
    return Status::InvalidArgument("the tiles per shard have " + std::to_string(tiles.size()) +
                                   " extents but the shape has " +
                                   std::to_string(query.shape.size()));
  }
  std::vector<core::DimensionSpec> dims;
  for (std::size_t d = 0; d < query.shape.size(); ++d) {
    dims.push_back({query.shape[d], query.chunks[d], tiles[d]});
  }
  CHUNKWISE_ASSIGN_OR_RETURN(const core::ShardLayout layout,
                             core::ShardLayout::Create(std::move(dims)));
  AppendLine(text, "tile counts        %s", core::FormatShape(layout.tile_count()).c_str());
  AppendLine(text, "shard counts       %s", core::FormatShape(layout.shard_count()).c_str());
  AppendLine(text, "tiles per shard    %lld",
             static_cast<long long>(layout.tiles_per_shard_total()));
  AppendLine(text, "tiles per epoch    %lld (padded %lld)",
             static_cast<long long>(layout.epoch_tile_count()),
             static_cast<long long>(layout.padded_epoch_tile_count()));
  AppendLine(text, "active shards      %lld", static_cast<long long>(layout.active_shard_count()));
  AppendLine(text, "shard index bytes  %lld",
             16 * static_cast<long long>(layout.tiles_per_shard_total()) + 4);
  return Status::Ok();
}

Result<core::GridCoord3> Xyz(const core::Shape& values, const char* what) {
  if (values.size() != 3) {
    return Status::InvalidArgument(std::string(what) + " needs three values x,y,z");
  }
  return core::GridCoord3{values[0], values[1], values[2]};
}

}  // namespace

Result<std::string> DescribeChunkGrid(const ChunkGridQuery& query) {
  CHUNKWISE_ASSIGN_OR_RETURN(const core::RegularChunkGrid grid,
                             core::RegularChunkGrid::Create(query.shape, query.chunks));
  std::string text;
  AppendLine(text, "array shape        %s", core::FormatShape(grid.array_shape()).c_str());
  AppendLine(text, "chunk shape        %s", core::FormatShape(grid.chunk_shape()).c_str());
  AppendLine(text, "chunk grid         %s (%lld chunks)",
             core::FormatShape(grid.grid_shape()).c_str(),
             static_cast<long long>(grid.num_chunks()));
  if (query.tiles_per_shard) CHUNKWISE_RETURN_IF_ERROR(AppendShardLayout(query, text));
  if (query.region.empty()) return text;
  CHUNKWISE_ASSIGN_OR_RETURN(const core::Region region,
                             core::ParseRegion(query.region, query.shape));
  const std::vector<core::Coord> chunks = grid.ChunksIntersecting(region);
  AppendLine(text, "region %s touches %zu chunks:", region.ToString().c_str(), chunks.size());
  for (const core::Coord& coord : chunks) {
    const std::optional<core::ChunkOverlap> overlap = grid.Overlap(coord, region);
    AppendLine(text, "  chunk %-14s array %-24s within chunk %s", core::FormatShape(coord).c_str(),
               overlap->array.ToString().c_str(), overlap->chunk_local.ToString().c_str());
  }
  return text;
}

Result<std::uint64_t> CompressedMortonCode(const core::Shape& grid_xyz, const core::Shape& xyz) {
  CHUNKWISE_ASSIGN_OR_RETURN(const core::GridCoord3 grid, Xyz(grid_xyz, "the grid"));
  CHUNKWISE_ASSIGN_OR_RETURN(const core::GridCoord3 coord, Xyz(xyz, "the chunk"));
  CHUNKWISE_ASSIGN_OR_RETURN(const core::MortonBits bits, core::MortonBits::FromGrid(grid));
  for (int d = 0; d < 3; ++d) {
    if (coord[d] < 0 || coord[d] >= grid[d]) {
      return Status::OutOfRange("the chunk " + core::FormatShape(xyz) + " lies outside the grid " +
                                core::FormatShape(grid_xyz));
    }
  }
  return core::CompressedMortonCode(coord, bits);
}

Result<core::Shape> DecodeCompressedMortonCode(const core::Shape& grid_xyz, std::uint64_t code) {
  CHUNKWISE_ASSIGN_OR_RETURN(const core::GridCoord3 grid, Xyz(grid_xyz, "the grid"));
  CHUNKWISE_ASSIGN_OR_RETURN(const core::MortonBits bits, core::MortonBits::FromGrid(grid));
  const core::GridCoord3 xyz = core::DecodeCompressedMorton(code, bits);
  return core::Shape{xyz[0], xyz[1], xyz[2]};
}

}  // namespace chunkwise
