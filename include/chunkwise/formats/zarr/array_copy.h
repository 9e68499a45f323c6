// Copying one zarr array into another (`zarr convert`), in bounded memory:
// one destination chunk (shard) per worker at a time.
#ifndef CHUNKWISE_FORMATS_ZARR_ARRAY_COPY_H_
#define CHUNKWISE_FORMATS_ZARR_ARRAY_COPY_H_

#include "chunkwise/core/communicator.h"
#include "chunkwise/core/thread_pool.h"
#include "chunkwise/formats/zarr/array.h"

namespace chunkwise::formats::zarr {

// Copies every element of `source` into `destination`, which must have the
// same shape and data type, one destination chunk (shard) per task on `pool`.
// Chunks that are all fill value in the source are not stored.
Status CopyArray(const Array& source, Array& destination, core::ThreadPool& pool);

// The part of that copy that rank `rank` of a job of `ranks` ranks does: the
// stored objects (shards, else chunks) of `destination` whose C-order index i
// has core::OwnerRank(i, ranks) == rank. The ranks' parts are disjoint and
// together the whole copy, so no two ranks write one object.
Status CopyArrayPart(const Array& source, Array& destination, core::ThreadPool& pool, int rank,
                     int ranks);

}  // namespace chunkwise::formats::zarr

#endif  // CHUNKWISE_FORMATS_ZARR_ARRAY_COPY_H_
