#include "formats/dvid/label_block_layout.h"

#include <bit>
#include <string>

namespace chunkwise::formats::dvid {

std::uint32_t BitsForPaletteSize(std::uint32_t n) {
  return n <= 1 ? 0 : static_cast<std::uint32_t>(std::bit_width(n - 1));
}

Status ValidateBlockShape(const BlockShape& shape) {
  for (const std::uint32_t g : {shape.gx, shape.gy, shape.gz}) {
    if (g < kMinSubBlocksPerAxis || g > kMaxSubBlocksPerAxis) {
      return Status::InvalidArgument(
          "DVID label block: " + std::to_string(g) +
          " sub-blocks along an axis; block edges must be 16 to 1024 voxels, multiples of 8");
    }
  }
  return Status::Ok();
}

namespace detail {
namespace {

Status Truncated(std::string_view name, std::string_view section, std::uint64_t need,
                 std::uint64_t size) {
  return Status::Corruption(std::string(name) + ": DVID label block truncated in the " +
                            std::string(section) + ": needs " + std::to_string(need) +
                            " bytes, has " + std::to_string(size));
}

}  // namespace

Result<LabelBlockLayout> ParseLabelBlockLayout(ByteView block, std::string_view name) {
  const std::uint64_t size = block.size();
  if (size < kLabelBlockHeaderSize) return Truncated(name, "header", kLabelBlockHeaderSize, size);
  LabelBlockLayout layout;
  const std::uint8_t* data = block.data();
  layout.shape = {LoadLittleEndian<std::uint32_t>(data), LoadLittleEndian<std::uint32_t>(data + 4),
                  LoadLittleEndian<std::uint32_t>(data + 8)};
  if (Status shape = ValidateBlockShape(layout.shape); !shape.ok()) {
    return Status::Corruption(std::string(name) + ": " + std::string(shape.message()));
  }
  layout.num_labels = LoadLittleEndian<std::uint32_t>(data + 12);
  layout.labels = data + kLabelBlockHeaderSize;
  std::uint64_t at = kLabelBlockHeaderSize + std::uint64_t{8} * layout.num_labels;
  if (at > size) return Truncated(name, "labels", at, size);
  if (layout.num_labels <= 1) {
    if (at != size) {
      return Status::Corruption(std::string(name) + ": solid DVID label block has " +
                                std::to_string(size - at) + " trailing bytes");
    }
    return layout;
  }
  const std::uint64_t num_sub_blocks = layout.shape.num_sub_blocks();
  layout.counts = data + at;
  at += 2 * num_sub_blocks;
  if (at > size) return Truncated(name, "sub-block label counts", at, size);
  std::uint64_t packed_bytes = 0;
  for (std::uint64_t k = 0; k < num_sub_blocks; ++k) {
    const std::uint32_t n = layout.Count(k);
    if (n > kSubBlockVoxels) {
      return Status::Corruption(std::string(name) + ": sub-block " + std::to_string(k) + " has " +
                                std::to_string(n) + " labels, more than its 512 voxels");
    }
    layout.num_indices += n;
    packed_bytes += PackedSubBlockBytes(n);
  }
  layout.indices = data + at;
  at += 4 * layout.num_indices;
  if (at > size) return Truncated(name, "sub-block indices", at, size);
  layout.packed = data + at;
  at += packed_bytes;
  if (at > size) return Truncated(name, "packed values", at, size);
  if (at != size) {
    return Status::Corruption(std::string(name) + ": DVID label block has " +
                              std::to_string(size - at) + " trailing bytes");
  }
  return layout;
}

void UnpackSubBlock(const std::uint8_t* packed, std::uint32_t bits,
                    std::array<std::uint16_t, kSubBlockVoxels>& values) {
  // Eight values of `bits` bits fill exactly `bits` bytes, so each group of
  // eight is one big-endian integer of at most 72 bits.
  const PackedWord mask = (PackedWord{1} << bits) - 1;
  for (std::uint32_t group = 0; group < kSubBlockVoxels / 8; ++group) {
    PackedWord word = 0;
    for (std::uint32_t byte = 0; byte < bits; ++byte) word = (word << 8) | packed[byte];
    packed += bits;
    for (std::uint32_t i = 0; i < 8; ++i) {
      values[group * 8 + i] = static_cast<std::uint16_t>((word >> (bits * (7 - i))) & mask);
    }
  }
}

}  // namespace detail
}  // namespace chunkwise::formats::dvid
