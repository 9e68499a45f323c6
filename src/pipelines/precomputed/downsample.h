// Halving a chunk of a precomputed scale from the scale before it.
//
// A voxel of the coarser scale covers the 2×2×2 voxels below it (fewer at
// an odd upper edge). Labels take the most frequent of them, ties going to
// the smaller label (the rule of formats/dvid/downsample.h); images take the
// mean, rounded to nearest for integer types.
#ifndef CHUNKWISE_SRC_PIPELINES_PRECOMPUTED_DOWNSAMPLE_H_
#define CHUNKWISE_SRC_PIPELINES_PRECOMPUTED_DOWNSAMPLE_H_

#include <array>

#include "chunkwise/core/bytes.h"
#include "chunkwise/core/data_type.h"
#include "chunkwise/core/index.h"

namespace chunkwise::pipelines::detail {

enum class DownsampleRule { kMode, kMean };

// `fine` is a C-order [channels][z][y][x] array of `fine_shape` (z, y, x);
// returns the array of ceil(fine_shape / 2) (same channels).
Bytes Downsample2x(ByteView fine, const std::array<core::Index, 3>& fine_shape, int channels,
                   core::DataType type, DownsampleRule rule);

}  // namespace chunkwise::pipelines::detail

#endif  // CHUNKWISE_SRC_PIPELINES_PRECOMPUTED_DOWNSAMPLE_H_
