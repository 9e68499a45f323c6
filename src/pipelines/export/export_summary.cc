#include <algorithm>
#include <cstdio>

#include "chunkwise/core/progress.h"
#include "core/json.h"
#include "pipelines/export/export_destination.h"
#include "pipelines/export_shards.h"

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
         " skipped (all labels 0); " + std::to_string(s.shards) + " shards" +
         (s.shards_kept != 0 ? " (" + std::to_string(s.shards_kept) + " more kept from before)"
                             : std::string()) +
         "; in " + core::FormatQuantity(static_cast<double>(s.stored_bytes), "B") +
         " stored (gzip), " + core::FormatQuantity(static_cast<double>(s.block_bytes), "B") +
         " DVID blocks; out " + core::FormatQuantity(static_cast<double>(s.zstd_bytes), "B") +
         " zstd (ratio " + ratio + "), " +
         core::FormatQuantity(static_cast<double>(s.file_bytes), "B") + " files; " +
         core::FormatDuration(s.seconds) + ", " + blocks_per_second + " blocks/s\n";
}

// The counters of a scale summary, by name, for ToJson / FromJson / Add.
template <typename Visit>
void ForEachCounter(ExportScaleSummary& s, Visit visit) {
  visit("blocks_read", s.blocks_read);
  visit("blocks_written", s.blocks_written);
  visit("blocks_skipped", s.blocks_skipped);
  visit("shards", s.shards);
  visit("shards_kept", s.shards_kept);
  visit("stored_bytes", s.stored_bytes);
  visit("block_bytes", s.block_bytes);
  visit("zstd_bytes", s.zstd_bytes);
  visit("file_bytes", s.file_bytes);
}

// Adds each counter of `from` to the same counter of `into`.
void AddCounters(ExportScaleSummary& into, ExportScaleSummary from) {
  std::vector<std::uint64_t> values;
  ForEachCounter(from, [&](const char*, std::uint64_t& value) { values.push_back(value); });
  std::size_t next = 0;
  ForEachCounter(into, [&](const char*, std::uint64_t& value) { value += values[next++]; });
}

}  // namespace

std::string ExportSummary::ToJson() const {
  nlohmann::json json{
      {"version", version}, {"seconds", seconds}, {"scales", nlohmann::json::array()}};
  for (ExportScaleSummary scale : scales) {
    nlohmann::json entry{{"seconds", scale.seconds}};
    ForEachCounter(scale, [&](const char* name, std::uint64_t& value) { entry[name] = value; });
    json["scales"].push_back(std::move(entry));
  }
  return json.dump();
}

Result<ExportSummary> ExportSummary::FromJson(std::string_view text) {
  CHUNKWISE_ASSIGN_OR_RETURN(const nlohmann::json json,
                             core::ParseJson(text, "an export summary", StatusCode::kInternal));
  ExportSummary summary;
  try {
    summary.version = json.at("version").get<std::uint32_t>();
    summary.seconds = json.at("seconds").get<double>();
    for (const nlohmann::json& entry : json.at("scales")) {
      ExportScaleSummary scale;
      scale.seconds = entry.at("seconds").get<double>();
      ForEachCounter(scale, [&](const char* name, std::uint64_t& value) {
        value = entry.at(name).get<std::uint64_t>();
      });
      summary.scales.push_back(scale);
    }
  } catch (const nlohmann::json::exception& error) {
    return Status::Internal(std::string("an export summary: ") + error.what());
  }
  return summary;
}

void ExportSummary::Add(const ExportSummary& other) {
  if (scales.size() < other.scales.size()) scales.resize(other.scales.size());
  for (std::size_t s = 0; s < other.scales.size(); ++s) {
    AddCounters(scales[s], other.scales[s]);
    scales[s].seconds = std::max(scales[s].seconds, other.scales[s].seconds);
  }
  seconds = std::max(seconds, other.seconds);
}

std::string ExportSummary::Format() const {
  std::string text = "export-shards at version " + std::to_string(version) + "\n";
  ExportScaleSummary total;
  for (std::size_t s = 0; s < scales.size(); ++s) {
    const ExportScaleSummary& scale = scales[s];
    text += Line(detail::ExportScaleName(static_cast<int>(s)), scale);
    AddCounters(total, scale);
  }
  total.seconds = seconds;
  return text + Line("total", total);
}

}  // namespace chunkwise::pipelines
