#include <cstdio>

#include "chunkwise/core/progress.h"
#include "chunkwise/pipelines/export_shards.h"
#include "pipelines/export/export_destination.h"

namespace chunkwise::pipelines {
namespace {

std::string Line(const std::string& head, const ExportScaleSummary& s) {
  char ratio[32] = "-";
  if (s.zstd_bytes != 0) {
    std::snprintf(ratio, sizeof(ratio), "%.2f",
                  static_cast<double>(s.block_bytes) / static_cast<double>(s.zstd_bytes));
  }
  const double rate = s.seconds > 0 ? static_cast<double>(s.blocks_read) / s.seconds : 0;
  char blocks_per_second[32];
  std::snprintf(blocks_per_second, sizeof(blocks_per_second), "%.0f", rate);
  return head + ": " + std::to_string(s.blocks_read) + " blocks read, " +
         std::to_string(s.blocks_written) + " written, " + std::to_string(s.blocks_skipped) +
         " skipped (all labels 0); " + std::to_string(s.shards) + " shards; in " +
         core::FormatQuantity(static_cast<double>(s.stored_bytes), "B") + " stored (gzip), " +
         core::FormatQuantity(static_cast<double>(s.block_bytes), "B") + " DVID blocks; out " +
         core::FormatQuantity(static_cast<double>(s.zstd_bytes), "B") + " zstd (ratio " + ratio +
         "), " + core::FormatQuantity(static_cast<double>(s.file_bytes), "B") + " files; " +
         core::FormatDuration(s.seconds) + ", " + blocks_per_second + " blocks/s\n";
}

}  // namespace

std::string ExportSummary::Format() const {
  std::string text = "export-shards at version " + std::to_string(version) + "\n";
  ExportScaleSummary total;
  for (std::size_t s = 0; s < scales.size(); ++s) {
    const ExportScaleSummary& scale = scales[s];
    text += Line(detail::ExportScaleName(static_cast<int>(s)), scale);
    total.blocks_read += scale.blocks_read;
    total.blocks_written += scale.blocks_written;
    total.blocks_skipped += scale.blocks_skipped;
    total.shards += scale.shards;
    total.stored_bytes += scale.stored_bytes;
    total.block_bytes += scale.block_bytes;
    total.zstd_bytes += scale.zstd_bytes;
    total.file_bytes += scale.file_bytes;
  }
  total.seconds = seconds;
  return text + Line("total", total);
}

}  // namespace chunkwise::pipelines
