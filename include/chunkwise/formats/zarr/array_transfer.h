// Moving whole arrays in and out of zarr: from array files (.npy or raw), to
// array files, and from one zarr array to another (`zarr convert`).
//
// Each works in bounded memory where the data allows: imports read the input
// one slab of grid chunks (shards) along dimension 0 at a time, so every write
// but those at the edges covers whole shards and never reads; copies move one
// destination chunk (shard) per worker at a time.
#ifndef CHUNKWISE_FORMATS_ZARR_ARRAY_TRANSFER_H_
#define CHUNKWISE_FORMATS_ZARR_ARRAY_TRANSFER_H_

#include <filesystem>

#include "chunkwise/core/array_file.h"
#include "chunkwise/core/index.h"
#include "chunkwise/core/progress.h"
#include "chunkwise/core/region.h"
#include "chunkwise/formats/zarr/array.h"

namespace chunkwise::formats::zarr {

// Writes the array in `input` into `array` with its first element at
// `offset` (empty: the origin). InvalidArgument, naming the file, when its
// dtype differs from the array's (byte order aside), its rank differs, or it
// does not fit inside the array at `offset`; ReadArrayFile's errors otherwise.
Status ImportArrayFile(const std::filesystem::path& input, const core::ArrayFileHint& hint,
                       Array& array, const core::Coord& offset);

// Writes `region` of `array` to `output` (.npy, or raw little-endian when `raw`),
// atomically. The caller checks the --overwrite rule.
Status ExportRegion(const Array& array, const core::Region& region,
                    const std::filesystem::path& output, bool raw);

// Copies every element of `source` into `destination`, which must have the
// same shape and data type, one destination chunk (shard) per task on `pool`.
// Chunks that are all fill value in the source are not stored.
Status CopyArray(const Array& source, Array& destination, core::ThreadPool& pool);

}  // namespace chunkwise::formats::zarr

#endif  // CHUNKWISE_FORMATS_ZARR_ARRAY_TRANSFER_H_
