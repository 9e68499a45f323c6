#include "core/chunk_grid.h"

#include <algorithm>
#include <utility>

#include "chunkwise/core/check.h"

namespace chunkwise::core {

Result<RegularChunkGrid> RegularChunkGrid::Create(Shape array_shape, Shape chunk_shape) {
  const std::string context =
      "chunk grid of shape " + FormatShape(array_shape) + " and chunks " + FormatShape(chunk_shape);
  if (array_shape.size() != chunk_shape.size()) {
    return Status::InvalidArgument(context + ": ranks differ");
  }
  Shape grid_shape(array_shape.size());
  for (std::size_t d = 0; d < array_shape.size(); ++d) {
    if (array_shape[d] < 0) {
      return Status::InvalidArgument(context + ": array dimension " + std::to_string(d) +
                                     " is negative");
    }
    if (chunk_shape[d] <= 0) {
      return Status::InvalidArgument(context + ": chunk dimension " + std::to_string(d) +
                                     " is not positive");
    }
    grid_shape[d] = CeilDiv(array_shape[d], chunk_shape[d]);
    // Edge chunks reach to grid·chunk; every unclipped box must be representable.
    if (!CheckedMultiply(grid_shape[d], chunk_shape[d])) {
      return Status::OutOfRange(context + ": dimension " + std::to_string(d) +
                                " padded to whole chunks overflows");
    }
  }
  Result<Index> num_chunks = NumElements(grid_shape);
  if (!num_chunks.ok()) return num_chunks.status().WithContext(context);
  return RegularChunkGrid(std::move(array_shape), std::move(chunk_shape), std::move(grid_shape),
                          *num_chunks);
}

bool RegularChunkGrid::ContainsChunk(std::span<const Index> chunk) const {
  CHUNKWISE_CHECK(chunk.size() == grid_shape_.size());
  for (std::size_t d = 0; d < chunk.size(); ++d) {
    if (chunk[d] < 0 || chunk[d] >= grid_shape_[d]) return false;
  }
  return true;
}

Coord RegularChunkGrid::ChunkOrigin(std::span<const Index> chunk) const {
  CHUNKWISE_CHECK(ContainsChunk(chunk));
  Coord origin(chunk.size());
  for (std::size_t d = 0; d < chunk.size(); ++d) origin[d] = chunk[d] * chunk_shape_[d];
  return origin;
}

Region RegularChunkGrid::UnclippedChunkRegion(std::span<const Index> chunk) const {
  return Region::FromOriginAndShape(ChunkOrigin(chunk), chunk_shape_);
}

Region RegularChunkGrid::ChunkRegion(std::span<const Index> chunk) const {
  Coord start = ChunkOrigin(chunk);
  Coord stop(start.size());
  for (std::size_t d = 0; d < start.size(); ++d) {
    stop[d] = std::min(start[d] + chunk_shape_[d], array_shape_[d]);
  }
  return Region(std::move(start), std::move(stop));
}

Coord RegularChunkGrid::ChunkCoordOf(std::span<const Index> coord) const {
  CHUNKWISE_CHECK(Region::Full(array_shape_).Contains(coord));
  Coord chunk(coord.size());
  for (std::size_t d = 0; d < coord.size(); ++d) chunk[d] = coord[d] / chunk_shape_[d];
  return chunk;
}

void RegularChunkGrid::CheckInArray(const Region& region) const {
  CHUNKWISE_CHECK(region.rank() == rank());
  CHUNKWISE_CHECK(Region::Full(array_shape_).Covers(region));
}

Region RegularChunkGrid::ChunkRangeFor(const Region& region) const {
  CheckInArray(region);
  if (region.IsEmpty()) return Region(Coord(grid_shape_.size(), 0), Coord(grid_shape_.size(), 0));
  Coord first(region.rank());
  Coord last(region.rank());
  for (int d = 0; d < region.rank(); ++d) {
    first[d] = region.start()[d] / chunk_shape_[d];
    last[d] = CeilDiv(region.stop()[d], chunk_shape_[d]);
  }
  return Region(std::move(first), std::move(last));
}

std::vector<Coord> RegularChunkGrid::ChunksIntersecting(const Region& region) const {
  const Region range = ChunkRangeFor(region);
  std::vector<Coord> chunks;
  if (range.IsEmpty()) return chunks;
  chunks.reserve(static_cast<std::size_t>(range.num_elements()));
  Coord chunk = range.start();
  do {
    chunks.push_back(chunk);
  } while (AdvanceOdometer(chunk, range.start(), range.stop()));
  return chunks;
}

std::optional<ChunkOverlap> RegularChunkGrid::Overlap(std::span<const Index> chunk,
                                                      const Region& region) const {
  CheckInArray(region);
  std::optional<Region> common = ChunkRegion(chunk).Intersect(region);
  if (!common) return std::nullopt;
  ChunkOverlap overlap;
  overlap.chunk.assign(chunk.begin(), chunk.end());
  overlap.chunk_local = common->RelativeTo(ChunkOrigin(chunk));
  overlap.region_local = common->RelativeTo(region.start());
  overlap.array = std::move(*common);
  return overlap;
}

Status RegularChunkGrid::ForEachChunkIn(
    const Region& region, const std::function<Status(const ChunkOverlap&)>& visit) const {
  const Region range = ChunkRangeFor(region);
  if (range.IsEmpty()) return Status::Ok();
  Coord chunk = range.start();
  do {
    std::optional<ChunkOverlap> overlap = Overlap(chunk, region);
    // Every chunk of the range meets the region: the range is its bounding box.
    CHUNKWISE_CHECK(overlap.has_value());
    CHUNKWISE_RETURN_IF_ERROR(visit(*overlap));
  } while (AdvanceOdometer(chunk, range.start(), range.stop()));
  return Status::Ok();
}

}  // namespace chunkwise::core
