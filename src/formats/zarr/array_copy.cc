#include "chunkwise/formats/zarr/array_copy.h"

#include <string>

#include "chunkwise/core/ravel.h"

namespace chunkwise::formats::zarr {

Status CopyArray(const Array& source, Array& destination, core::ThreadPool& pool) {
  return CopyArrayPart(source, destination, pool, 0, 1);
}

Status CopyArrayPart(const Array& source, Array& destination, core::ThreadPool& pool, int rank,
                     int ranks) {
  if (source.metadata().shape != destination.metadata().shape ||
      source.metadata().data_type != destination.metadata().data_type) {
    return Status::InvalidArgument(
        "cannot copy an array of shape [" + core::FormatShape(source.metadata().shape) + "] " +
        std::string(source.metadata().data_type.zarr_name()) + " into one of shape [" +
        core::FormatShape(destination.metadata().shape) + "] " +
        std::string(destination.metadata().data_type.zarr_name()));
  }
  const core::RegularChunkGrid& grid = destination.grid();
  // This rank's objects: every ranks-th index from its own.
  const auto total = static_cast<std::size_t>(grid.num_chunks());
  const auto first = static_cast<std::size_t>(rank);
  const auto stride = static_cast<std::size_t>(ranks);
  const std::size_t mine = total > first ? (total - first + stride - 1) / stride : 0;
  return pool.ParallelFor(mine, [&](std::size_t k) {
    const std::size_t i = first + k * stride;  // core::OwnerRank(i, ranks) == rank.
    const core::Coord chunk = core::Unravel(static_cast<core::Index>(i), grid.grid_shape());
    const core::Region region = grid.ChunkRegion(chunk);
    CHUNKWISE_ASSIGN_OR_RETURN(Bytes data, source.Read(region));
    return destination.Write(region, data);
  });
}

}  // namespace chunkwise::formats::zarr
