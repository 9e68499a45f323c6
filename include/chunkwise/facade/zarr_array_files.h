// zarr arrays to and from array files (.npy or raw): `zarr write` and
// `zarr read` of an open ZarrArray.
//
// Thin: the library's import and export (src/io/zarr_array_files.h) over the
// array the ZarrArray holds, reporting to the array's progress
// (ZarrArray::set_progress). An import reads the input one slab of grid
// chunks (shards) along dimension 0 at a time, so memory stays at one slab.
#ifndef CHUNKWISE_FACADE_ZARR_ARRAY_FILES_H_
#define CHUNKWISE_FACADE_ZARR_ARRAY_FILES_H_

#include <filesystem>

#include "chunkwise/core/index.h"
#include "chunkwise/core/region.h"
#include "chunkwise/core/status.h"
#include "chunkwise/facade/zarr_arrays.h"
#include "chunkwise/io/array_file.h"

namespace chunkwise {

// Writes the array in `input` (.npy, or raw as `hint` describes it) into
// `array` with its first element at `offset` (empty: the origin).
// InvalidArgument, naming the file, when its dtype differs from the array's
// (byte order aside), its rank differs, or it does not fit inside the array
// at `offset`; the file reader's errors otherwise.
Status ImportArrayFileIntoZarr(const std::filesystem::path& input, const io::ArrayFileHint& hint,
                               ZarrArray& array, const core::Coord& offset);

// Writes `region` of `array` to `output` (.npy, or raw little-endian when
// `raw`), atomically. The caller checks the rule for existing outputs.
Status ExportZarrRegionToFile(const ZarrArray& array, const core::Region& region,
                              const std::filesystem::path& output, bool raw);

}  // namespace chunkwise

#endif  // CHUNKWISE_FACADE_ZARR_ARRAY_FILES_H_
