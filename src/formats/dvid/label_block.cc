#include "formats/dvid/label_block.h"

#include <algorithm>
#include <array>
#include <string>
#include <unordered_map>

#include "formats/dvid/label_block_layout.h"

namespace chunkwise::formats::dvid {
namespace {

using detail::LabelBlockLayout;

// Voxel offsets of one sub-block's 512 voxels in the C-order block array.
struct SubBlockGeometry {
  std::uint64_t row_stride;    // Voxels per y row: gx·8.
  std::uint64_t plane_stride;  // Voxels per z plane: gx·8 · gy·8.

  explicit SubBlockGeometry(const BlockShape& shape)
      : row_stride(std::uint64_t{shape.gx} * kSubBlockEdge),
        plane_stride(row_stride * shape.gy * kSubBlockEdge) {}
  std::uint64_t Origin(const BlockShape& shape, std::uint64_t sub_block) const {
    const std::uint64_t sx = sub_block % shape.gx;
    const std::uint64_t sy = (sub_block / shape.gx) % shape.gy;
    const std::uint64_t sz = sub_block / (std::uint64_t{shape.gx} * shape.gy);
    return sz * kSubBlockEdge * plane_stride + sy * kSubBlockEdge * row_stride + sx * kSubBlockEdge;
  }
  std::uint64_t Offset(std::uint32_t voxel) const {
    return (voxel >> 6) * plane_stride + ((voxel >> 3) & 7) * row_stride + (voxel & 7);
  }
};

Status BadIndex(std::string_view name, std::uint64_t sub_block, std::uint32_t index,
                std::uint32_t num_labels) {
  return Status::Corruption(std::string(name) + ": sub-block " + std::to_string(sub_block) +
                            " refers to label " + std::to_string(index) + " of " +
                            std::to_string(num_labels));
}

// Fills one sub-block of `out` from its palette and packed values.
Status DecodeSubBlock(const LabelBlockLayout& layout, std::uint64_t sub_block,
                      std::uint64_t first_index, const std::uint8_t*& packed,
                      std::span<std::uint64_t> out, std::string_view name) {
  const std::uint32_t n = layout.Count(sub_block);
  std::array<std::uint64_t, kSubBlockVoxels> palette;
  for (std::uint32_t i = 0; i < n; ++i) {
    const std::uint32_t index = layout.Index(first_index + i);
    if (index >= layout.num_labels) return BadIndex(name, sub_block, index, layout.num_labels);
    palette[i] = layout.Label(index);
  }
  const SubBlockGeometry geometry(layout.shape);
  std::uint64_t* origin = out.data() + geometry.Origin(layout.shape, sub_block);
  if (n <= 1) {
    const std::uint64_t label = n == 0 ? 0 : palette[0];
    for (std::uint32_t row = 0; row < 64; ++row) {
      std::fill_n(origin + geometry.Offset(row * 8), 8, label);
    }
    return Status::Ok();
  }
  const std::uint32_t bits = BitsForPaletteSize(n);
  std::array<std::uint16_t, kSubBlockVoxels> values;
  detail::UnpackSubBlock(packed, bits, values);
  packed += detail::PackedSubBlockBytes(n);
  // Indices past n are possible only when n is not a power of two.
  if ((n & (n - 1)) != 0) {
    for (std::uint32_t v = 0; v < kSubBlockVoxels; ++v) {
      if (values[v] >= n) {
        return Status::Corruption(std::string(name) + ": sub-block " + std::to_string(sub_block) +
                                  " voxel " + std::to_string(v) + " has index " +
                                  std::to_string(values[v]) + " past its " + std::to_string(n) +
                                  " labels");
      }
    }
  }
  for (std::uint32_t row = 0; row < 64; ++row) {
    std::uint64_t* out_row = origin + geometry.Offset(row * 8);
    for (std::uint32_t x = 0; x < 8; ++x) out_row[x] = palette[values[row * 8 + x]];
  }
  return Status::Ok();
}

// The sub-block palettes of an encoding in progress.
class BlockEncoder {
 public:
  explicit BlockEncoder(const BlockShape& shape) : shape_(shape), geometry_(shape) {
    counts_.reserve(shape.num_sub_blocks());
  }

  void AddSubBlock(std::span<const std::uint64_t> voxels, std::uint64_t sub_block) {
    const std::uint64_t* origin = voxels.data() + geometry_.Origin(shape_, sub_block);
    palette_.clear();
    palette_lookup_.clear();
    std::uint64_t last = origin[0];
    std::uint16_t last_index = PaletteIndex(last);
    for (std::uint32_t row = 0; row < 64; ++row) {
      const std::uint64_t* labels = origin + geometry_.Offset(row * 8);
      for (std::uint32_t x = 0; x < 8; ++x) {
        if (labels[x] != last) {
          last = labels[x];
          last_index = PaletteIndex(last);
        }
        values_[row * 8 + x] = last_index;
      }
    }
    counts_.push_back(static_cast<std::uint16_t>(palette_.size()));
    for (const std::uint64_t label : palette_) indices_.push_back(BlockIndex(label));
    Pack(static_cast<std::uint32_t>(palette_.size()));
  }

  Bytes Finish() const {
    Bytes out;
    const bool solid = labels_.size() == 1;
    out.reserve(kLabelBlockHeaderSize + 8 * labels_.size() +
                (solid ? 0 : 2 * counts_.size() + 4 * indices_.size() + packed_.size()));
    for (const std::uint32_t g : {shape_.gx, shape_.gy, shape_.gz}) AppendLittleEndian(g, out);
    AppendLittleEndian(static_cast<std::uint32_t>(labels_.size()), out);
    for (const std::uint64_t label : labels_) AppendLittleEndian(label, out);
    if (solid) return out;
    for (const std::uint16_t count : counts_) AppendLittleEndian(count, out);
    for (const std::uint32_t index : indices_) AppendLittleEndian(index, out);
    out.insert(out.end(), packed_.begin(), packed_.end());
    return out;
  }

 private:
  // The label's index in the sub-block palette, appending it on first sight.
  // Palettes are short, so a linear search wins until one grows large.
  std::uint16_t PaletteIndex(std::uint64_t label) {
    const auto next = static_cast<std::uint16_t>(palette_.size());
    if (palette_lookup_.empty()) {
      for (std::uint16_t i = 0; i < next; ++i) {
        if (palette_[i] == label) return i;
      }
      if (next == kLinearSearchLimit) {
        for (std::uint16_t i = 0; i < next; ++i) palette_lookup_.emplace(palette_[i], i);
        palette_lookup_.emplace(label, next);
      }
    } else {
      const auto [it, inserted] = palette_lookup_.emplace(label, next);
      if (!inserted) return it->second;
    }
    palette_.push_back(label);
    return next;
  }

  std::uint32_t BlockIndex(std::uint64_t label) {
    const auto [it, inserted] =
        label_index_.emplace(label, static_cast<std::uint32_t>(labels_.size()));
    if (inserted) labels_.push_back(label);
    return it->second;
  }

  // Appends the sub-block's values, `bits` bits each, MSB first.
  void Pack(std::uint32_t n) {
    if (n <= 1) return;
    const std::uint32_t bits = BitsForPaletteSize(n);
    const std::size_t at = packed_.size();
    packed_.resize(at + detail::PackedSubBlockBytes(n));
    detail::PackSubBlock(values_, bits, packed_.data() + at);
  }

  static constexpr std::size_t kLinearSearchLimit = 32;

  const BlockShape shape_;
  const SubBlockGeometry geometry_;
  std::vector<std::uint64_t> labels_;
  std::unordered_map<std::uint64_t, std::uint32_t> label_index_;
  std::vector<std::uint16_t> counts_;
  std::vector<std::uint32_t> indices_;
  Bytes packed_;
  std::vector<std::uint64_t> palette_;
  std::unordered_map<std::uint64_t, std::uint16_t> palette_lookup_;
  std::array<std::uint16_t, kSubBlockVoxels> values_;
};

}  // namespace

Result<LabelBlockHeader> ReadLabelBlockHeader(ByteView block, std::string_view name) {
  if (block.size() < kLabelBlockHeaderSize) {
    return Status::Corruption(std::string(name) + ": DVID label block of " +
                              std::to_string(block.size()) + " bytes has no 16-byte header");
  }
  LabelBlockHeader header;
  header.shape = {LoadLittleEndian<std::uint32_t>(block.data()),
                  LoadLittleEndian<std::uint32_t>(block.data() + 4),
                  LoadLittleEndian<std::uint32_t>(block.data() + 8)};
  if (Status shape = ValidateBlockShape(header.shape); !shape.ok()) {
    return Status::Corruption(std::string(name) + ": " + std::string(shape.message()));
  }
  const std::uint64_t n = LoadLittleEndian<std::uint32_t>(block.data() + 12);
  if (kLabelBlockHeaderSize + 8 * n > block.size()) {
    return Status::Corruption(std::string(name) + ": DVID label block states " + std::to_string(n) +
                              " labels but holds " + std::to_string(block.size()) + " bytes");
  }
  header.labels.resize(n);
  for (std::uint64_t i = 0; i < n; ++i) {
    header.labels[i] =
        LoadLittleEndian<std::uint64_t>(block.data() + kLabelBlockHeaderSize + 8 * i);
  }
  return header;
}

Result<Bytes> EncodeLabelBlock(std::span<const std::uint64_t> voxels, const BlockShape& shape) {
  CHUNKWISE_RETURN_IF_ERROR(ValidateBlockShape(shape));
  if (voxels.size() != shape.num_voxels()) {
    return Status::InvalidArgument("DVID label block: " + std::to_string(voxels.size()) +
                                   " voxels given for a block of " +
                                   std::to_string(shape.num_voxels()));
  }
  BlockEncoder encoder(shape);
  for (std::uint64_t k = 0; k < shape.num_sub_blocks(); ++k) encoder.AddSubBlock(voxels, k);
  return encoder.Finish();
}

Status DecodeLabelBlockInto(ByteView block, const BlockShape& expected,
                            std::span<std::uint64_t> out, std::string_view name) {
  CHUNKWISE_CHECK(out.size() == expected.num_voxels());
  CHUNKWISE_ASSIGN_OR_RETURN(const LabelBlockLayout layout,
                             detail::ParseLabelBlockLayout(block, name));
  if (layout.shape != expected) {
    return Status::Corruption(
        std::string(name) + ": DVID label block has " + std::to_string(layout.shape.gx * 8) + "x" +
        std::to_string(layout.shape.gy * 8) + "x" + std::to_string(layout.shape.gz * 8) +
        " voxels (x,y,z), expected " + std::to_string(expected.gx * 8) + "x" +
        std::to_string(expected.gy * 8) + "x" + std::to_string(expected.gz * 8));
  }
  if (layout.solid()) {
    std::fill(out.begin(), out.end(), layout.num_labels == 0 ? 0 : layout.Label(0));
    return Status::Ok();
  }
  const std::uint8_t* packed = layout.packed;
  std::uint64_t first_index = 0;
  for (std::uint64_t k = 0; k < layout.shape.num_sub_blocks(); ++k) {
    CHUNKWISE_RETURN_IF_ERROR(DecodeSubBlock(layout, k, first_index, packed, out, name));
    first_index += layout.Count(k);
  }
  return Status::Ok();
}

Result<DecodedLabelBlock> DecodeLabelBlock(ByteView block, std::string_view name,
                                           std::uint64_t max_voxels) {
  CHUNKWISE_ASSIGN_OR_RETURN(const LabelBlockHeader header, ReadLabelBlockHeader(block, name));
  if (header.shape.num_voxels() > max_voxels) {
    return Status::OutOfRange(std::string(name) + ": DVID label block of " +
                              std::to_string(header.shape.num_voxels()) +
                              " voxels exceeds the limit of " + std::to_string(max_voxels));
  }
  DecodedLabelBlock decoded{header.shape, std::vector<std::uint64_t>(header.shape.num_voxels())};
  CHUNKWISE_RETURN_IF_ERROR(DecodeLabelBlockInto(block, header.shape, decoded.voxels, name));
  return decoded;
}

}  // namespace chunkwise::formats::dvid
