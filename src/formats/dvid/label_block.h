// DVID's compressed label block: a block of uint64 labels stored as a block
// palette, per-8³-sub-block palettes and bit-packed indices.
//
// Spec: docs/formats/dvid.md, "Compressed label block". Layout,
// all little-endian: gx, gy, gz (u32, sub-blocks per axis), N (u32), N u64
// labels; a solid block (N <= 1) ends there. Otherwise gx·gy·gz u16 sub-block
// palette sizes, then their u32 indices into the labels, then for each
// sub-block with n >= 2 labels 512 values of ceil(log2 n) bits, MSB first.
// Sub-blocks run z, y, x (x fastest), voxels inside one likewise. The decoded
// array is C order [gz·8][gy·8][gx·8].
//
// All functions are thread-compatible: they share no state.
#ifndef CHUNKWISE_FORMATS_DVID_LABEL_BLOCK_H_
#define CHUNKWISE_FORMATS_DVID_LABEL_BLOCK_H_

#include <bit>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "chunkwise/core/bytes.h"
#include "chunkwise/core/result.h"

namespace chunkwise::formats::dvid {

inline constexpr std::uint32_t kSubBlockEdge = 8;
inline constexpr std::uint32_t kSubBlockVoxels = 512;
// Block edges are multiples of 8 voxels, at least 16 and at most 1024.
inline constexpr std::uint32_t kMinSubBlocksPerAxis = 2;
inline constexpr std::uint32_t kMaxSubBlocksPerAxis = 128;
inline constexpr std::uint32_t kLabelBlockHeaderSize = 16;
// Bytes of a solid block: the header and one label.
inline constexpr std::uint32_t kSolidLabelBlockSize = 24;

// The sub-block grid of a block; 8×8×8 is DVID's default 64³ block.
struct BlockShape {
  std::uint32_t gx = 8;
  std::uint32_t gy = 8;
  std::uint32_t gz = 8;

  std::uint64_t num_sub_blocks() const { return std::uint64_t{gx} * gy * gz; }
  std::uint64_t num_voxels() const { return num_sub_blocks() * kSubBlockVoxels; }
  bool operator==(const BlockShape&) const = default;
};

// The shape of a 64³ block.
inline constexpr BlockShape kDefaultBlockShape{};

// InvalidArgument unless every axis has 2 to 128 sub-blocks.
Status ValidateBlockShape(const BlockShape& shape);

// What the first bytes of a block say: its shape and its palette (the labels
// at offset 16, in stored order; they may repeat or include 0).
struct LabelBlockHeader {
  BlockShape shape;
  std::vector<std::uint64_t> labels;
};

// Reads the header and the labels only. Corruption naming `name` if the
// bytes are too short for them or the shape is out of range.
Result<LabelBlockHeader> ReadLabelBlockHeader(ByteView block, std::string_view name);

// Encodes `voxels` (C order [gz·8][gy·8][gx·8]) as DVID does: sub-block
// palettes in first-appearance order of the zyx scan, block labels in order of
// first use, a 24-byte solid block when one label fills the block.
// InvalidArgument if the shape is out of range or voxels.size() differs from
// shape.num_voxels().
Result<Bytes> EncodeLabelBlock(std::span<const std::uint64_t> voxels, const BlockShape& shape);

// Decodes `block` into `out`, which must hold exactly expected.num_voxels()
// values. Corruption naming `name` if the block's shape differs from
// `expected`, or the bytes break the layout: truncated or trailing bytes, an
// index past the labels, a packed value past its sub-block palette, a
// sub-block palette larger than 512. Never reads outside `block`; allocates
// nothing but what the header's stated sizes allow within `block`.
Status DecodeLabelBlockInto(ByteView block, const BlockShape& expected,
                            std::span<std::uint64_t> out, std::string_view name);

// Decodes a block of any valid shape whose voxel count is at most
// `max_voxels` (OutOfRange otherwise, before allocating).
struct DecodedLabelBlock {
  BlockShape shape;
  std::vector<std::uint64_t> voxels;
};
Result<DecodedLabelBlock> DecodeLabelBlock(ByteView block, std::string_view name,
                                           std::uint64_t max_voxels = std::uint64_t{64} * 64 * 64);

// How strictly ValidateLabelBlock checks.
enum class LabelBlockCheck {
  // What every decoder must accept (DVID writes, then mutates, such blocks):
  // the layout is intact; labels may repeat, sub-block palettes may be empty.
  kDecodable,
  // What a fresh DVID encoding looks like, and what EncodeLabelBlock must
  // produce: N >= 1; one distinct label is a solid block; block labels are
  // distinct and each is used; each sub-block palette is non-empty, distinct,
  // in first-appearance order, and each entry is used; padding bits are zero.
  kCanonical,
};

// OK if `block` obeys the layout at `level`; otherwise Corruption naming
// `name` and the first rule broken (with the sub-block index where one applies).
Status ValidateLabelBlock(ByteView block, LabelBlockCheck level, std::string_view name);

// Bits per packed value for a sub-block palette of n >= 2 labels: ceil(log2 n).
// Inline: the block parser and checker call it for each of 512 sub-blocks.
inline std::uint32_t BitsForPaletteSize(std::uint32_t n) {
  return n <= 1 ? 0 : static_cast<std::uint32_t>(std::bit_width(n - 1));
}

}  // namespace chunkwise::formats::dvid

#endif  // CHUNKWISE_FORMATS_DVID_LABEL_BLOCK_H_
