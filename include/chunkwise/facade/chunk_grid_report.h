// Grid arithmetic for a person (`chunkwise grid` and `chunkwise morton`):
// an array's chunk grid, the stream writer's shard layout over it, the
// chunks a region touches, and neuroglancer's compressed Morton codes.
#ifndef CHUNKWISE_FACADE_CHUNK_GRID_REPORT_H_
#define CHUNKWISE_FACADE_CHUNK_GRID_REPORT_H_

#include <cstdint>
#include <optional>
#include <string>

#include "chunkwise/core/index.h"
#include "chunkwise/core/result.h"

namespace chunkwise {

struct ChunkGridQuery {
  core::Shape shape;
  core::Shape chunks;
  std::optional<core::Shape> tiles_per_shard;  // Also the shard layout's counts.
  std::string region;                          // Also the chunks "a:b,…" touches.
};

// The report as lines of text. InvalidArgument naming the field for shapes
// of different ranks, extents that are not positive, or a bad region.
Result<std::string> DescribeChunkGrid(const ChunkGridQuery& query);

// The compressed Morton code of chunk `xyz` in a grid of `grid_xyz` chunks
// (three values each). InvalidArgument for other counts; OutOfRange when
// the chunk lies outside the grid.
Result<std::uint64_t> CompressedMortonCode(const core::Shape& grid_xyz, const core::Shape& xyz);
// The chunk x,y,z a code names in a grid of `grid_xyz` chunks.
Result<core::Shape> DecodeCompressedMortonCode(const core::Shape& grid_xyz, std::uint64_t code);

}  // namespace chunkwise

#endif  // CHUNKWISE_FACADE_CHUNK_GRID_REPORT_H_
