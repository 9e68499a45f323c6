// libFuzzer target: zarr-vectors metadata and names as they arrive from a
// store — root and level attributes (JSON), delta segments, chunk and cell keys.
//
// Nothing may throw or crash. Root metadata that parses must hold what readers
// divide by and compare with (chunk and bin shapes finite and positive, bounds
// finite with min <= max; #44) and format and parse back to the same fields; a delta that parses
// must format back to the same text, and a cell key's chunks must survive formatting and parsing
// again.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "formats/vectors/paths.h"
#include "formats/vectors/store_metadata.h"
#include "formats/zarr/array_metadata.h"

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
  for (int d = 0; d < 3; ++d) {
    const bool shapes = std::isfinite(root->chunk_shape[d]) && root->chunk_shape[d] > 0 &&
                        std::isfinite(root->base_bin_shape[d]) && root->base_bin_shape[d] > 0;
    const bool bounds = std::isfinite(root->bounds_min[d]) && std::isfinite(root->bounds_max[d]) &&
                        root->bounds_min[d] <= root->bounds_max[d];
    if (!shapes || !bounds) std::abort();
  }
  const auto again = vectors::ParseRootAttributes(vectors::FormatRootAttributes(*root), "fuzz");
  if (!again.ok() || again->chunk_shape != root->chunk_shape ||
      again->geometry_type != root->geometry_type || again->capabilities != root->capabilities) {
    std::abort();
  }
  return 0;
}
