#include "formats/dvid/label_block_layout.h"

#include <bit>
#include <string>
#include <type_traits>

namespace chunkwise::formats::dvid {

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

namespace {

// Eight values of kBits bits fill exactly kBits bytes, so each group of eight
// is one big-endian integer of kBits·8 bits (at most 72). With the width a
// compile-time constant the loops unroll into shifts and masks.
template <std::uint32_t kBits>
using GroupWord = std::conditional_t<(kBits <= 8), std::uint64_t, PackedWord>;

template <std::uint32_t kBits>
void Unpack(const std::uint8_t* packed, std::array<std::uint16_t, kSubBlockVoxels>& values) {
  constexpr std::uint32_t kMask = (1u << kBits) - 1;
  for (std::uint32_t group = 0; group < kSubBlockVoxels / 8; ++group, packed += kBits) {
    GroupWord<kBits> word = 0;
    for (std::uint32_t byte = 0; byte < kBits; ++byte) word = (word << 8) | packed[byte];
    for (std::uint32_t i = 0; i < 8; ++i) {
      values[group * 8 + i] = static_cast<std::uint16_t>((word >> (kBits * (7 - i))) & kMask);
    }
  }
}

template <std::uint32_t kBits>
void Pack(const std::array<std::uint16_t, kSubBlockVoxels>& values, std::uint8_t* out) {
  for (std::uint32_t group = 0; group < kSubBlockVoxels / 8; ++group, out += kBits) {
    GroupWord<kBits> word = 0;
    for (std::uint32_t i = 0; i < 8; ++i) word = (word << kBits) | values[group * 8 + i];
    for (std::uint32_t byte = 0; byte < kBits; ++byte) {
      out[byte] = static_cast<std::uint8_t>(word >> (8 * (kBits - 1 - byte)));
    }
  }
}

}  // namespace

void UnpackSubBlock(const std::uint8_t* packed, std::uint32_t bits,
                    std::array<std::uint16_t, kSubBlockVoxels>& values) {
  switch (bits) {
    case 1:
      return Unpack<1>(packed, values);
    case 2:
      return Unpack<2>(packed, values);
    case 3:
      return Unpack<3>(packed, values);
    case 4:
      return Unpack<4>(packed, values);
    case 5:
      return Unpack<5>(packed, values);
    case 6:
      return Unpack<6>(packed, values);
    case 7:
      return Unpack<7>(packed, values);
    case 8:
      return Unpack<8>(packed, values);
    default:
      CHUNKWISE_CHECK(bits == 9);
      return Unpack<9>(packed, values);
  }
}

void PackSubBlock(const std::array<std::uint16_t, kSubBlockVoxels>& values, std::uint32_t bits,
                  std::uint8_t* out) {
  switch (bits) {
    case 1:
      return Pack<1>(values, out);
    case 2:
      return Pack<2>(values, out);
    case 3:
      return Pack<3>(values, out);
    case 4:
      return Pack<4>(values, out);
    case 5:
      return Pack<5>(values, out);
    case 6:
      return Pack<6>(values, out);
    case 7:
      return Pack<7>(values, out);
    case 8:
      return Pack<8>(values, out);
    default:
      CHUNKWISE_CHECK(bits == 9);
      return Pack<9>(values, out);
  }
}

}  // namespace detail
}  // namespace chunkwise::formats::dvid
