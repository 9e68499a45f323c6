#include "formats/zarr/array_copy.h"

#include <algorithm>
#include <string>
#include <unordered_set>
#include <utility>

#include "chunkwise/core/ravel.h"
#include "core/memory_limit.h"

namespace chunkwise::formats::zarr {
namespace {

Status CheckSameArray(const ArrayMetadata& source, const ArrayMetadata& destination) {
  if (source.shape == destination.shape && source.data_type == destination.data_type) {
    return Status::Ok();
  }
  return Status::InvalidArgument(
      "cannot copy an array of shape [" + core::FormatShape(source.shape) + "] " +
      std::string(source.data_type.zarr_name()) + " into one of shape [" +
      core::FormatShape(destination.shape) + "] " + std::string(destination.data_type.zarr_name()));
}

// OutOfRange before the plan is made when the destination objects that meet
// the stored source objects would not fit in memory as a list: a destination
// chunked far finer than the source can meet billions of objects per chunk.
Status CheckPlanFits(const Array& source, const std::vector<core::Index>& stored,
                     const core::RegularChunkGrid& grid, int ranks) {
  std::uint64_t meetings = 0;
  for (const core::Index index : stored) {
    const core::Coord chunk = core::Unravel(index, source.grid().grid_shape());
    const auto count = static_cast<std::uint64_t>(
        grid.ChunkRangeFor(source.grid().ChunkRegion(chunk)).num_elements());
    meetings = UINT64_MAX - meetings < count ? UINT64_MAX : meetings + count;
  }
  const std::uint64_t owned = meetings / static_cast<std::uint64_t>(ranks) + 1;
  return core::CheckAllocation(core::SaturatingProduct(owned, sizeof(core::Index)),
                               "the copy plan of " + source.Describe() + " (" +
                                   std::to_string(owned) + " destination chunks meet its " +
                                   std::to_string(stored.size()) + " stored ones)");
}

// The C-order indices in `grid` of the objects that meet a stored source
// object (`stored`, indices in the source's grid) and that `rank` owns,
// ascending and each once.
std::vector<core::Index> ObjectsMeetingStored(const Array& source,
                                              const std::vector<core::Index>& stored,
                                              const core::RegularChunkGrid& grid, int rank,
                                              int ranks) {
  std::vector<core::Index> objects;
  for (const core::Index index : stored) {
    const core::Coord chunk = core::Unravel(index, source.grid().grid_shape());
    const core::Region range = grid.ChunkRangeFor(source.grid().ChunkRegion(chunk));
    core::Coord object = range.start();
    if (range.IsEmpty()) continue;
    // Every coordinate of the box `range`, in C order.
    for (bool more = true; more;) {
      const core::Index i = core::Ravel(object, grid.grid_shape());
      if (core::OwnerRank(static_cast<std::uint64_t>(i), ranks) == rank) objects.push_back(i);
      more = false;
      for (std::size_t d = object.size(); d-- > 0;) {
        if (++object[d] < range.stop()[d]) {
          more = true;
          break;
        }
        object[d] = range.start()[d];
      }
    }
  }
  // A destination object wider than a source chunk meets several of them.
  std::sort(objects.begin(), objects.end());
  objects.erase(std::unique(objects.begin(), objects.end()), objects.end());
  return objects;
}

}  // namespace

Result<ArrayCopyPlan> PlanArrayCopy(const Array& source, const ArrayMetadata& destination, int rank,
                                    int ranks) {
  CHUNKWISE_RETURN_IF_ERROR(CheckSameArray(source.metadata(), destination));
  ArrayCopyPlan plan;
  plan.rank = rank;
  plan.ranks = ranks;
  const std::uint64_t element_size = destination.data_type.size();
  // A chunk the source does not store reads as its fill value; left out of
  // the copy, it reads as the destination's.
  const bool unstored_reads_the_same =
      !destination.fill_value_null && destination.fill_value == source.metadata().fill_value;
  std::optional<std::vector<core::Index>> stored;
  if (unstored_reads_the_same) {
    CHUNKWISE_ASSIGN_OR_RETURN(stored, source.ListStoredObjects());
  }
  if (!stored) {
    const auto elements =
        static_cast<std::uint64_t>(core::Region::Full(destination.shape).num_elements());
    plan.bytes = elements * element_size / static_cast<std::uint64_t>(ranks);
    return plan;
  }
  CHUNKWISE_ASSIGN_OR_RETURN(
      const core::RegularChunkGrid grid,
      core::RegularChunkGrid::Create(destination.shape, destination.chunk_shape));
  CHUNKWISE_RETURN_IF_ERROR(CheckPlanFits(source, *stored, grid, ranks));
  plan.objects = ObjectsMeetingStored(source, *stored, grid, rank, ranks);
  for (const core::Index i : *plan.objects) {
    const core::Region region = grid.ChunkRegion(core::Unravel(i, grid.grid_shape()));
    plan.bytes += static_cast<std::uint64_t>(region.num_elements()) * element_size;
  }
  return plan;
}

Status CopyArrayPlan(const Array& source, Array& destination, const ArrayCopyPlan& plan,
                     core::ThreadPool& pool, const ArrayCopyOptions& options) {
  CHUNKWISE_RETURN_IF_ERROR(CheckSameArray(source.metadata(), destination.metadata()));
  const core::RegularChunkGrid& grid = destination.grid();
  const auto copy = [&](core::Index i) -> Status {
    if (options.keep != nullptr && options.keep->contains(i)) return Status::Ok();
    const core::Coord coord = core::Unravel(i, grid.grid_shape());
    if (options.before_object) {
      CHUNKWISE_RETURN_IF_ERROR(options.before_object(destination.ChunkKey(coord)));
    }
    const core::Region region = grid.ChunkRegion(coord);
    CHUNKWISE_ASSIGN_OR_RETURN(Bytes data, source.Read(region));
    return destination.Write(region, data);
  };
  if (plan.objects) {
    return pool.ParallelFor(plan.objects->size(),
                            [&](std::size_t k) { return copy((*plan.objects)[k]); });
  }
  // The rank's objects of the whole grid: every ranks-th index from its own.
  const auto total = static_cast<std::size_t>(grid.num_chunks());
  const auto first = static_cast<std::size_t>(plan.rank);
  const auto stride = static_cast<std::size_t>(plan.ranks);
  const std::size_t mine = total > first ? (total - first + stride - 1) / stride : 0;
  return pool.ParallelFor(mine, [&](std::size_t k) {
    return copy(static_cast<core::Index>(first + k * stride));  // OwnerRank(i, ranks) == rank.
  });
}

Status CopyArray(const Array& source, Array& destination, core::ThreadPool& pool) {
  return CopyArrayPart(source, destination, pool, 0, 1);
}

Status CopyArrayPart(const Array& source, Array& destination, core::ThreadPool& pool, int rank,
                     int ranks) {
  CHUNKWISE_ASSIGN_OR_RETURN(const ArrayCopyPlan plan,
                             PlanArrayCopy(source, destination.metadata(), rank, ranks));
  return CopyArrayPlan(source, destination, plan, pool);
}

}  // namespace chunkwise::formats::zarr
