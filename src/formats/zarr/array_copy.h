// Copying one zarr array into another (`zarr convert`), in bounded memory:
// one destination chunk (shard) per worker at a time, or between remote
// stores a group of objects (about 128 MiB) at a time, their requests in
// batches.
//
// The copy visits what the source stores, not its declared grid: from a store
// that lists every key, only the destination objects that meet a stored
// source chunk are read and written (a sparse array with a grid of 2^40
// chunks and three stored ones costs three chunks' work); the others would be
// all fill value and are not stored anyway. A sharded source is looked at
// through each stored shard's index: only the inner chunks it names count as
// stored, and each destination object is read and written only over the box
// that holds them (one small box stored in a shard of 32^3 inner chunks costs
// that box, not the shard). A store that cannot list them all (http) gets the
// walk of the whole grid.
#ifndef CHUNKWISE_FORMATS_ZARR_ARRAY_COPY_H_
#define CHUNKWISE_FORMATS_ZARR_ARRAY_COPY_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <unordered_set>
#include <vector>

#include "chunkwise/core/communicator.h"
#include "chunkwise/core/thread_pool.h"
#include "formats/zarr/array.h"

namespace chunkwise::formats::zarr {

// The objects (shards, else chunks) of the destination one rank writes.
struct ArrayCopyPlan {
  // Their C-order indices in the destination's grid, ascending. Nullopt: the
  // whole grid is walked, every ranks-th index from the rank's own.
  std::optional<std::vector<core::Index>> objects;
  // With `objects`, one box per object (in array coordinates, inside the
  // object): the bounding box of the stored source chunks (inner chunks of
  // a sharded source) that meet it. Only the box is read and written; the
  // rest of the object reads as fill value either way.
  std::optional<std::vector<core::Region>> boxes;
  int rank = 0;
  int ranks = 1;
  std::uint64_t bytes = 0;  // Elements × element size the rank writes (for progress).
};

// Rank `rank`'s part of copying `source` into an array described by
// `destination`, of the same shape and data type (InvalidArgument
// otherwise). Objects are dealt by core::OwnerRank of their C-order index
// (the index i goes to rank OwnerRank(i, ranks)), so the ranks' parts are
// disjoint, together the whole copy, and the same whatever order a listing
// came in. The grid is walked, not the listing, when the source's store
// cannot list every key, or when a chunk the source does not store would
// not read as the destination's fill value (a fill value that differs, or
// v2's null fill value, which stores every chunk).
// A sharded source's stored shards have their indexes read, in parallel on
// `pool` when given.
Result<ArrayCopyPlan> PlanArrayCopy(const Array& source, const ArrayMetadata& destination, int rank,
                                    int ranks, core::ThreadPool* pool = nullptr);

// How CopyArrayPlan runs after an earlier, unfinished copy, and a test seam.
struct ArrayCopyOptions {
  // Destination objects (C-order indices) to leave as they are, or null: in
  // a resumed copy into an array begun by Array::CreateUnpublished (found by
  // ResumeUnpublished), the objects it stores already (ListStoredObjects).
  // Each object is written whole, atomically, so one that is there is complete.
  const std::unordered_set<core::Index>* keep = nullptr;
  // Called with an object's key before it is written; its error fails the
  // copy (tests inject faults here, parallel::ShardFaultFromEnvironment).
  std::function<Status(const std::string& key)> before_object;
};

// Writes the objects of `plan` (made for `destination`'s metadata) with
// `source`'s elements, one object per task on `pool`. Where either array
// batches its requests (a remote store: Array::batches_reads,
// batches_writes), the objects go in groups of up to 1024 (about 128 MiB of
// elements) instead, each group one ReadChunks and one WriteChunks from the
// calling thread, so that each side's requests are batches on the wire and
// the arrays' pools only decode and encode. Objects that are all fill value
// are not stored.
Status CopyArrayPlan(const Array& source, Array& destination, const ArrayCopyPlan& plan,
                     core::ThreadPool& pool, const ArrayCopyOptions& options = {});

// Copies every element of `source` into `destination`, which must have the
// same shape and data type, one destination chunk (shard) per task on `pool`.
// Chunks that are all fill value in the source are not stored.
Status CopyArray(const Array& source, Array& destination, core::ThreadPool& pool);

// The part of that copy that rank `rank` of a job of `ranks` ranks does:
// PlanArrayCopy, then CopyArrayPlan.
Status CopyArrayPart(const Array& source, Array& destination, core::ThreadPool& pool, int rank,
                     int ranks);

}  // namespace chunkwise::formats::zarr

#endif  // CHUNKWISE_FORMATS_ZARR_ARRAY_COPY_H_
