// libFuzzer target: zarr-vectors metadata and names as they arrive from a
// store — root and level attributes (JSON), delta segments, chunk and cell keys.
//
// Nothing may throw or crash. Root metadata that parses must format and parse
// back to the same fields; a delta that parses must format back to the same
// text, and a cell key's chunks must survive formatting and parsing again.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "chunkwise/formats/vectors/paths.h"
#include "chunkwise/formats/vectors/store_metadata.h"
#include "chunkwise/formats/zarr/array_metadata.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  namespace vectors = chunkwise::formats::vectors;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const auto delta = vectors::ParseDelta(text);
  if (delta.ok() && vectors::FormatDelta(*delta) != text) std::abort();
  for (int width = 1; width <= 3; ++width) {
    const auto chunks = vectors::ParseCellKey(text, width);
    if (!chunks.ok()) continue;
    const auto again = vectors::ParseCellKey(vectors::FormatCellKey(*chunks), width);
    if (!again.ok() || *again != *chunks) std::abort();
  }
  const auto json = chunkwise::formats::zarr::ParseJsonDocument(text, "fuzz");
  if (!json.ok()) return 0;
  (void)vectors::ParseLevelAttributes(*json, "fuzz");
  const auto root = vectors::ParseRootAttributes(*json, "fuzz");
  if (!root.ok()) return 0;
  const auto again = vectors::ParseRootAttributes(vectors::FormatRootAttributes(*root), "fuzz");
  if (!again.ok() || again->chunk_shape != root->chunk_shape ||
      again->geometry_type != root->geometry_type || again->capabilities != root->capabilities) {
    std::abort();
  }
  return 0;
}
