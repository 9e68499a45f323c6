// ValidateLabelBlock: the layout rules of docs/formats/dvid.md as checks, so
// tests can hold our encoder (and blocks from elsewhere) against them.
#include <algorithm>
#include <array>
#include <cstring>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "formats/dvid/label_block.h"
#include "formats/dvid/label_block_layout.h"

namespace chunkwise::formats::dvid {
namespace {

using detail::LabelBlockLayout;

Status Broken(std::string_view name, std::uint64_t sub_block, const std::string& rule) {
  return Status::Corruption(std::string(name) + ": sub-block " + std::to_string(sub_block) + ": " +
                            rule);
}

// Checks the packed values of one sub-block: each below n; in canonical
// form, first appearances run 0, 1, 2, … and every palette entry appears.
Status CheckPackedValues(const std::array<std::uint16_t, kSubBlockVoxels>& values, std::uint32_t n,
                         bool canonical, std::string_view name, std::uint64_t sub_block) {
  if (!canonical) {
    // The common case (export checks every block) in one branch-free pass.
    std::uint16_t largest = 0;
    for (std::uint16_t value : values) largest = std::max(largest, value);
    if (largest < n) return Status::Ok();
  }
  std::uint32_t next_new = 0;
  for (std::uint32_t v = 0; v < kSubBlockVoxels; ++v) {
    if (values[v] >= n) {
      return Broken(name, sub_block,
                    "voxel " + std::to_string(v) + " has index " + std::to_string(values[v]) +
                        " past its " + std::to_string(n) + " labels");
    }
    if (!canonical) continue;
    if (values[v] > next_new) {
      return Broken(name, sub_block,
                    "palette is not in first-appearance order at voxel " + std::to_string(v));
    }
    if (values[v] == next_new) ++next_new;
  }
  if (canonical && next_new != n) {
    return Broken(name, sub_block, std::to_string(n - next_new) + " palette labels are never used");
  }
  return Status::Ok();
}

// For the decodable check of the commonest palettes, without unpacking:
// true when the `bits`-wide fields of `packed` (2 or 4 bits, so no field
// crosses a byte) are all below n; nullopt for other widths. 512 fields of 2
// or 4 bits are 16 or 32 words.
std::optional<bool> PackedFieldsBelow(const std::uint8_t* packed, std::uint32_t bits,
                                      std::uint32_t n) {
  constexpr std::uint64_t kOnes2 = 0x5555555555555555ull;  // The low bit of each 2-bit field.
  constexpr std::uint64_t kLowNibbles = 0x0F0F0F0F0F0F0F0Full;
  constexpr std::uint64_t kByteOnes = 0x0101010101010101ull;
  constexpr std::uint64_t kByteHighs = 0x8080808080808080ull;
  if (bits == 2 && n == 3) {  // Only the value 3 is out of range: both bits set.
    std::uint64_t both = 0;
    for (std::uint32_t w = 0; w < 16; ++w) {
      std::uint64_t x = 0;
      std::memcpy(&x, packed + std::size_t{8} * w, 8);
      both |= x & (x >> 1) & kOnes2;
    }
    return both == 0;
  }
  if (bits == 4) {  // Each nibble in its own byte plus (0x80 - n) reaches 0x80 iff it is >= n.
    const std::uint64_t bias = (0x80 - n) * kByteOnes;
    std::uint64_t high = 0;
    for (std::uint32_t w = 0; w < 32; ++w) {
      std::uint64_t x = 0;
      std::memcpy(&x, packed + std::size_t{8} * w, 8);
      high |= ((x & kLowNibbles) + bias) | (((x >> 4) & kLowNibbles) + bias);
    }
    return (high & kByteHighs) == 0;
  }
  return std::nullopt;
}

// Checks one sub-block's palette indices and packed values. The canonical
// check walks every sub-block so; the decodable check only when its flat passes
// (CheckDecodableFast) found a bad index, to name the first rule broken.
Status CheckSubBlock(const LabelBlockLayout& layout, std::uint64_t k, std::uint64_t first_index,
                     const std::uint8_t*& packed, bool canonical, std::string_view name,
                     std::vector<bool>& used) {
  const std::uint32_t n = layout.Count(k);
  if (canonical && n == 0) return Broken(name, k, "empty palette (DVID encoders never write one)");
  std::unordered_set<std::uint32_t> seen;
  for (std::uint32_t i = 0; i < n; ++i) {
    const std::uint32_t index = layout.Index(first_index + i);
    if (index >= layout.num_labels) {
      return Broken(name, k,
                    "index " + std::to_string(index) + " past the block's " +
                        std::to_string(layout.num_labels) + " labels");
    }
    if (canonical && !seen.insert(index).second) {
      return Broken(name, k, "palette repeats block label " + std::to_string(index));
    }
    used[index] = true;
  }
  if (n <= 1) return Status::Ok();
  const std::uint32_t bits = BitsForPaletteSize(n);
  std::array<std::uint16_t, kSubBlockVoxels> values;
  detail::UnpackSubBlock(packed, bits, values);
  packed += detail::PackedSubBlockBytes(n);
  return CheckPackedValues(values, n, canonical, name, k);
}

// Canonical form: block labels distinct, each used by some sub-block, and
// more than one distinct label (one label must be written solid).
Status CheckBlockLabels(const LabelBlockLayout& layout, const std::vector<bool>& used,
                        std::string_view name) {
  std::unordered_set<std::uint64_t> distinct;
  for (std::uint32_t i = 0; i < layout.num_labels; ++i) {
    if (!distinct.insert(layout.Label(i)).second) {
      return Status::Corruption(std::string(name) + ": block label " + std::to_string(i) +
                                " repeats label " + std::to_string(layout.Label(i)));
    }
    if (!used[i]) {
      return Status::Corruption(std::string(name) + ": block label " + std::to_string(i) +
                                " is used by no sub-block");
    }
  }
  if (distinct.size() == 1) {
    return Status::Corruption(std::string(name) + ": one distinct label must be a solid block");
  }
  return Status::Ok();
}

// The decodable check in two flat passes, the export's hot path: every
// palette index at once, then only the packed values that can be out of range.
// False (not an error) when some index is past the labels: the per-sub-block
// walk then finds it and names it.
Result<bool> CheckDecodableFast(const LabelBlockLayout& layout, std::string_view name) {
  std::uint32_t largest_index = 0;
  for (std::uint64_t i = 0; i < layout.num_indices; ++i) {
    largest_index = std::max(largest_index, layout.Index(i));
  }
  if (layout.num_indices != 0 && largest_index >= layout.num_labels) return false;
  const std::uint8_t* packed = layout.packed;
  for (std::uint64_t k = 0; k < layout.shape.num_sub_blocks(); ++k) {
    const std::uint32_t n = layout.Count(k);
    if (n <= 1) continue;
    const std::uint32_t bits = BitsForPaletteSize(n);
    const std::uint8_t* values = packed;
    packed += detail::PackedSubBlockBytes(n);
    // A palette of 2^bits labels: every bits-wide value indexes it.
    if (n == (std::uint32_t{1} << bits)) continue;
    if (const std::optional<bool> below = PackedFieldsBelow(values, bits, n); below && *below) {
      continue;
    }
    std::array<std::uint16_t, kSubBlockVoxels> unpacked;
    detail::UnpackSubBlock(values, bits, unpacked);
    CHUNKWISE_RETURN_IF_ERROR(CheckPackedValues(unpacked, n, false, name, k));
  }
  return true;
}

}  // namespace

Status ValidateLabelBlock(ByteView block, LabelBlockCheck level, std::string_view name) {
  CHUNKWISE_ASSIGN_OR_RETURN(const LabelBlockLayout layout,
                             detail::ParseLabelBlockLayout(block, name));
  const bool canonical = level == LabelBlockCheck::kCanonical;
  if (layout.solid()) {
    if (canonical && layout.num_labels == 0) {
      return Status::Corruption(std::string(name) + ": block with no labels (DVID rejects N = 0)");
    }
    return Status::Ok();
  }
  if (!canonical) {
    CHUNKWISE_ASSIGN_OR_RETURN(const bool decodable, CheckDecodableFast(layout, name));
    if (decodable) return Status::Ok();
  }
  std::vector<bool> used(layout.num_labels, false);
  const std::uint8_t* packed = layout.packed;
  std::uint64_t first_index = 0;
  for (std::uint64_t k = 0; k < layout.shape.num_sub_blocks(); ++k) {
    CHUNKWISE_RETURN_IF_ERROR(CheckSubBlock(layout, k, first_index, packed, canonical, name, used));
    first_index += layout.Count(k);
  }
  return canonical ? CheckBlockLabels(layout, used, name) : Status::Ok();
}

}  // namespace chunkwise::formats::dvid
