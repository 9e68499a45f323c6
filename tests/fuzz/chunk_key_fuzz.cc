// Fuzzes ChunkKeyEncoding::ParseKey, which turns the keys a store lists into
// grid coordinates for listing-driven walks (zarr convert, refs build, info).
// Whatever the bytes, a key it accepts must lie inside the grid and be
// exactly the key Key writes for that coordinate (so that two keys never
// name one chunk), and every coordinate inside the grid must come back from
// its own key.
//
// Input: byte 0 picks the encoding (bit 0: v2, bit 1: "." or "/") and the
// rank (bits 2..4, at most 4); then one byte per dimension for the grid's
// extent (a power of two up to 2^62 when bit 7 is set, else the byte); then
// the key.
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "chunkwise/core/check.h"
#include "formats/zarr/chunk_key_encoding.h"

namespace {

using chunkwise::core::Index;
using chunkwise::formats::zarr::ChunkKeyEncoding;

Index Extent(std::uint8_t byte) {
  if ((byte & 0x80) == 0) return byte;
  return Index{1} << ((byte & 0x7f) % 63);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 1) return 0;
  const char separator = (data[0] & 2) != 0 ? '.' : '/';
  const ChunkKeyEncoding encoding =
      (data[0] & 1) != 0 ? ChunkKeyEncoding::V2(separator) : ChunkKeyEncoding::Default(separator);
  const std::size_t rank = ((data[0] >> 2) & 7) % 5;
  if (size < 1 + rank) return 0;
  std::vector<Index> grid(rank);
  for (std::size_t d = 0; d < rank; ++d) grid[d] = Extent(data[1 + d]);
  const std::string_view key(reinterpret_cast<const char*>(data) + 1 + rank, size - 1 - rank);

  const auto coord = encoding.ParseKey(key, grid);
  if (coord) {
    CHUNKWISE_CHECK(coord->size() == rank);
    for (std::size_t d = 0; d < rank; ++d) {
      CHUNKWISE_CHECK((*coord)[d] >= 0 && (*coord)[d] < grid[d]);
    }
    CHUNKWISE_CHECK(encoding.Key(*coord) == key);
    CHUNKWISE_CHECK(key.starts_with(encoding.KeyPrefix()));
  }
  // A coordinate inside the grid, from the key's bytes, comes back from its key.
  bool inside = true;
  std::vector<Index> chosen(rank);
  for (std::size_t d = 0; d < rank; ++d) {
    inside = inside && grid[d] > 0;
    const auto byte = d < key.size() ? static_cast<std::uint8_t>(key[d]) : std::uint8_t{0};
    chosen[d] = grid[d] > 0 ? (grid[d] - 1) / 255 * byte % grid[d] : 0;
  }
  if (inside) {
    const auto back = encoding.ParseKey(encoding.Key(chosen), grid);
    CHUNKWISE_CHECK(back.has_value() && *back == chosen);
  }
  return 0;
}
