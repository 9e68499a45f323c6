// Decodes a Blosc1 chunk of LZ4 blocks, or any box of it, straight into its
// place in a larger array, row by row, with no chunk-sized buffer in between.
//
// Format: docs/formats/bcolz.md, "Blosc1 chunk format" (the block and split
// rules are in codec/blosc_lz4_layout.h). c-blosc decodes a chunk into a
// buffer of its own, which a region read then copies into the caller's array:
// the chunk passes through the caches twice, and for fast codecs that copy
// costs a third of the decode (measured: docs/formats/zarr.md, "Performance").
// Here each block's streams are decompressed into a per-thread buffer the size
// of one block, and each row of the chunk is unshuffled out of it and written
// to its place in the caller's array at once.
#ifndef CHUNKWISE_SRC_CODEC_BLOSC_REGION_DECODER_H_
#define CHUNKWISE_SRC_CODEC_BLOSC_REGION_DECODER_H_

#include <cstddef>
#include <span>

#include "chunkwise/core/bytes.h"
#include "chunkwise/core/index.h"
#include "chunkwise/core/region.h"
#include "chunkwise/core/result.h"
#include "core/ravel.h"

namespace chunkwise::codec::internal {

// Decodes the elements of `box` (in chunk coordinates) of `encoded`, a
// C-order chunk of `chunk_shape` elements of `element_size` bytes, into the
// box of the same shape at target.origin. Only the blocks the box meets are
// decompressed. Returns false, having written nothing, for layouts it leaves
// to c-blosc: compressors other than LZ4 (and LZ4HC, the same format), bit
// shuffle, a byte-shuffle typesize other than element_size, or blocks that
// do not hold whole rows of the chunk. Corruption for malformed blocks,
// after which the box may be partly written. It never reads outside
// `encoded`.
// REQUIRES: the 16-byte header was validated (cbytes == encoded.size()) and
// its nbytes is the chunk's size; `box` lies inside the chunk and its shape
// at target.origin inside target.shape.
Result<bool> DecodeBloscLz4IntoRegion(ByteView encoded, std::span<const core::Index> chunk_shape,
                                      std::size_t element_size, const core::Region& box,
                                      const core::StridedDestination& target);

}  // namespace chunkwise::codec::internal

#endif  // CHUNKWISE_SRC_CODEC_BLOSC_REGION_DECODER_H_
