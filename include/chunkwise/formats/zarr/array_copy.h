// Copying one zarr array into another (`zarr convert`), in bounded memory:
// one destination chunk (shard) per worker at a time.
#ifndef CHUNKWISE_FORMATS_ZARR_ARRAY_COPY_H_
#define CHUNKWISE_FORMATS_ZARR_ARRAY_COPY_H_

#include "chunkwise/core/thread_pool.h"
#include "chunkwise/formats/zarr/array.h"

namespace chunkwise::formats::zarr {

// Copies every element of `source` into `destination`, which must have the
// same shape and data type, one destination chunk (shard) per task on `pool`.
// Chunks that are all fill value in the source are not stored.
Status CopyArray(const Array& source, Array& destination, core::ThreadPool& pool);

}  // namespace chunkwise::formats::zarr

#endif  // CHUNKWISE_FORMATS_ZARR_ARRAY_COPY_H_
