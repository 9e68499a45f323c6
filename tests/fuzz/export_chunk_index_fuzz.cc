// libFuzzer target: the export-shard CSV chunk index parser on arbitrary text.
// Parsing must return a value or an error; a parsed index must format and parse
// back to the same index, and every row of it must lie in the grid the limits
// give (a row outside the volume is Corruption, never a parsed row; #44).
#include <array>
#include <cstdlib>
#include <string_view>

#include "chunkwise/formats/dvid/export_chunk_index.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace chunkwise::formats::dvid;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const std::array<std::int64_t, 3> grid{static_cast<std::int64_t>(size % 5),
                                         static_cast<std::int64_t>(size % 11), 1 << 20};
  const ChunkIndexLimits limits{static_cast<std::int64_t>(size % 7), size * 3, grid};
  auto index = ParseChunkIndex(text, "fuzz.csv", limits);
  if (!index.ok()) return 0;
  for (const ChunkIndexRow& row : index->rows) {
    for (int d = 0; d < 3; ++d) {
      if (row.chunk[d] < 0 || row.chunk[d] >= grid[d]) std::abort();
    }
  }
  auto again = ParseChunkIndex(FormatChunkIndex(*index), "fuzz.csv", limits);
  if (!again.ok() || !(*again == *index)) std::abort();
  return 0;
}
