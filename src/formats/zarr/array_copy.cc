#include "formats/zarr/array_copy.h"

#include <algorithm>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <unordered_set>
#include <utility>

#include "core/memory_limit.h"
#include "core/ravel.h"

namespace chunkwise::formats::zarr {
namespace {

using core::Region;

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

// The smallest box holding both `a` and `b`.
Region BoundingBox(const Region& a, const Region& b) {
  core::Coord start = a.start(), stop = a.stop();
  for (std::size_t d = 0; d < start.size(); ++d) {
    start[d] = std::min(start[d], b.start()[d]);
    stop[d] = std::max(stop[d], b.stop()[d]);
  }
  return Region(std::move(start), std::move(stop));
}

// The destination objects (their C-order indices) `rank` owns, each with the
// bounding box of the stored pieces of the source met so far inside it.
using ObjectBoxes = std::map<core::Index, Region>;

// Adds `piece` (a stored part of the source, in array coordinates) to the
// box of each object of `grid` it meets that `rank` owns.
void Meet(const Region& piece, const core::RegularChunkGrid& grid, int rank, int ranks,
          ObjectBoxes& boxes) {
  const Region range = grid.ChunkRangeFor(piece);
  if (range.IsEmpty()) return;
  core::Coord object = range.start();
  // Every coordinate of the box `range`, in C order.
  for (bool more = true; more;) {
    const core::Index i = core::Ravel(object, grid.grid_shape());
    if (core::OwnerRank(static_cast<std::uint64_t>(i), ranks) == rank) {
      const Region part = *piece.Intersect(grid.ChunkRegion(object));
      const auto [at, added] = boxes.try_emplace(i, part);
      if (!added) at->second = BoundingBox(at->second, part);
    }
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

// The region in the array (clipped to the shard `object`) of inner chunks
// [low, high] (inner grid coordinates, inclusive) of that shard.
Region InnerBox(const core::Coord& low, const core::Coord& high, const core::Shape& inner_shape,
                const Region& object) {
  core::Coord start(low.size()), stop(low.size());
  for (std::size_t d = 0; d < low.size(); ++d) {
    start[d] = std::min(object.start()[d] + low[d] * inner_shape[d], object.stop()[d]);
    stop[d] = std::min(object.start()[d] + (high[d] + 1) * inner_shape[d], object.stop()[d]);
  }
  return Region(std::move(start), std::move(stop));
}

// Meets the stored pieces of the source's stored object `index` with the
// objects of `grid`: a plain chunk is one piece; a shard's pieces are the
// inner chunks its index names, read once, never its declared inner grid
// beyond that index. When the box of all of them lies in one destination
// object (a layout kept or coarser), that box is the one piece.
// `shard_index`: the shard's index, read by the caller (a shard of a
// sharded source; nullopt: removed since it was listed).
Status MeetStoredObject(const Array& source, core::Index index,
                        const std::optional<ShardIndex>& shard_index,
                        const core::RegularChunkGrid& grid, int rank, int ranks,
                        ObjectBoxes& boxes) {
  const core::Coord coord = core::Unravel(index, source.grid().grid_shape());
  const Region object = source.grid().ChunkRegion(coord);
  if (source.sharding() == nullptr) {
    Meet(object, grid, rank, ranks, boxes);
    return Status::Ok();
  }
  if (!shard_index) return Status::Ok();  // Removed since it was listed.
  const core::RegularChunkGrid inner = source.sharding()->InnerGrid(source.metadata().chunk_shape);
  const core::Shape& inner_shape = source.sharding()->chunk_shape();
  const core::Shape& per_shard = inner.grid_shape();
  const std::size_t rank_of_array = per_shard.size();
  // The inner grid box of the stored entries, walking the index in C order.
  core::Coord low(rank_of_array, INT64_MAX), high(rank_of_array, -1), at(rank_of_array, 0);
  bool any = false;
  for (std::size_t k = 0; k < shard_index->size(); ++k) {
    if (!shard_index->at(k).empty()) {
      any = true;
      for (std::size_t d = 0; d < rank_of_array; ++d) {
        low[d] = std::min(low[d], at[d]);
        high[d] = std::max(high[d], at[d]);
      }
    }
    for (std::size_t d = rank_of_array; d-- > 0 && ++at[d] == per_shard[d];) at[d] = 0;
  }
  if (!any) return Status::Ok();  // An index of empty entries: nothing stored.
  const Region box = InnerBox(low, high, inner_shape, object);
  if (box.IsEmpty()) return Status::Ok();  // Entries past the array's edge only.
  if (grid.ChunkRangeFor(box).num_elements() == 1) {
    Meet(box, grid, rank, ranks, boxes);
    return Status::Ok();
  }
  // A finer destination: each stored inner chunk meets its own objects.
  for (std::size_t k = 0; k < shard_index->size(); ++k) {
    if (shard_index->at(k).empty()) continue;
    const core::Coord inner_chunk = core::Unravel(static_cast<core::Index>(k), per_shard);
    const Region piece = InnerBox(inner_chunk, inner_chunk, inner_shape, object);
    if (!piece.IsEmpty()) Meet(piece, grid, rank, ranks, boxes);
  }
  return Status::Ok();
}

// The objects of `grid` that meet a stored piece of the source (`stored`:
// indices of the source's stored objects) and that `rank` owns, ascending,
// each with the bounding box of the stored pieces it meets (clipped to it).
// A shard's index is a request: a sharded source's indexes are read
// kIndexBatch at a time (Array::ReadShardIndexes: in batches of requests on
// a remote store, else in parallel on the source's pool), and the stored
// objects met in parallel on `pool` (null: one after another), each into
// boxes of its own, merged after.
constexpr std::size_t kIndexBatch = 1024;

Status ObjectsMeetingStored(const Array& source, const std::vector<core::Index>& stored,
                            const core::RegularChunkGrid& grid, int rank, int ranks,
                            core::ThreadPool* pool, ArrayCopyPlan& plan) {
  ObjectBoxes boxes;
  std::mutex merging;
  std::vector<ShardIndexRead> indexes;  // Of the batch, when sharded.
  std::size_t first = 0;                // The batch's first object.
  const auto meet_one = [&](std::size_t s) -> Status {
    ObjectBoxes own;
    const std::optional<ShardIndex> none;
    CHUNKWISE_RETURN_IF_ERROR(MeetStoredObject(source, stored[first + s],
                                               indexes.empty() ? none : indexes[s].index, grid,
                                               rank, ranks, own));
    const std::lock_guard<std::mutex> lock(merging);
    for (auto& [i, box] : own) {
      const auto [at, added] = boxes.try_emplace(i, box);
      if (!added) at->second = BoundingBox(at->second, box);
    }
    return Status::Ok();
  };
  for (; first < stored.size(); first += kIndexBatch) {
    const std::size_t count = std::min(kIndexBatch, stored.size() - first);
    if (source.sharding() != nullptr) {
      std::vector<core::Coord> coords;
      for (std::size_t s = first; s < first + count; ++s) {
        coords.push_back(core::Unravel(stored[s], source.grid().grid_shape()));
      }
      CHUNKWISE_ASSIGN_OR_RETURN(indexes, source.ReadShardIndexes(coords));
    }
    if (pool != nullptr) {
      CHUNKWISE_RETURN_IF_ERROR(pool->ParallelFor(count, meet_one));
    } else {
      for (std::size_t s = 0; s < count; ++s) CHUNKWISE_RETURN_IF_ERROR(meet_one(s));
    }
  }
  plan.objects.emplace();
  plan.boxes.emplace();
  for (auto& [i, box] : boxes) {
    plan.objects->push_back(i);
    plan.boxes->push_back(std::move(box));
  }
  return Status::Ok();
}

}  // namespace

Result<ArrayCopyPlan> PlanArrayCopy(const Array& source, const ArrayMetadata& destination, int rank,
                                    int ranks, core::ThreadPool* pool) {
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
  CHUNKWISE_RETURN_IF_ERROR(ObjectsMeetingStored(source, *stored, grid, rank, ranks, pool, plan));
  for (const Region& box : *plan.boxes) {
    plan.bytes += static_cast<std::uint64_t>(box.num_elements()) * element_size;
  }
  return plan;
}

namespace {

// A group of a batched copy holds at most this many destination objects,
// and about this many bytes of their elements (one buffer).
constexpr std::size_t kGroupObjects = 1024;
constexpr std::uint64_t kGroupBytes = std::uint64_t{128} << 20;

// One destination object of a group: its grid index and the box copied.
struct CopiedObject {
  core::Index index = 0;
  Region box;
};

// Copies `group`'s boxes as one ReadChunks of the source and one
// WriteChunks of the destination, so that a remote store gets each side's
// requests as batches from this thread (decoding and encoding on the
// arrays' pools) instead of a pool thread per object. The boxes lie side
// by side along the first axis of one buffer.
Status CopyGroup(const Array& source, Array& destination, std::span<const CopiedObject> group,
                 const ArrayCopyOptions& options) {
  const core::RegularChunkGrid& from = source.grid();
  const core::RegularChunkGrid& to = destination.grid();
  const std::size_t rank = source.metadata().shape.size();
  core::Shape buffer_shape(rank, 0);
  std::vector<core::Index> offsets;  // Of each box along the first axis.
  for (const CopiedObject& object : group) {
    const core::Shape shape = object.box.shape();
    offsets.push_back(buffer_shape[0]);
    buffer_shape[0] += shape[0];
    for (std::size_t d = 1; d < rank; ++d) buffer_shape[d] = std::max(buffer_shape[d], shape[d]);
  }
  const std::uint64_t bytes =
      static_cast<std::uint64_t>(Region::Full(buffer_shape).num_elements()) *
      source.metadata().data_type.size();
  CHUNKWISE_RETURN_IF_ERROR(
      core::CheckAllocation(bytes, destination.Describe() + ": a copy's batch"));
  Bytes buffer(bytes);
  std::vector<ChunkTransfer> reads, writes;
  for (std::size_t j = 0; j < group.size(); ++j) {
    const Region& box = group[j].box;
    for (const core::Coord& chunk : from.ChunksIntersecting(box)) {
      const std::optional<Region> part = box.Intersect(from.ChunkRegion(chunk));
      if (!part) continue;
      core::Coord origin = part->RelativeTo(box.start()).start();
      origin[0] += offsets[j];
      reads.push_back({chunk, part->RelativeTo(from.ChunkOrigin(chunk)), std::move(origin)});
    }
    const core::Coord coord = core::Unravel(group[j].index, to.grid_shape());
    if (options.before_object) {
      CHUNKWISE_RETURN_IF_ERROR(options.before_object(destination.ChunkKey(coord)));
    }
    core::Coord origin(rank, 0);
    origin[0] = offsets[j];
    writes.push_back({coord, box.RelativeTo(to.ChunkOrigin(coord)), std::move(origin)});
  }
  CHUNKWISE_RETURN_IF_ERROR(source.ReadChunks(reads, buffer.data(), buffer_shape).status());
  return destination.WriteChunks(writes, buffer, buffer_shape);
}

// CopyArrayPlan's objects (object(k) for k < count) in groups (CopyGroup).
Status CopyInGroups(const Array& source, Array& destination, std::size_t count,
                    const std::function<CopiedObject(std::size_t)>& object,
                    const ArrayCopyOptions& options) {
  const std::uint64_t element = source.metadata().data_type.size();
  std::vector<CopiedObject> group;
  std::uint64_t bytes = 0;
  for (std::size_t k = 0; k < count; ++k) {
    CopiedObject next = object(k);
    if (options.keep != nullptr && options.keep->contains(next.index)) continue;
    bytes += static_cast<std::uint64_t>(next.box.num_elements()) * element;
    group.push_back(std::move(next));
    if (group.size() >= kGroupObjects || bytes >= kGroupBytes) {
      CHUNKWISE_RETURN_IF_ERROR(CopyGroup(source, destination, group, options));
      group.clear();
      bytes = 0;
    }
  }
  if (group.empty()) return Status::Ok();
  return CopyGroup(source, destination, group, options);
}

}  // namespace

Status CopyArrayPlan(const Array& source, Array& destination, const ArrayCopyPlan& plan,
                     core::ThreadPool& pool, const ArrayCopyOptions& options) {
  CHUNKWISE_RETURN_IF_ERROR(CheckSameArray(source.metadata(), destination.metadata()));
  const core::RegularChunkGrid& grid = destination.grid();
  // The rank's objects of the whole grid: every ranks-th index from its own.
  const auto total = static_cast<std::size_t>(grid.num_chunks());
  const auto first = static_cast<std::size_t>(plan.rank);
  const auto stride = static_cast<std::size_t>(plan.ranks);
  const std::size_t mine = total > first ? (total - first + stride - 1) / stride : 0;
  if ((source.batches_reads() || destination.batches_writes()) &&
      !source.metadata().shape.empty()) {
    // Either side remote: groups of objects, each side's requests a batch.
    if (plan.objects) {
      return CopyInGroups(
          source, destination, plan.objects->size(),
          [&](std::size_t k) {
            const core::Index i = (*plan.objects)[k];
            return CopiedObject{i, plan.boxes
                                       ? (*plan.boxes)[k]
                                       : grid.ChunkRegion(core::Unravel(i, grid.grid_shape()))};
          },
          options);
    }
    return CopyInGroups(
        source, destination, mine,
        [&](std::size_t k) {
          const auto i =
              static_cast<core::Index>(first + k * stride);  // OwnerRank(i, ranks) == rank.
          return CopiedObject{i, grid.ChunkRegion(core::Unravel(i, grid.grid_shape()))};
        },
        options);
  }
  // `box`: the part of object i the source stores anything in (null: all of
  // it). The rest reads as fill value, which a write leaves out anyway.
  const auto copy = [&](core::Index i, const Region* box) -> Status {
    if (options.keep != nullptr && options.keep->contains(i)) return Status::Ok();
    const core::Coord coord = core::Unravel(i, grid.grid_shape());
    if (options.before_object) {
      CHUNKWISE_RETURN_IF_ERROR(options.before_object(destination.ChunkKey(coord)));
    }
    const Region region = box != nullptr ? *box : grid.ChunkRegion(coord);
    CHUNKWISE_ASSIGN_OR_RETURN(Bytes data, source.Read(region));
    return destination.Write(region, data);
  };
  if (plan.objects) {
    return pool.ParallelFor(plan.objects->size(), [&](std::size_t k) {
      return copy((*plan.objects)[k], plan.boxes ? &(*plan.boxes)[k] : nullptr);
    });
  }
  return pool.ParallelFor(mine, [&](std::size_t k) {
    return copy(static_cast<core::Index>(first + k * stride),
                nullptr);  // OwnerRank(i, ranks) == rank.
  });
}

Status CopyArray(const Array& source, Array& destination, core::ThreadPool& pool) {
  return CopyArrayPart(source, destination, pool, 0, 1);
}

Status CopyArrayPart(const Array& source, Array& destination, core::ThreadPool& pool, int rank,
                     int ranks) {
  CHUNKWISE_ASSIGN_OR_RETURN(const ArrayCopyPlan plan,
                             PlanArrayCopy(source, destination.metadata(), rank, ranks, &pool));
  return CopyArrayPlan(source, destination, plan, pool);
}

}  // namespace chunkwise::formats::zarr
