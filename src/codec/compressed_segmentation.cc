#include "codec/compressed_segmentation.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

namespace chunkwise::codec {
namespace {

// Tables already written are compared with memcmp against host values.
static_assert(std::endian::native == std::endian::little, "little-endian hosts only");

constexpr std::uint64_t kMaxBlockVoxels = std::uint64_t{1} << 20;
constexpr std::uint32_t kMaxTableOffset = (std::uint32_t{1} << 24) - 1;

std::string FormatExtent(const Extent3& e) {
  std::string text(1, '(');  // Appends: GCC 12 warns falsely on "(" + std::string.
  text += std::to_string(e[0]) + ", " + std::to_string(e[1]) + ", " + std::to_string(e[2]) + ")";
  return text;
}

// 0 for a table of one value, else the least of 1, 2, 4, 8, 16, 32 that can
// index `table_size` entries.
std::uint32_t EncodedBits(std::size_t table_size) {
  if (table_size <= 1) return 0;
  const auto needed = static_cast<std::uint32_t>(std::bit_width(table_size - 1));
  return std::bit_ceil(needed);
}

bool IsValidBits(std::uint32_t bits) {
  return bits == 0 || bits == 1 || bits == 2 || bits == 4 || bits == 8 || bits == 16 || bits == 32;
}

// Words of packed values for `count` values of `bits` bits.
std::uint64_t PackedWords(std::uint64_t count, std::uint32_t bits) {
  return (count * bits + 31) / 32;
}

std::uint64_t Mix(std::uint64_t value) {
  value ^= value >> 33;
  value *= 0xff51afd7ed558ccdULL;
  value ^= value >> 33;
  return value;
}

// The block grid of a channel and the clipped extent of each block.
struct BlockGrid {
  Extent3 extent;
  Extent3 block;
  Extent3 grid;

  BlockGrid(const Extent3& e, const Extent3& b) : extent(e), block(b) {
    for (int d = 0; d < 3; ++d) grid[d] = (e[d] + b[d] - 1) / b[d];
  }
  std::uint64_t num_blocks() const {
    return static_cast<std::uint64_t>(grid[0]) * grid[1] * grid[2];
  }
  std::uint64_t block_voxels() const {
    return static_cast<std::uint64_t>(block[0]) * block[1] * block[2];
  }
  // The voxels of block `b` inside the extent, per axis.
  Extent3 Clipped(const Extent3& origin) const {
    return {std::min(block[0], extent[0] - origin[0]), std::min(block[1], extent[1] - origin[1]),
            std::min(block[2], extent[2] - origin[2])};
  }
};

// A growing output of little-endian 32-bit words appended to a Bytes buffer.
class WordWriter {
 public:
  WordWriter(Bytes& out, std::size_t base) : out_(out), base_(base), end_(out.size()) {}
  // The word offset of the next word, relative to the base.
  std::uint64_t position() const { return (end_ - base_) / 4; }
  // Makes room for `words` more words and returns where they start.
  std::uint8_t* Extend(std::uint64_t words) {
    const std::size_t needed = end_ + words * 4;
    if (needed > out_.size()) out_.resize(std::max(needed, out_.size() * 2));
    std::uint8_t* start = out_.data() + end_;
    end_ = needed;
    return start;
  }
  std::uint8_t* At(std::uint64_t word) { return out_.data() + base_ + word * 4; }
  void Finish() { out_.resize(end_); }

 private:
  Bytes& out_;
  std::size_t base_;
  std::size_t end_;
};

template <typename T>
class ChannelEncoder {
 public:
  Status Encode(const T* voxels, const BlockGrid& grid, Bytes& out, std::size_t base) {
    const std::uint64_t block_voxels = grid.block_voxels();
    indices_.resize(block_voxels);
    PrepareValueSlots(block_voxels);
    PrepareTableSlots(grid.num_blocks());
    WordWriter writer(out, base);
    writer.Extend(2 * grid.num_blocks());
    std::uint64_t block_number = 0;
    Extent3 origin{};
    for (origin[2] = 0; origin[2] < grid.extent[2]; origin[2] += grid.block[2]) {
      for (origin[1] = 0; origin[1] < grid.extent[1]; origin[1] += grid.block[1]) {
        for (origin[0] = 0; origin[0] < grid.extent[0]; origin[0] += grid.block[0]) {
          BuildTable(voxels, grid, origin);
          const std::uint32_t bits = EncodedBits(table_.size());
          const std::uint64_t values_offset = writer.position();
          PackIndices(bits, writer);
          const std::uint64_t table_offset = WriteTable(writer);
          if (table_offset > kMaxTableOffset || values_offset > 0xffffffffULL) {
            return Status::OutOfRange(
                "compressed_segmentation: the encoding passes the 64 MiB the 24-bit table "
                "offsets can address (extent " +
                FormatExtent(grid.extent) + ")");
          }
          std::uint8_t* header = writer.At(2 * block_number);
          StoreLittleEndian(static_cast<std::uint32_t>(table_offset) | (bits << 24), header);
          StoreLittleEndian(static_cast<std::uint32_t>(values_offset), header + 4);
          ++block_number;
        }
      }
    }
    writer.Finish();
    return Status::Ok();
  }

 private:
  struct ValueSlot {
    T value;
    std::uint32_t index;
    std::uint32_t stamp;
  };
  struct TableSlot {
    std::uint64_t hash;
    std::uint64_t offset;  // Word offset of the table in the channel.
    std::uint32_t size;
    bool used;
  };

  void PrepareValueSlots(std::uint64_t block_voxels) {
    const std::size_t wanted = std::bit_ceil(std::max<std::uint64_t>(16, 2 * block_voxels));
    if (value_slots_.size() != wanted) {
      value_slots_.assign(wanted, ValueSlot{T{}, 0, 0});
      stamp_ = 0;
    }
    value_mask_ = wanted - 1;
  }
  void PrepareTableSlots(std::uint64_t num_blocks) {
    const std::size_t wanted = std::bit_ceil(std::max<std::uint64_t>(16, 2 * num_blocks));
    table_slots_.assign(wanted, TableSlot{0, 0, 0, false});
    table_mask_ = wanted - 1;
  }

  // The table index of `value`, added at the end when new.
  std::uint32_t Lookup(T value) {
    std::size_t slot = Mix(value) & value_mask_;
    while (true) {
      ValueSlot& s = value_slots_[slot];
      if (s.stamp != stamp_) {
        s = ValueSlot{value, static_cast<std::uint32_t>(table_.size()), stamp_};
        table_.push_back(value);
        return s.index;
      }
      if (s.value == value) return s.index;
      slot = (slot + 1) & value_mask_;
    }
  }

  // Fills table_ (first-appearance order) and indices_ for the block at `origin`.
  void BuildTable(const T* voxels, const BlockGrid& grid, const Extent3& origin) {
    if (++stamp_ == 0) {  // The stamps wrapped: forget every slot.
      for (ValueSlot& s : value_slots_) s.stamp = 0;
      stamp_ = 1;
    }
    table_.clear();
    const Extent3 clipped = grid.Clipped(origin);
    const bool partial = clipped != grid.block;
    if (partial) std::fill(indices_.begin(), indices_.end(), 0);
    T last = voxels[(origin[2] * grid.extent[1] + origin[1]) * grid.extent[0] + origin[0]];
    std::uint32_t last_index = Lookup(last);
    for (std::int64_t z = 0; z < clipped[2]; ++z) {
      for (std::int64_t y = 0; y < clipped[1]; ++y) {
        const T* row = voxels +
                       ((origin[2] + z) * grid.extent[1] + origin[1] + y) * grid.extent[0] +
                       origin[0];
        std::uint32_t* out = indices_.data() + (z * grid.block[1] + y) * grid.block[0];
        for (std::int64_t x = 0; x < clipped[0]; ++x) {
          const T value = row[x];
          if (value != last) {
            last = value;
            last_index = Lookup(value);
          }
          out[x] = last_index;
        }
      }
    }
  }

  void PackIndices(std::uint32_t bits, WordWriter& writer) {
    if (bits == 0) return;
    const std::uint64_t count = indices_.size();
    std::uint8_t* dest = writer.Extend(PackedWords(count, bits));
    const std::uint32_t per_word = 32 / bits;
    const std::uint32_t* index = indices_.data();
    for (std::uint64_t i = 0; i < count; i += per_word) {
      const std::uint64_t n = std::min<std::uint64_t>(per_word, count - i);
      std::uint32_t word = 0;
      for (std::uint64_t j = 0; j < n; ++j) word |= index[i + j] << (j * bits);
      StoreLittleEndian(word, dest);
      dest += 4;
    }
  }

  // Writes table_ unless an identical table was written before; returns its offset.
  std::uint64_t WriteTable(WordWriter& writer) {
    constexpr std::uint64_t kWordsPerValue = sizeof(T) / 4;
    std::uint64_t hash = table_.size();
    for (const T value : table_) hash = Mix(hash ^ value) + 0x9e3779b97f4a7c15ULL;
    std::size_t slot = hash & table_mask_;
    while (table_slots_[slot].used) {
      const TableSlot& s = table_slots_[slot];
      if (s.hash == hash && s.size == table_.size() &&
          std::memcmp(writer.At(s.offset), table_.data(), table_.size() * sizeof(T)) == 0) {
        return s.offset;
      }
      slot = (slot + 1) & table_mask_;
    }
    const std::uint64_t offset = writer.position();
    std::uint8_t* dest = writer.Extend(table_.size() * kWordsPerValue);
    for (const T value : table_) {
      StoreLittleEndian(value, dest);
      dest += sizeof(T);
    }
    table_slots_[slot] = TableSlot{hash, offset, static_cast<std::uint32_t>(table_.size()), true};
    return offset;
  }

  std::vector<std::uint32_t> indices_;
  std::vector<T> table_;
  std::vector<ValueSlot> value_slots_;
  std::size_t value_mask_ = 0;
  std::uint32_t stamp_ = 0;
  std::vector<TableSlot> table_slots_;
  std::size_t table_mask_ = 0;
};

template <typename T>
Status EncodeChunk(std::span<const T> voxels, const SegmentationLayout& layout, Bytes& out) {
  CHUNKWISE_RETURN_IF_ERROR(ValidateSegmentationLayout(layout));
  if (voxels.size() != layout.num_voxels()) {
    return Status::InvalidArgument("compressed_segmentation: " + std::to_string(voxels.size()) +
                                   " voxels given for an extent of " + FormatExtent(layout.extent) +
                                   " and " + std::to_string(layout.channels) + " channel(s)");
  }
  thread_local ChannelEncoder<T> encoder;
  const BlockGrid grid(layout.extent, layout.block);
  const std::size_t base = out.size();
  const std::uint64_t channel_voxels = layout.num_voxels() / layout.channels;
  out.resize(base + 4 * static_cast<std::size_t>(layout.channels));
  for (int c = 0; c < layout.channels; ++c) {
    const std::uint64_t offset_words = (out.size() - base) / 4;
    StoreLittleEndian(static_cast<std::uint32_t>(offset_words),
                      out.data() + base + 4 * static_cast<std::size_t>(c));
    if (grid.num_blocks() == 0) continue;
    CHUNKWISE_RETURN_IF_ERROR(
        encoder.Encode(voxels.data() + c * channel_voxels, grid, out, out.size()));
  }
  return Status::Ok();
}

// The 32-bit words of one channel: [start, end) of the chunk's bytes.
class ChannelWords {
 public:
  ChannelWords(ByteView chunk, std::uint64_t start_word)
      : data_(chunk.data() + start_word * 4), words_(chunk.size() / 4 - start_word) {}
  std::uint64_t size() const { return words_; }
  std::uint32_t Word(std::uint64_t i) const {
    return LoadLittleEndian<std::uint32_t>(data_ + i * 4);
  }
  const std::uint8_t* At(std::uint64_t word) const { return data_ + word * 4; }

 private:
  const std::uint8_t* data_;
  std::uint64_t words_;
};

template <typename T>
Status DecodeChannel(const ChannelWords& words, const BlockGrid& grid, T* out,
                     const std::string& where) {
  constexpr std::uint64_t kWordsPerValue = sizeof(T) / 4;
  const std::uint64_t num_blocks = grid.num_blocks();
  if (2 * num_blocks > words.size()) {
    return Status::Corruption(where + ": " + std::to_string(num_blocks) + " block headers need " +
                              std::to_string(2 * num_blocks) + " words; the channel has " +
                              std::to_string(words.size()));
  }
  std::uint64_t block_number = 0;
  Extent3 origin{};
  for (origin[2] = 0; origin[2] < grid.extent[2]; origin[2] += grid.block[2]) {
    for (origin[1] = 0; origin[1] < grid.extent[1]; origin[1] += grid.block[1]) {
      for (origin[0] = 0; origin[0] < grid.extent[0]; origin[0] += grid.block[0]) {
        const std::uint32_t h0 = words.Word(2 * block_number);
        const std::uint64_t values_offset = words.Word(2 * block_number + 1);
        const std::uint64_t table_offset = h0 & kMaxTableOffset;
        const std::uint32_t bits = h0 >> 24;
        const auto block_where = [&] {
          return where + ", block " +
                 FormatExtent({origin[0] / grid.block[0], origin[1] / grid.block[1],
                               origin[2] / grid.block[2]});
        };
        ++block_number;
        if (!IsValidBits(bits)) {
          return Status::Corruption(block_where() + ": encoded bits " + std::to_string(bits) +
                                    " is not 0, 1, 2, 4, 8, 16 or 32");
        }
        if (bits > 0 && values_offset + PackedWords(grid.block_voxels(), bits) > words.size()) {
          return Status::Corruption(block_where() + ": encoded values at word " +
                                    std::to_string(values_offset) + " run past the end of the " +
                                    std::to_string(words.size()) + "-word channel");
        }
        const std::uint64_t table_entries =
            table_offset <= words.size() ? (words.size() - table_offset) / kWordsPerValue : 0;
        const Extent3 clipped = grid.Clipped(origin);
        const std::uint32_t mask = bits == 32 ? 0xffffffffU : (std::uint32_t{1} << bits) - 1;
        for (std::int64_t z = 0; z < clipped[2]; ++z) {
          for (std::int64_t y = 0; y < clipped[1]; ++y) {
            T* row = out + ((origin[2] + z) * grid.extent[1] + origin[1] + y) * grid.extent[0] +
                     origin[0];
            const std::uint64_t first = (z * grid.block[1] + y) * grid.block[0];
            for (std::int64_t x = 0; x < clipped[0]; ++x) {
              std::uint32_t index = 0;
              if (bits > 0) {
                const std::uint64_t bit = (first + x) * bits;
                index = (words.Word(values_offset + bit / 32) >> (bit % 32)) & mask;
              }
              if (index >= table_entries) {
                return Status::Corruption(block_where() + ": lookup table at word " +
                                          std::to_string(table_offset) + ", entry " +
                                          std::to_string(index) + ", lies past the end of the " +
                                          std::to_string(words.size()) + "-word channel");
              }
              row[x] = LoadLittleEndian<T>(words.At(table_offset + index * kWordsPerValue));
            }
          }
        }
      }
    }
  }
  return Status::Ok();
}

template <typename T>
Status DecodeChunk(ByteView encoded, const SegmentationLayout& layout, std::span<T> out,
                   std::string_view name) {
  CHUNKWISE_RETURN_IF_ERROR(ValidateSegmentationLayout(layout));
  if (out.size() != layout.num_voxels()) {
    return Status::InvalidArgument("compressed_segmentation: an output of " +
                                   std::to_string(out.size()) + " voxels for an extent of " +
                                   FormatExtent(layout.extent));
  }
  const std::string prefix = std::string(name) + ": compressed_segmentation";
  const std::uint64_t total_words = encoded.size() / 4;
  if (total_words < static_cast<std::uint64_t>(layout.channels)) {
    return Status::Corruption(prefix + ": " + std::to_string(encoded.size()) +
                              " bytes cannot hold the offsets of " +
                              std::to_string(layout.channels) + " channel(s)");
  }
  const BlockGrid grid(layout.extent, layout.block);
  const std::uint64_t channel_voxels = layout.num_voxels() / layout.channels;
  for (int c = 0; c < layout.channels; ++c) {
    const std::string where = prefix + " channel " + std::to_string(c);
    const std::uint64_t start =
        LoadLittleEndian<std::uint32_t>(encoded.data() + 4 * static_cast<std::size_t>(c));
    if (start > total_words) {
      return Status::Corruption(where + ": offset " + std::to_string(start) +
                                " words lies past the end of the " + std::to_string(total_words) +
                                "-word chunk");
    }
    if (grid.num_blocks() == 0) continue;
    CHUNKWISE_RETURN_IF_ERROR(
        DecodeChannel(ChannelWords(encoded, start), grid, out.data() + c * channel_voxels, where));
  }
  return Status::Ok();
}

}  // namespace

std::uint64_t SegmentationLayout::num_voxels() const {
  return static_cast<std::uint64_t>(extent[0]) * extent[1] * extent[2] * channels;
}

Status ValidateSegmentationLayout(const SegmentationLayout& layout) {
  std::uint64_t block_voxels = 1;
  long double voxels = layout.channels;
  for (int d = 0; d < 3; ++d) {
    if (layout.extent[d] < 0 || layout.block[d] < 1 ||
        static_cast<std::uint64_t>(layout.block[d]) > kMaxBlockVoxels) {
      return Status::InvalidArgument(
          "compressed_segmentation: extent " + FormatExtent(layout.extent) + " and block " +
          FormatExtent(layout.block) + " need extents >= 0 and block edges >= 1");
    }
    block_voxels *= static_cast<std::uint64_t>(layout.block[d]);
    voxels *= static_cast<long double>(layout.extent[d]);
  }
  if (block_voxels > kMaxBlockVoxels) {
    return Status::InvalidArgument("compressed_segmentation: block " + FormatExtent(layout.block) +
                                   " holds more than 2^20 voxels");
  }
  if (layout.channels < 1 || voxels > static_cast<long double>(std::uint64_t{1} << 40)) {
    return Status::InvalidArgument("compressed_segmentation: " + std::to_string(layout.channels) +
                                   " channel(s) of extent " + FormatExtent(layout.extent) +
                                   " is not a chunk this codec can hold");
  }
  return Status::Ok();
}

Status EncodeCompressedSegmentation(std::span<const std::uint64_t> voxels,
                                    const SegmentationLayout& layout, Bytes& out) {
  return EncodeChunk(voxels, layout, out);
}
Status EncodeCompressedSegmentation(std::span<const std::uint32_t> voxels,
                                    const SegmentationLayout& layout, Bytes& out) {
  return EncodeChunk(voxels, layout, out);
}
Status DecodeCompressedSegmentation(ByteView encoded, const SegmentationLayout& layout,
                                    std::span<std::uint64_t> out, std::string_view name) {
  return DecodeChunk(encoded, layout, out, name);
}
Status DecodeCompressedSegmentation(ByteView encoded, const SegmentationLayout& layout,
                                    std::span<std::uint32_t> out, std::string_view name) {
  return DecodeChunk(encoded, layout, out, name);
}

}  // namespace chunkwise::codec
