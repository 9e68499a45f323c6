// libFuzzer target: the export-shards spec parser on arbitrary text. Parsing
// must return a value or an error; a parsed spec's shard math must hold for
// the grid's corner chunks, and the info it writes must parse back alike.
#include <cstdlib>
#include <string_view>

#include "pipelines/export_spec.h"

namespace {

void CheckScale(const chunkwise::pipelines::ExportScaleSpec& scale) {
  const chunkwise::core::GridCoord3 last{scale.bits.grid[0] - 1, scale.bits.grid[1] - 1,
                                         scale.bits.grid[2] - 1};
  for (const auto& xyz : {chunkwise::core::GridCoord3{0, 0, 0}, last}) {
    if (!scale.InGrid(xyz)) std::abort();
    const std::uint64_t shard = scale.ShardOf(xyz);
    if (scale.sharding.shard_bits < 64 && (shard >> scale.sharding.shard_bits) != 0) std::abort();
    if (scale.ShardStem(xyz).empty() || scale.ShardZEnd(xyz) <= xyz[2]) std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace chunkwise::pipelines;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto spec = ParseExportSpec(text, "fuzz.json");
  if (!spec.ok()) return 0;
  for (const ExportScaleSpec& scale : spec->scales) CheckScale(scale);
  auto info = InfoForScales(*spec, static_cast<int>(spec->scales.size()));
  if (!info.ok()) std::abort();
  auto again = ParseExportSpec(*info, "info");
  if (!again.ok() || again->scales.size() != spec->scales.size()) std::abort();
  return 0;
}
