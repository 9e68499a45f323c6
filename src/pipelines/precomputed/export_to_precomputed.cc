#include "pipelines/export_to_precomputed.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <utility>

#include "chunkwise/core/thread_pool.h"
#include "core/json.h"
#include "formats/dvid/arrow_shard_reader.h"
#include "formats/precomputed/volume.h"
#include "pipelines/exported_volume_reader.h"
#include "pipelines/precomputed/destination.h"
#include "store/memory_store.h"

namespace chunkwise::pipelines {
namespace {

namespace dvid = formats::dvid;
namespace pc = formats::precomputed;
using nlohmann::json;

constexpr std::int64_t kEdge = kExportChunkEdge;
constexpr std::size_t kBlockVoxels = kEdge * kEdge * kEdge;

std::string FormatCell(const core::GridCoord3& cell) {
  std::string text(1, '(');  // Appends: GCC 12 warns falsely on "(" + std::string.
  text += std::to_string(cell[0]) + ", " + std::to_string(cell[1]) + ", " +
          std::to_string(cell[2]) + ")";
  return text;
}

// The encodings a sharding object names, or nullopt.
std::optional<pc::ShardEncoding> NamedEncoding(const json& sharding, const char* field) {
  const auto it = sharding.find(field);
  if (it == sharding.end() || !it->is_string()) return std::nullopt;
  return *it == "gzip" ? pc::ShardEncoding::kGzip : pc::ShardEncoding::kRaw;
}

// Copies the part of a 64³ block (z, y, x) inside `extent` (x, y, z) to `out`.
void CutBlock(std::span<const std::uint64_t> block, const core::GridCoord3& extent,
              std::uint64_t* out) {
  for (core::Index z = 0; z < extent[2]; ++z) {
    for (core::Index y = 0; y < extent[1]; ++y) {
      std::memcpy(out + (z * extent[1] + y) * extent[0], block.data() + (z * kEdge + y) * kEdge,
                  extent[0] * sizeof(std::uint64_t));
    }
  }
}

struct ScaleJob {
  int scale = 0;
  std::vector<std::string> arrow_keys;
};

class Converter {
 public:
  Converter(std::shared_ptr<const store::Store> source, pc::Volume& volume,
            const ExportToPrecomputedOptions& options, core::ThreadPool& pool)
      : source_(std::move(source)), volume_(volume), options_(options), pool_(pool) {}

  // Arrow shards convert in parallel, and so do the blocks of each: a
  // shard's encoded chunks stay in memory until it is written, so at most
  // one shard per thread is held at once.
  Status ConvertScale(const ScaleJob& job, const ExportScaleSpec& spec,
                      ExportToPrecomputedScaleSummary& summary, core::ProgressReporter& progress) {
    std::map<std::uint64_t, std::string> seen;  // Precomputed shard → the Arrow shard it came from.
    CHUNKWISE_RETURN_IF_ERROR(
        pool_.ParallelFor(job.arrow_keys.size(), [&](std::size_t i) -> Status {
          CHUNKWISE_RETURN_IF_ERROR(
              ConvertShard(job.scale, job.arrow_keys[i], spec, seen, summary));
          progress.Add(1);
          return Status::Ok();
        }));
    summary.sources = std::move(seen);
    return Status::Ok();
  }

 private:
  struct ShardPlan {
    std::vector<core::GridCoord3> cells;
    std::vector<std::uint64_t> ids;
    std::uint64_t shard = 0;
  };

  // The cells of an Arrow shard and the one precomputed shard they belong to.
  Result<ShardPlan> Plan(const dvid::ArrowShardReader& reader, int scale,
                         const ExportScaleSpec& spec, const std::string& name) const {
    const pc::ScaleInfo& scale_info = volume_.scale(scale);
    const std::vector<std::array<std::int32_t, 3>> listed = reader.ListChunks();
    ShardPlan plan;
    plan.cells.resize(listed.size());
    plan.ids.resize(listed.size());
    for (std::size_t i = 0; i < listed.size(); ++i) {
      const core::GridCoord3 cell{listed[i][0], listed[i][1], listed[i][2]};
      if (!spec.InGrid(cell)) {
        return Status::InvalidArgument(name + ": chunk " + FormatCell(cell) +
                                       " lies outside the grid of scale " + scale_info.key);
      }
      plan.cells[i] = cell;
      plan.ids[i] = scale_info.ChunkId(cell);
      const std::uint64_t shard = pc::LocateChunk(*scale_info.sharding, plan.ids[i]).shard;
      if (i == 0) plan.shard = shard;
      if (shard != plan.shard) {
        return Status::InvalidArgument(name + ": holds chunks of precomputed shards " +
                                       std::to_string(plan.shard) + " and " +
                                       std::to_string(shard) + " (chunk " + FormatCell(cell) + ")");
      }
    }
    return plan;
  }

  // Every block of a shard is converted: from an object store one GET of the
  // shard beats one request per block; local files read by range.
  dvid::ArrowShardOpenOptions WholeShardReads() const {
    return {.read_whole = !source_->capabilities().local};
  }

  Status ConvertShard(int scale, const std::string& arrow_key, const ExportScaleSpec& spec,
                      std::map<std::uint64_t, std::string>& seen,
                      ExportToPrecomputedScaleSummary& summary) {
    const std::string name = source_->Describe(arrow_key);
    CHUNKWISE_ASSIGN_OR_RETURN(dvid::ArrowShardReader reader,
                               dvid::ArrowShardReader::Open(source_, arrow_key, WholeShardReads()));
    CHUNKWISE_ASSIGN_OR_RETURN(const ShardPlan plan, Plan(reader, scale, spec, name));
    if (plan.cells.empty()) return Status::Ok();
    {
      std::lock_guard lock(mutex_);
      if (const auto [it, inserted] = seen.emplace(plan.shard, arrow_key); !inserted) {
        return Status::InvalidArgument(name + " and " + source_->Describe(it->second) +
                                       " both hold chunks of precomputed shard " +
                                       volume_.scale(scale).ShardKey(plan.shard));
      }
      ++summary.arrow_shards;
    }
    if (options_.resume && ShardIsComplete(scale, plan.shard, plan.ids)) {
      std::lock_guard lock(mutex_);
      ++summary.shards_kept;
      return Status::Ok();
    }
    if (options_.before_shard) CHUNKWISE_RETURN_IF_ERROR(options_.before_shard(arrow_key));
    const std::size_t n = plan.cells.size();
    std::vector<Bytes> encoded(n);
    std::vector<std::uint64_t> input_bytes(n);
    CHUNKWISE_RETURN_IF_ERROR(pool_.ParallelFor(n, [&](std::size_t i) -> Status {
      return EncodeBlock(reader, scale, plan.cells[i], name, encoded[i], input_bytes[i]);
    }));
    std::vector<pc::StoredChunk> stored(n);
    std::uint64_t input_total = 0;
    for (std::size_t i = 0; i < n; ++i) {
      stored[i] = {plan.cells[i], encoded[i]};
      input_total += input_bytes[i];
    }
    CHUNKWISE_ASSIGN_OR_RETURN(const std::uint64_t written,
                               volume_.WriteShard(scale, plan.shard, stored));
    std::lock_guard lock(mutex_);
    summary.input_bytes += input_total;
    summary.output_bytes += written;
    summary.blocks += n;
    ++summary.shards_written;
    return Status::Ok();
  }

  // True if the shard is stored, its indexes parse, and it lists exactly `ids`.
  bool ShardIsComplete(int scale, std::uint64_t shard, std::vector<std::uint64_t> ids) const {
    Result<std::optional<std::vector<std::uint64_t>>> listed = volume_.ListShard(scale, shard);
    if (!listed.ok() || !listed->has_value()) return false;
    std::sort(ids.begin(), ids.end());
    return **listed == ids;
  }

  Status EncodeBlock(const dvid::ArrowShardReader& reader, int scale, const core::GridCoord3& cell,
                     const std::string& name, Bytes& out, std::uint64_t& input_bytes) const {
    const std::string where = name + ": chunk " + FormatCell(cell);
    CHUNKWISE_ASSIGN_OR_RETURN(
        std::optional<dvid::ExportBlock> record,
        reader.Get(static_cast<std::int32_t>(cell[0]), static_cast<std::int32_t>(cell[1]),
                   static_cast<std::int32_t>(cell[2])));
    if (!record.has_value()) return Status::Corruption(where + ": listed but not found");
    input_bytes = record->dvid_compressed_block.size();
    thread_local std::vector<std::uint64_t> block(kBlockVoxels);
    thread_local std::vector<std::uint64_t> cut(kBlockVoxels);
    CHUNKWISE_RETURN_IF_ERROR(DecodeExportBlock(*record, options_.supervoxels, block, where));
    const core::GridCoord3 extent = volume_.scale(scale).ChunkExtent(cell);
    const std::uint64_t* voxels = block.data();
    if (extent != core::GridCoord3{kEdge, kEdge, kEdge}) {
      CutBlock(block, extent, cut.data());
      voxels = cut.data();
    }
    const ByteView bytes(reinterpret_cast<const std::uint8_t*>(voxels),
                         extent[0] * extent[1] * extent[2] * sizeof(std::uint64_t));
    CHUNKWISE_ASSIGN_OR_RETURN(out, volume_.EncodeChunk(scale, cell, bytes));
    return Status::Ok();
  }

  std::shared_ptr<const store::Store> source_;
  pc::Volume& volume_;
  const ExportToPrecomputedOptions& options_;
  core::ThreadPool& pool_;
  std::mutex mutex_;  // Guards the summary and the map of shards seen.
};

// The .arrow keys of each scale to convert.
Result<std::vector<ScaleJob>> FindShards(const store::Store& source, const std::string& prefix,
                                         const ExportSpec& spec,
                                         const ExportToPrecomputedOptions& options) {
  std::vector<int> scales = options.scales;
  const bool every = scales.empty();
  if (every) {
    for (int s = 0; s < static_cast<int>(spec.scales.size()); ++s) scales.push_back(s);
  }
  std::vector<ScaleJob> jobs;
  for (const int s : scales) {
    if (s < 0 || s >= static_cast<int>(spec.scales.size())) {
      return Status::InvalidArgument("scale " + std::to_string(s) + ": the spec has " +
                                     std::to_string(spec.scales.size()) + " scales");
    }
    const std::string dir = prefix + "s" + std::to_string(s) + "/";
    CHUNKWISE_ASSIGN_OR_RETURN(const std::vector<std::string> keys, source.List(dir));
    ScaleJob job{s, {}};
    for (const std::string& key : keys) {
      if (key.size() > 6 && key.ends_with(".arrow") &&
          key.find('/', dir.size()) == std::string::npos) {
        job.arrow_keys.push_back(key);
      }
    }
    if (job.arrow_keys.empty()) {
      if (every) continue;
      return Status::NotFound(source.Describe(dir) + ": no Arrow shards for scale " +
                              std::to_string(s));
    }
    jobs.push_back(std::move(job));
  }
  if (jobs.empty()) return Status::NotFound(source.Describe(prefix) + ": no Arrow shards");
  return jobs;
}

}  // namespace

Result<pc::VolumeInfo> PrecomputedInfoForExport(const ExportSpec& spec,
                                                pc::ShardEncoding data_encoding) {
  CHUNKWISE_ASSIGN_OR_RETURN(const json root, core::ParseJson(spec.info_json, "export spec"));
  if (!root.contains("scales")) {
    return Status::InvalidArgument("export spec: info_json is not a spec");
  }
  pc::VolumeInfo info;
  info.type = pc::VolumeType::kSegmentation;
  info.data_type = core::DataType(core::DataTypeId::kUInt64);
  for (std::size_t s = 0; s < spec.scales.size(); ++s) {
    const ExportScaleSpec& scale = spec.scales[s];
    const json& scale_json = root["scales"][s];
    pc::ScaleInfo out;
    out.key = scale.key;
    out.size = scale.size;
    out.chunk_size = {kEdge, kEdge, kEdge};
    out.encoding = pc::ChunkEncoding::kCompressedSegmentation;
    out.compressed_segmentation_block_size = {8, 8, 8};
    const auto resolution = scale_json.find("resolution");
    if (resolution != scale_json.end() && resolution->is_array() && resolution->size() == 3) {
      for (int d = 0; d < 3; ++d) {
        if ((*resolution)[d].is_number()) out.resolution[d] = (*resolution)[d].get<double>();
      }
    } else {
      out.resolution = {static_cast<double>(1 << s), static_cast<double>(1 << s),
                        static_cast<double>(1 << s)};
    }
    pc::ShardingSpec sharding;
    sharding.preshift_bits = scale.sharding.preshift_bits;
    sharding.minishard_bits = scale.sharding.minishard_bits;
    sharding.shard_bits = scale.sharding.shard_bits;
    sharding.hash = scale.sharding.hash == ShardHash::kIdentity
                        ? pc::ShardHash::kIdentity
                        : pc::ShardHash::kMurmurHash3X86_128;
    const json& sharding_json = scale_json["sharding"];
    sharding.minishard_index_encoding =
        NamedEncoding(sharding_json, "minishard_index_encoding").value_or(pc::ShardEncoding::kGzip);
    sharding.data_encoding = NamedEncoding(sharding_json, "data_encoding").value_or(data_encoding);
    out.sharding = sharding;
    info.scales.push_back(std::move(out));
  }
  return info;
}

namespace {

// What every step of a job derives from its arguments: the spec, the Arrow
// shards of each scale to convert and the volume to write (staged: nothing
// is written until PublishInfo).
struct JobPlan {
  ExportSpec spec;
  std::vector<ScaleJob> jobs;
  std::shared_ptr<core::ThreadPool> pool;
  std::unique_ptr<pc::Volume> volume;
};

Result<JobPlan> PlanJob(const std::shared_ptr<const store::Store>& source,
                        const std::string& source_prefix, std::optional<ExportSpec> spec,
                        std::shared_ptr<store::Store> dest, const std::string& dest_prefix,
                        const ExportToPrecomputedOptions& options) {
  if (!spec.has_value()) {
    const std::string key = source_prefix + "info";
    CHUNKWISE_ASSIGN_OR_RETURN(const std::optional<Bytes> text, source->Get(key));
    if (!text.has_value()) {
      return Status::NotFound(source->Describe(key) +
                              ": no export spec (DVID's exports need the spec given)");
    }
    CHUNKWISE_ASSIGN_OR_RETURN(spec, ParseExportSpec(AsChars(*text), source->Describe(key)));
  }
  JobPlan plan;
  CHUNKWISE_ASSIGN_OR_RETURN(plan.jobs, FindShards(*source, source_prefix, *spec, options));
  CHUNKWISE_ASSIGN_OR_RETURN(pc::VolumeInfo info,
                             PrecomputedInfoForExport(*spec, options.data_encoding));
  plan.spec = std::move(*spec);
  plan.pool = std::make_shared<core::ThreadPool>(options.threads);
  CHUNKWISE_ASSIGN_OR_RETURN(
      plan.volume, pc::Volume::Stage(std::move(dest), dest_prefix, std::move(info),
                                     {.pool = plan.pool, .gzip_level = options.gzip_level}));
  return plan;
}

// The part's Arrow shards: unit u (scale after scale, keys in order) is part.Owns(u)'s.
void KeepOwnShards(std::vector<ScaleJob>& jobs, const core::JobPart& part) {
  std::uint64_t unit = 0;
  for (ScaleJob& job : jobs) {
    std::vector<std::string> own;
    for (std::string& key : job.arrow_keys) {
      if (part.Owns(unit++)) own.push_back(std::move(key));
    }
    job.arrow_keys = std::move(own);
  }
}

// Adds the counts of `from` to those of `into` (not its seconds or sources).
void AddCounts(ExportToPrecomputedScaleSummary& into, const ExportToPrecomputedScaleSummary& from) {
  into.arrow_shards += from.arrow_shards;
  into.shards_written += from.shards_written;
  into.shards_kept += from.shards_kept;
  into.blocks += from.blocks;
  into.input_bytes += from.input_bytes;
  into.output_bytes += from.output_bytes;
}

// The job's summary from the parts': InvalidArgument when two parts claim
// one precomputed shard from different Arrow shards.
Result<ExportToPrecomputedSummary> AddParts(const std::vector<ExportToPrecomputedSummary>& parts,
                                            const store::Store& source, const pc::Volume& volume) {
  ExportToPrecomputedSummary job;
  std::map<std::string, std::size_t> by_key;
  for (const ExportToPrecomputedSummary& part : parts) {
    job.seconds = std::max(job.seconds, part.seconds);
    for (const ExportToPrecomputedScaleSummary& scale : part.scales) {
      const auto [at, added] = by_key.emplace(scale.key, job.scales.size());
      if (added) {
        ExportToPrecomputedScaleSummary first_of_key;
        first_of_key.key = scale.key;
        job.scales.push_back(std::move(first_of_key));
      }
      ExportToPrecomputedScaleSummary& total = job.scales[at->second];
      AddCounts(total, scale);
      total.seconds = std::max(total.seconds, scale.seconds);
      for (const auto& [shard, arrow_key] : scale.sources) {
        const auto [claimed, first] = total.sources.emplace(shard, arrow_key);
        if (!first && claimed->second != arrow_key) {
          std::string shard_key = std::to_string(shard);
          for (const pc::ScaleInfo& info : volume.info().scales) {
            if (info.key == scale.key) shard_key = info.ShardKey(shard);
          }
          return Status::InvalidArgument(source.Describe(arrow_key) + " and " +
                                         source.Describe(claimed->second) +
                                         " both hold chunks of precomputed shard " + shard_key);
        }
      }
    }
  }
  return job;
}

}  // namespace

Result<std::uint64_t> CountExportToPrecomputedShards(
    const std::shared_ptr<const store::Store>& source, const std::string& source_prefix,
    const std::optional<ExportSpec>& spec, const ExportToPrecomputedOptions& options) {
  CHUNKWISE_ASSIGN_OR_RETURN(
      const JobPlan plan,
      PlanJob(source, source_prefix, spec, store::MemoryStore::Create(), "", options));
  std::uint64_t count = 0;
  for (const ScaleJob& job : plan.jobs) count += job.arrow_keys.size();
  return count;
}

Status PrepareExportToPrecomputed(const std::shared_ptr<const store::Store>& source,
                                  const std::string& source_prefix,
                                  const std::optional<ExportSpec>& spec,
                                  std::shared_ptr<store::Store> dest,
                                  const std::string& dest_prefix,
                                  const ExportToPrecomputedOptions& options) {
  CHUNKWISE_ASSIGN_OR_RETURN(const JobPlan plan, PlanJob(source, source_prefix, spec,
                                                         std::move(dest), dest_prefix, options));
  return detail::PrepareDestination(*plan.volume,
                                    {.overwrite = options.overwrite, .resume = options.resume});
}

Result<ExportToPrecomputedSummary> ExportToPrecomputedPart(
    const std::shared_ptr<const store::Store>& source, const std::string& source_prefix,
    const std::optional<ExportSpec>& spec, std::shared_ptr<store::Store> dest,
    const std::string& dest_prefix, const core::JobPart& part,
    const ExportToPrecomputedOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  if (part.size < 1 || part.rank < 0 || part.rank >= part.size) {
    return Status::InvalidArgument("part " + std::to_string(part.rank) + " of " +
                                   std::to_string(part.size) + " does not exist");
  }
  CHUNKWISE_ASSIGN_OR_RETURN(
      JobPlan plan, PlanJob(source, source_prefix, spec, std::move(dest), dest_prefix, options));
  KeepOwnShards(plan.jobs, part);
  std::uint64_t total_shards = 0;
  for (const ScaleJob& job : plan.jobs) total_shards += job.arrow_keys.size();
  core::ProgressReporter progress({.label = "to-precomputed",
                                   .total_units = total_shards,
                                   .unit = "shards",
                                   .mode = options.progress});
  Converter converter(source, *plan.volume, options, *plan.pool);
  ExportToPrecomputedSummary summary;
  for (const ScaleJob& job : plan.jobs) {
    const auto scale_start = std::chrono::steady_clock::now();
    ExportToPrecomputedScaleSummary scale_summary;
    scale_summary.key = plan.volume->scale(job.scale).key;
    CHUNKWISE_RETURN_IF_ERROR(
        converter.ConvertScale(job, plan.spec.scales[job.scale], scale_summary, progress));
    scale_summary.seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - scale_start).count();
    summary.scales.push_back(std::move(scale_summary));
  }
  progress.Finish();
  summary.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return summary;
}

Result<ExportToPrecomputedSummary> PublishExportToPrecomputed(
    const std::shared_ptr<const store::Store>& source, const std::string& source_prefix,
    const std::optional<ExportSpec>& spec, std::shared_ptr<store::Store> dest,
    const std::string& dest_prefix, const std::vector<ExportToPrecomputedSummary>& parts,
    const ExportToPrecomputedOptions& options) {
  CHUNKWISE_ASSIGN_OR_RETURN(const JobPlan plan, PlanJob(source, source_prefix, spec,
                                                         std::move(dest), dest_prefix, options));
  CHUNKWISE_ASSIGN_OR_RETURN(const ExportToPrecomputedSummary job,
                             AddParts(parts, *source, *plan.volume));
  CHUNKWISE_RETURN_IF_ERROR(plan.volume->PublishInfo());
  return job;
}

Result<ExportToPrecomputedSummary> ExportToPrecomputed(
    const std::shared_ptr<const store::Store>& source, const std::string& source_prefix,
    std::optional<ExportSpec> spec, std::shared_ptr<store::Store> dest,
    const std::string& dest_prefix, const ExportToPrecomputedOptions& options) {
  core::SingleProcess alone;
  core::Communicator& ranks = options.ranks != nullptr ? *options.ranks : alone;
  ExportToPrecomputedOptions own = options;
  if (ranks.rank() != 0) own.progress = core::ProgressMode::kQuiet;
  // Every rank reaches each collective call with its outcome; none returns early.
  CHUNKWISE_RETURN_IF_ERROR(core::ShareRootStatus(
      ranks, ranks.rank() == 0
                 ? PrepareExportToPrecomputed(source, source_prefix, spec, dest, dest_prefix, own)
                 : Status::Ok()));
  const Result<ExportToPrecomputedSummary> part = ExportToPrecomputedPart(
      source, source_prefix, spec, dest, dest_prefix, {ranks.rank(), ranks.size()}, own);
  CHUNKWISE_ASSIGN_OR_RETURN(
      const std::vector<std::string> outcomes,
      core::GatherOutcomes(ranks, part.ok() ? Result<std::string>(part->ToJson())
                                            : Result<std::string>(part.status())));
  Result<ExportToPrecomputedSummary> job = ExportToPrecomputedSummary();
  if (ranks.rank() == 0) {
    std::vector<ExportToPrecomputedSummary> parts;
    for (const std::string& text : outcomes) {
      Result<ExportToPrecomputedSummary> decoded = ExportToPrecomputedSummary::FromJson(text);
      if (!decoded.ok()) {
        job = decoded.status();
        break;
      }
      parts.push_back(std::move(*decoded));
    }
    if (job.ok()) {
      job = PublishExportToPrecomputed(source, source_prefix, spec, dest, dest_prefix, parts, own);
    }
  }
  CHUNKWISE_RETURN_IF_ERROR(core::ShareRootStatus(ranks, job.status()));
  return ranks.rank() == 0 ? job : part;
}

std::string ExportToPrecomputedSummary::Format() const {
  std::string text;
  ExportToPrecomputedScaleSummary total;
  total.key = "total";
  total.seconds = seconds;
  const auto line = [](const ExportToPrecomputedScaleSummary& s) {
    const double rate = s.seconds > 0 ? static_cast<double>(s.blocks) / s.seconds : 0;
    char rate_text[32];
    std::snprintf(rate_text, sizeof(rate_text), "%.0f", rate);
    return s.key + ": " + std::to_string(s.arrow_shards) + " Arrow shards; " +
           std::to_string(s.shards_written) + " shards written, " + std::to_string(s.shards_kept) +
           " kept (complete); " + std::to_string(s.blocks) + " blocks; in " +
           core::FormatQuantity(static_cast<double>(s.input_bytes), "B") + " zstd, out " +
           core::FormatQuantity(static_cast<double>(s.output_bytes), "B") + "; " +
           core::FormatDuration(s.seconds) + ", " + rate_text + " blocks/s\n";
  };
  for (const ExportToPrecomputedScaleSummary& s : scales) {
    text += line(s);
    AddCounts(total, s);
  }
  return text + line(total);
}

std::string ExportToPrecomputedSummary::ToJson() const {
  json root = {{"seconds", seconds}, {"scales", json::array()}};
  for (const ExportToPrecomputedScaleSummary& s : scales) {
    json sources = json::array();
    for (const auto& [shard, key] : s.sources) sources.push_back({shard, key});
    root["scales"].push_back({{"key", s.key},
                              {"arrow_shards", s.arrow_shards},
                              {"shards_written", s.shards_written},
                              {"shards_kept", s.shards_kept},
                              {"blocks", s.blocks},
                              {"input_bytes", s.input_bytes},
                              {"output_bytes", s.output_bytes},
                              {"seconds", s.seconds},
                              {"sources", std::move(sources)}});
  }
  return root.dump();
}

Result<ExportToPrecomputedSummary> ExportToPrecomputedSummary::FromJson(std::string_view text) {
  CHUNKWISE_ASSIGN_OR_RETURN(const json root, core::ParseJson(text, "to-precomputed summary"));
  ExportToPrecomputedSummary summary;
  try {
    summary.seconds = root.at("seconds").get<double>();
    for (const json& s : root.at("scales")) {
      ExportToPrecomputedScaleSummary scale;
      scale.key = s.at("key").get<std::string>();
      scale.arrow_shards = s.at("arrow_shards").get<std::uint64_t>();
      scale.shards_written = s.at("shards_written").get<std::uint64_t>();
      scale.shards_kept = s.at("shards_kept").get<std::uint64_t>();
      scale.blocks = s.at("blocks").get<std::uint64_t>();
      scale.input_bytes = s.at("input_bytes").get<std::uint64_t>();
      scale.output_bytes = s.at("output_bytes").get<std::uint64_t>();
      scale.seconds = s.at("seconds").get<double>();
      for (const json& source : s.at("sources")) {
        scale.sources.emplace(source.at(0).get<std::uint64_t>(), source.at(1).get<std::string>());
      }
      summary.scales.push_back(std::move(scale));
    }
  } catch (const json::exception& error) {
    return Status::InvalidArgument(std::string("to-precomputed summary: ") + error.what());
  }
  return summary;
}

}  // namespace chunkwise::pipelines
