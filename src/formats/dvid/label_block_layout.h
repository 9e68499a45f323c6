// The parsed framing of a DVID label block, shared by the decoder and the
// validator (private to src/formats/dvid).
#ifndef CHUNKWISE_SRC_FORMATS_DVID_LABEL_BLOCK_LAYOUT_H_
#define CHUNKWISE_SRC_FORMATS_DVID_LABEL_BLOCK_LAYOUT_H_

#include <array>
#include <cstdint>
#include <string_view>

#include "formats/dvid/label_block.h"

namespace chunkwise::formats::dvid::detail {

// Eight packed values of up to 9 bits span up to 72 bits.
__extension__ using PackedWord = unsigned __int128;

// Where each section of a block starts; every section lies inside the block
// and the sections end exactly at its end.
struct LabelBlockLayout {
  BlockShape shape;
  std::uint32_t num_labels = 0;
  const std::uint8_t* labels = nullptr;   // num_labels u64.
  const std::uint8_t* counts = nullptr;   // num_sub_blocks u16; null for a solid block.
  const std::uint8_t* indices = nullptr;  // num_indices u32.
  std::uint64_t num_indices = 0;
  const std::uint8_t* packed = nullptr;  // Packed values of sub-blocks with n >= 2.

  bool solid() const { return counts == nullptr; }
  std::uint64_t Label(std::uint32_t i) const {
    return LoadLittleEndian<std::uint64_t>(labels + 8 * i);
  }
  std::uint32_t Count(std::uint64_t sub_block) const {
    return LoadLittleEndian<std::uint16_t>(counts + 2 * sub_block);
  }
  std::uint32_t Index(std::uint64_t i) const {
    return LoadLittleEndian<std::uint32_t>(indices + 4 * i);
  }
};

// Checks the framing (shape, sizes, no truncated or trailing bytes, no
// sub-block palette over 512). Corruption naming `name` otherwise.
Result<LabelBlockLayout> ParseLabelBlockLayout(ByteView block, std::string_view name);

// Unpacks the 512 `bits`-bit values (MSB first) at `packed`, which holds
// exactly 64·bits bytes.
void UnpackSubBlock(const std::uint8_t* packed, std::uint32_t bits,
                    std::array<std::uint16_t, kSubBlockVoxels>& values);

// Packs 512 values of `bits` bits (1-9), MSB first, into 64·bits bytes at `out`.
void PackSubBlock(const std::array<std::uint16_t, kSubBlockVoxels>& values, std::uint32_t bits,
                  std::uint8_t* out);

// Bytes of packed data for a sub-block palette of n labels (0 for n <= 1).
inline std::uint64_t PackedSubBlockBytes(std::uint32_t n) {
  return n <= 1 ? 0 : std::uint64_t{64} * BitsForPaletteSize(n);
}

}  // namespace chunkwise::formats::dvid::detail

#endif  // CHUNKWISE_SRC_FORMATS_DVID_LABEL_BLOCK_LAYOUT_H_
