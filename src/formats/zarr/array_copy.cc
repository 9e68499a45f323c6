#include "chunkwise/formats/zarr/array_copy.h"

#include <string>

#include "chunkwise/core/ravel.h"

namespace chunkwise::formats::zarr {

Status CopyArray(const Array& source, Array& destination, core::ThreadPool& pool) {
  if (source.metadata().shape != destination.metadata().shape ||
      source.metadata().data_type != destination.metadata().data_type) {
    return Status::InvalidArgument(
        "cannot copy an array of shape [" + core::FormatShape(source.metadata().shape) + "] " +
        std::string(source.metadata().data_type.zarr_name()) + " into one of shape [" +
        core::FormatShape(destination.metadata().shape) + "] " +
        std::string(destination.metadata().data_type.zarr_name()));
  }
  const core::RegularChunkGrid& grid = destination.grid();
  return pool.ParallelFor(static_cast<std::size_t>(grid.num_chunks()), [&](std::size_t i) {
    const core::Coord chunk = core::Unravel(static_cast<core::Index>(i), grid.grid_shape());
    const core::Region region = grid.ChunkRegion(chunk);
    CHUNKWISE_ASSIGN_OR_RETURN(Bytes data, source.Read(region));
    return destination.Write(region, data);
  });
}

}  // namespace chunkwise::formats::zarr
