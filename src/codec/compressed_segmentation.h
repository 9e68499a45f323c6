// compressed_segmentation: neuroglancer's random-access encoding of uint32 and
// uint64 label volumes.
//
// Format: docs/formats/compressed-segmentation.md. A channel is cut into a
// grid of blocks (8³ by default); each block stores a lookup table of the
// values it holds and, per voxel, an index into that table packed in 0, 1, 2,
// 4, 8, 16 or 32 bits. A 64-bit header per block gives the table's offset (24
// bits, in 32-bit words), the bit width (8 bits) and the packed values'
// offset (32 bits). The chunk form neuroglancer's precomputed volumes use
// starts with one uint32 per channel: the word offset of that channel.
//
// Voxels are in [channel][z][y][x] order with x fastest (neuroglancer's
// [x, y, z, channel] Fortran order). Extents are given (x, y, z). Blocks at
// the upper edge may be cut by the extent; the voxels past it are written as
// the block's first table entry, a value that occurs in the block.
//
// The encoder writes a block's packed values, then its table, unless an
// earlier block of the channel has the same table, which it then shares.
// Tables list values in order of first appearance (x fastest).
//
// Thread safety: every function may be called from many threads at once
// (each thread keeps its own scratch space).
#ifndef CHUNKWISE_CODEC_COMPRESSED_SEGMENTATION_H_
#define CHUNKWISE_CODEC_COMPRESSED_SEGMENTATION_H_

#include <array>
#include <cstdint>
#include <span>
#include <string_view>

#include "chunkwise/core/bytes.h"
#include "chunkwise/core/result.h"

namespace chunkwise::codec {

// Voxels per axis, (x, y, z).
using Extent3 = std::array<std::int64_t, 3>;

inline constexpr Extent3 kDefaultSegmentationBlock{8, 8, 8};

// How a chunk is laid out: its extent, the block size and the channel count.
struct SegmentationLayout {
  Extent3 extent{};
  Extent3 block = kDefaultSegmentationBlock;
  int channels = 1;

  // extent[0] * extent[1] * extent[2] * channels.
  std::uint64_t num_voxels() const;
};

// InvalidArgument unless every extent is >= 0, every block edge is >= 1, a
// block holds at most 2^20 voxels, there is at least one channel and the
// voxel count fits in memory.
Status ValidateSegmentationLayout(const SegmentationLayout& layout);

// Appends the chunk form (channel offsets, then each channel) of `voxels` to
// `out`. InvalidArgument for a bad layout or voxels.size() !=
// layout.num_voxels(); OutOfRange if a channel's encoding grows past what
// the 24-bit table offsets can address (64 MiB).
Status EncodeCompressedSegmentation(std::span<const std::uint64_t> voxels,
                                    const SegmentationLayout& layout, Bytes& out);
Status EncodeCompressedSegmentation(std::span<const std::uint32_t> voxels,
                                    const SegmentationLayout& layout, Bytes& out);

// Decodes the chunk form into `out` (layout.num_voxels() values). Corruption
// naming `name` (a key or file) and the channel and block when a channel
// offset, a block header, the packed values or a lookup table entry lies past
// the end of `encoded`, or a bit width is not one of 0, 1, 2, 4, 8, 16, 32.
// Never reads outside `encoded`. InvalidArgument for a bad layout or
// out.size() != layout.num_voxels().
Status DecodeCompressedSegmentation(ByteView encoded, const SegmentationLayout& layout,
                                    std::span<std::uint64_t> out, std::string_view name);
Status DecodeCompressedSegmentation(ByteView encoded, const SegmentationLayout& layout,
                                    std::span<std::uint32_t> out, std::string_view name);

}  // namespace chunkwise::codec

#endif  // CHUNKWISE_CODEC_COMPRESSED_SEGMENTATION_H_
