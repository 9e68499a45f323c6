#include "formats/parquet/encodings.h"

#include <algorithm>
#include <bit>
#include <string>

namespace chunkwise::formats::parquet {
namespace {

void AppendVarint(std::uint64_t value, Bytes& out) {
  while (value >= 0x80) {
    out.push_back(static_cast<std::uint8_t>(value | 0x80));
    value >>= 7;
  }
  out.push_back(static_cast<std::uint8_t>(value));
}

Result<std::uint64_t> ReadVarint(ByteView data, std::size_t& position, const std::string& what) {
  std::uint64_t value = 0;
  for (int shift = 0; shift < 64; shift += 7) {
    if (position >= data.size()) break;
    const std::uint8_t byte = data[position++];
    value |= static_cast<std::uint64_t>(byte & 0x7F) << shift;
    if ((byte & 0x80) == 0) return value;
  }
  return Status::Corruption(what + ": truncated or overlong run header");
}

// Bit-packs `values` (a multiple of 8) LSB first.
void AppendBitPacked(std::span<const std::uint32_t> values, int bit_width, Bytes& out) {
  std::uint64_t buffer = 0;
  int bits = 0;
  for (const std::uint32_t value : values) {
    buffer |= static_cast<std::uint64_t>(value) << bits;
    bits += bit_width;
    while (bits >= 8) {
      out.push_back(static_cast<std::uint8_t>(buffer));
      buffer >>= 8;
      bits -= 8;
    }
  }
}

void AppendRleRun(std::uint32_t value, std::size_t count, int bit_width, Bytes& out) {
  AppendVarint(static_cast<std::uint64_t>(count) << 1, out);
  for (int byte = 0; byte < (bit_width + 7) / 8; ++byte) {
    out.push_back(static_cast<std::uint8_t>(value >> (8 * byte)));
  }
}

}  // namespace

int BitWidthFor(std::uint32_t max_value) { return max_value == 0 ? 0 : std::bit_width(max_value); }

void AppendHybrid(std::span<const std::uint32_t> values, int bit_width, Bytes& out) {
  std::vector<std::uint32_t> literals;
  auto flush_literals = [&] {
    if (literals.empty()) return;
    AppendVarint(((literals.size() / 8) << 1) | 1, out);
    AppendBitPacked(literals, bit_width, out);
    literals.clear();
  };
  std::size_t i = 0;
  while (i < values.size()) {
    std::size_t run = 1;
    while (i + run < values.size() && values[i + run] == values[i]) ++run;
    if (run >= 8) {
      flush_literals();
      AppendRleRun(values[i], run, bit_width, out);
      i += run;
      continue;
    }
    // Literals go in groups of 8 so that the pending count stays a multiple of 8.
    for (std::size_t k = 0; k < 8; ++k)
      literals.push_back(i + k < values.size() ? values[i + k] : 0);
    i += 8;
    if (literals.size() >= 8 * 64) flush_literals();
  }
  flush_literals();
}

Status DecodeHybrid(ByteView data, int bit_width, std::span<std::uint32_t> out,
                    const std::string& what) {
  if (bit_width < 0 || bit_width > 32) {
    return Status::Corruption(what + ": bit width " + std::to_string(bit_width) + " exceeds 32");
  }
  const std::uint64_t max_value = bit_width == 32 ? 0xFFFFFFFFull : (1ull << bit_width) - 1;
  std::size_t position = 0;
  std::size_t filled = 0;
  while (filled < out.size()) {
    CHUNKWISE_ASSIGN_OR_RETURN(const std::uint64_t header, ReadVarint(data, position, what));
    if ((header & 1) == 0) {
      const std::size_t value_bytes = (bit_width + 7) / 8;
      if (data.size() - position < value_bytes)
        return Status::Corruption(what + ": truncated RLE run");
      std::uint64_t value = 0;
      for (std::size_t b = 0; b < value_bytes; ++b)
        value |= std::uint64_t{data[position + b]} << (8 * b);
      position += value_bytes;
      if (value > max_value)
        return Status::Corruption(what + ": RLE value wider than the bit width");
      const std::size_t count = std::min<std::uint64_t>(header >> 1, out.size() - filled);
      std::fill_n(out.begin() + filled, count, static_cast<std::uint32_t>(value));
      filled += count;
      continue;
    }
    const std::uint64_t groups = header >> 1;
    // Truncated final groups are tolerated as padding only when they cover no needed value.
    const std::uint64_t available_groups =
        bit_width == 0 ? groups : (data.size() - position) / bit_width;
    const std::uint64_t needed_groups = (out.size() - filled + 7) / 8;
    const std::uint64_t used_groups = std::min(groups, needed_groups);
    if (used_groups > available_groups)
      return Status::Corruption(what + ": truncated bit-packed run");
    std::uint64_t buffer = 0;
    int bits = 0;
    std::size_t byte = position;
    const std::size_t count = std::min<std::uint64_t>(used_groups * 8, out.size() - filled);
    for (std::size_t k = 0; k < count; ++k) {
      while (bits < bit_width) {
        buffer |= std::uint64_t{data[byte++]} << bits;
        bits += 8;
      }
      out[filled + k] = static_cast<std::uint32_t>(buffer & max_value);
      buffer >>= bit_width;
      bits -= bit_width;
    }
    filled += count;
    position += std::min(groups, available_groups) * bit_width;
  }
  return Status::Ok();
}

void AppendPlainIntegers(std::span<const std::int64_t> values, PhysicalType type, Bytes& out) {
  const std::size_t width = type == PhysicalType::kInt32 ? 4 : 8;
  const std::size_t at = out.size();
  out.resize(at + values.size() * width);
  std::uint8_t* cursor = out.data() + at;
  for (const std::int64_t value : values) {
    if (width == 4) {
      StoreLittleEndian(static_cast<std::uint32_t>(value), cursor);
    } else {
      StoreLittleEndian(static_cast<std::uint64_t>(value), cursor);
    }
    cursor += width;
  }
}

Result<std::size_t> DecodePlainIntegers(ByteView data, PhysicalType type, std::size_t count,
                                        std::vector<std::int64_t>& out, const std::string& what) {
  const std::size_t width = type == PhysicalType::kInt32 ? 4 : 8;
  if (count > data.size() / width) {
    return Status::Corruption(what + ": " + std::to_string(count) + " PLAIN values need " +
                              std::to_string(count * width) + " bytes, the page has " +
                              std::to_string(data.size()));
  }
  const std::uint8_t* cursor = data.data();
  for (std::size_t i = 0; i < count; ++i, cursor += width) {
    out.push_back(width == 4 ? static_cast<std::int32_t>(LoadLittleEndian<std::uint32_t>(cursor))
                             : static_cast<std::int64_t>(LoadLittleEndian<std::uint64_t>(cursor)));
  }
  return count * width;
}

void AppendPlainByteArray(ByteView value, Bytes& out) {
  AppendLittleEndian(static_cast<std::uint32_t>(value.size()), out);
  AppendBytes(out, value);
}

Result<std::size_t> DecodePlainByteArrays(ByteView data, std::size_t count, ByteArrays& out,
                                          const std::string& what) {
  std::size_t position = 0;
  for (std::size_t i = 0; i < count; ++i) {
    if (data.size() - position < 4) {
      return Status::Corruption(what + ": PLAIN byte array " + std::to_string(i) +
                                " runs past the page");
    }
    const std::uint32_t length = LoadLittleEndian<std::uint32_t>(data.data() + position);
    position += 4;
    if (length > data.size() - position) {
      return Status::Corruption(what + ": PLAIN byte array " + std::to_string(i) + " of " +
                                std::to_string(length) + " bytes runs past the page");
    }
    out.Append(data.subspan(position, length));
    position += length;
  }
  return position;
}

}  // namespace chunkwise::formats::parquet
