// libFuzzer target: the export-shard CSV chunk index parser on arbitrary text.
// Parsing must return a value or an error; a parsed index must format and parse
// back to the same index.
#include <cstdlib>
#include <string_view>

#include "formats/dvid/export_chunk_index.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace chunkwise::formats::dvid;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const ChunkIndexLimits limits{static_cast<std::int64_t>(size % 7), size * 3};
  auto index = ParseChunkIndex(text, "fuzz.csv", limits);
  if (!index.ok()) return 0;
  auto again = ParseChunkIndex(FormatChunkIndex(*index), "fuzz.csv", limits);
  if (!again.ok() || !(*again == *index)) std::abort();
  return 0;
}
