#include "pipelines/export_shards.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <functional>
#include <limits>
#include <optional>
#include <set>
#include <thread>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "codec/zstd_codec.h"
#include "core/bounded_queue.h"
#include "formats/dvid/export_chunk_index.h"
#include "formats/dvid/label_block.h"
#include "formats/dvid/value_envelope.h"
#include "pipelines/export/export_destination.h"
#include "pipelines/export/shard_writer_stage.h"

namespace chunkwise::pipelines {
namespace {

namespace dvid = formats::dvid;
using detail::PipelineFailure;
using detail::ShardMessage;
using detail::ShardWriterStage;

constexpr int kZstdLevel = 3;
// Blocks per queue entry. Each entry costs a wake-up of a handler, of the
// scan (when the queue was full) and of a writer: at 8 blocks these futex
// calls and rescheduling interrupts took 6% of a 2-core export, at 32 about 2%.
// Still small enough that the handlers finish a scale at nearly the same time.
constexpr std::size_t kScanBatch = 32;

// One block on its way from the scan to a chunk handler.
struct ScanItem {
  core::GridCoord3 xyz{};
  std::uint64_t shard = 0;
  std::string stem;
  Bytes stored_value;  // Envelope byte + gzip, as in the database.
};

struct ScaleCounters {
  std::atomic<std::uint64_t> blocks_read{0}, blocks_written{0}, blocks_skipped{0};
  std::atomic<std::uint64_t> stored_bytes{0}, block_bytes{0}, zstd_bytes{0};
};

// What every chunk handler of one scale shares; read-only but for the counters.
struct ScaleJob {
  std::string db_name;  // The database's path, for messages.
  const ExportScaleSpec& spec;
  int scale = 0;
  const std::unordered_map<std::uint64_t, std::uint64_t>& mapping;
  const codec::ZstdCodec& zstd;
  ScaleCounters& counters;
  int rank = 0;  // This rank of `ranks` ranks handles the shards it owns.
  int ranks = 1;
  const std::unordered_set<std::string>* kept = nullptr;  // Stems of complete shards (resume).
  const core::Cancellation* cancellation = nullptr;       // ExportShardsOptions'.
};

std::string BlockName(const ScaleJob& job, const core::GridCoord3& xyz) {
  return job.db_name + ": scale " + std::to_string(job.scale) + " block x,y,z " +
         std::to_string(xyz[0]) + "," + std::to_string(xyz[1]) + "," + std::to_string(xyz[2]);
}

// Stage 2: decode, map, skip or compress one block.
Result<ShardMessage> HandleBlock(ScanItem item, const ScaleJob& job) {
  const std::string name = BlockName(job, item.xyz);
  CHUNKWISE_ASSIGN_OR_RETURN(
      const Bytes block, dvid::DecodeValue(item.stored_value, dvid::kMaxStoredBlockBytes, name));
  CHUNKWISE_ASSIGN_OR_RETURN(dvid::LabelBlockHeader header,
                             dvid::ReadLabelBlockHeader(block, name));
  if (header.shape != dvid::kDefaultBlockShape) {
    return Status::Corruption(name + ": not a 64x64x64 block");
  }
  CHUNKWISE_RETURN_IF_ERROR(
      dvid::ValidateLabelBlock(block, dvid::LabelBlockCheck::kDecodable, name));
  ShardMessage message;
  message.shard = item.shard;
  message.stem = std::move(item.stem);
  std::vector<std::uint64_t> labels = header.labels;
  dvid::ApplyMapping(job.mapping, labels);
  if (std::all_of(labels.begin(), labels.end(), [](std::uint64_t l) { return l == 0; })) {
    message.kind = ShardMessage::Kind::kSkip;
    ++job.counters.blocks_skipped;
    return message;
  }
  dvid::ExportBlock& out = message.block;
  out.chunk_x = static_cast<std::int32_t>(item.xyz[0]);
  out.chunk_y = static_cast<std::int32_t>(item.xyz[1]);
  out.chunk_z = static_cast<std::int32_t>(item.xyz[2]);
  out.labels = std::move(labels);
  out.supervoxels = std::move(header.labels);
  CHUNKWISE_ASSIGN_OR_RETURN(out.dvid_compressed_block, job.zstd.Encode(block));
  out.uncompressed_size = static_cast<std::uint32_t>(block.size());
  ++job.counters.blocks_written;
  job.counters.block_bytes += block.size();
  job.counters.zstd_bytes += out.dvid_compressed_block.size();
  return message;
}

using ScanBatch = std::vector<ScanItem>;

void RunChunkHandler(core::BoundedQueue<ScanBatch>& queue, const ScaleJob& job,
                     ShardWriterStage& writers, PipelineFailure& failure) {
  while (std::optional<ScanBatch> batch = queue.Pop()) {
    std::vector<ShardMessage> messages;
    messages.reserve(batch->size());
    for (ScanItem& item : *batch) {
      if (failure.failed()) break;
      Result<ShardMessage> message = HandleBlock(std::move(item), job);
      if (!message.ok()) {
        failure.Fail(message.status());
        break;
      }
      messages.push_back(std::move(*message));
    }
    writers.SendBatch(std::move(messages));
  }
}

// The shards the scan has sent blocks to and not yet closed.
struct ScanShard {
  std::string stem;
  std::uint64_t blocks = 0;
  std::int64_t z_end = 0;
};

// Sends the close messages of the shards the scan has passed, in one hand-over
// (hash-sharded exports close all their shards when the scan ends).
bool CloseShards(std::unordered_map<std::uint64_t, ScanShard>& open, std::int64_t z_reached,
                 ShardWriterStage& writers) {
  std::vector<ShardMessage> closes;
  for (auto it = open.begin(); it != open.end();) {
    if (it->second.z_end > z_reached) {
      ++it;
      continue;
    }
    ShardMessage close;
    close.kind = ShardMessage::Kind::kClose;
    close.shard = it->first;
    close.stem = it->second.stem;
    close.expected_blocks = it->second.blocks;
    closes.push_back(std::move(close));
    it = open.erase(it);
  }
  return writers.SendBatch(std::move(closes));
}

// Which shards of the scan this rank writes: those it owns and has not kept
// from before. Decided once per shard.
class ShardChoice {
 public:
  explicit ShardChoice(const ScaleJob& job) : job_(job) {}
  bool Writes(std::uint64_t shard, const core::GridCoord3& xyz) {
    if (core::OwnerRank(shard, job_.ranks) != job_.rank) return false;
    if (job_.kept == nullptr || job_.kept->empty()) return true;
    const auto [it, inserted] = decided_.try_emplace(shard, true);
    if (inserted && job_.kept->contains(job_.spec.ShardStem(xyz))) {
      it->second = false;
      ++kept_;
    }
    return it->second;
  }
  std::uint64_t kept() const { return kept_; }

 private:
  const ScaleJob& job_;
  std::unordered_map<std::uint64_t, bool> decided_;
  std::uint64_t kept_ = 0;
};

// With box shards and several ranks each rank reads only the key ranges of
// its own shards: their boxes, one seek per block row, shard by shard in ZYX
// order of the shard grid. A shard's blocks come in the order the full scan
// gives them, so its bytes are the same. `shard_done` runs after each box.
bool ScansOwnShardBoxes(const ScaleJob& job) { return job.ranks > 1 && job.spec.shards_are_boxes; }

Status ScanOwnShardBoxes(const dvid::Labelmap& labelmap, std::uint32_t version, const ScaleJob& job,
                         ShardChoice& choice, const dvid::Labelmap::BlockVisitor& visit,
                         const std::function<Status()>& shard_done) {
  const core::GridCoord3& grid = job.spec.bits.grid;
  const core::GridCoord3& edge = job.spec.shard_chunks;
  auto box_end = [&](core::Index origin, int d) {
    return static_cast<std::int32_t>(std::min(origin + edge[d], grid[d]));
  };
  for (core::Index z = 0; z < grid[2]; z += edge[2]) {
    for (core::Index y = 0; y < grid[1]; y += edge[1]) {
      for (core::Index x = 0; x < grid[0]; x += edge[0]) {
        const core::GridCoord3 origin{x, y, z};
        if (!choice.Writes(job.spec.ShardOf(origin), origin)) continue;
        const dvid::BlockBox box{{static_cast<std::int32_t>(x), static_cast<std::int32_t>(y),
                                  static_cast<std::int32_t>(z)},
                                 {box_end(x, 0), box_end(y, 1), box_end(z, 2)}};
        CHUNKWISE_RETURN_IF_ERROR(labelmap.ScanBlocks(version, job.scale, box, visit));
        CHUNKWISE_RETURN_IF_ERROR(shard_done());
      }
    }
  }
  return Status::Ok();
}

// The key ranges between the grid's block rows (and before and after the
// grid) that this rank checks hold no block, so that a box scan drops no
// block outside the spec's volume: rows are dealt to ranks like shards.
std::vector<dvid::Labelmap::BlockKeyRange> OutsideGridRanges(const ScaleJob& job) {
  const core::GridCoord3& grid = job.spec.bits.grid;
  const auto gx = static_cast<std::int32_t>(grid[0]);
  const auto gy = static_cast<std::int32_t>(grid[1]);
  const auto gz = static_cast<std::int32_t>(grid[2]);
  constexpr std::int32_t kMin = std::numeric_limits<std::int32_t>::min();
  std::vector<dvid::Labelmap::BlockKeyRange> ranges;
  if (job.rank == 0) ranges.push_back({{kMin, kMin, kMin}, dvid::BlockCoord{0, 0, 0}});
  for (std::int32_t z = 0; z < gz; ++z) {
    for (std::int32_t y = 0; y < gy; ++y) {
      const auto row = static_cast<std::uint64_t>(z) * static_cast<std::uint64_t>(gy) +
                       static_cast<std::uint64_t>(y);
      if (core::OwnerRank(row, job.ranks) != job.rank) continue;
      std::optional<dvid::BlockCoord> next_row;
      if (y + 1 < gy) {
        next_row = dvid::BlockCoord{0, y + 1, z};
      } else if (z + 1 < gz) {
        next_row = dvid::BlockCoord{0, 0, z + 1};
      }
      ranges.push_back({{gx, y, z}, next_row});
    }
  }
  return ranges;
}

// Stage 1: the ZYX scan of one scale (or of this rank's shard boxes).
Status ScanScale(const dvid::Labelmap& labelmap, std::uint32_t version, const ScaleJob& job,
                 core::BoundedQueue<ScanBatch>& queue, ShardWriterStage& writers,
                 core::ProgressReporter& progress, ShardChoice& choice) {
  std::unordered_map<std::uint64_t, ScanShard> open;
  ScanBatch batch;
  std::int64_t current_z = std::numeric_limits<std::int64_t>::min();
  const auto visit = [&](const dvid::BlockCoord& coord, ByteView value) -> Status {
    if (job.cancellation != nullptr) {
      CHUNKWISE_RETURN_IF_ERROR(
          job.cancellation->Check("exporting scale " + std::to_string(job.scale)));
    }
    const core::GridCoord3 xyz{coord.x, coord.y, coord.z};
    if (!job.spec.InGrid(xyz)) {
      return Status::InvalidArgument(
          BlockName(job, xyz) + " lies outside the spec's volume (size " +
          std::to_string(job.spec.size[0]) + "x" + std::to_string(job.spec.size[1]) + "x" +
          std::to_string(job.spec.size[2]) + " voxels); refusing to drop it");
    }
    if (xyz[2] != current_z && !CloseShards(open, current_z = xyz[2], writers)) {
      return Status::Internal("export cancelled");
    }
    const std::uint64_t shard_number = job.spec.ShardOf(xyz);
    if (!choice.Writes(shard_number, xyz)) return Status::Ok();
    ScanItem item{xyz, shard_number, "", CopyToBytes(value)};
    ScanShard& shard = open[item.shard];
    if (shard.blocks++ == 0) {
      shard.stem = job.spec.ShardStem(xyz);
      shard.z_end = job.spec.ShardZEnd(xyz);
    }
    item.stem = shard.stem;
    ++job.counters.blocks_read;
    job.counters.stored_bytes += value.size();
    batch.push_back(std::move(item));
    if (batch.size() < kScanBatch) return Status::Ok();
    progress.Add(batch.size());
    if (!queue.Push(std::exchange(batch, {}))) return Status::Internal("export cancelled");
    return Status::Ok();
  };
  if (ScansOwnShardBoxes(job)) {
    const auto close_all = [&]() -> Status {
      return CloseShards(open, std::numeric_limits<std::int64_t>::max(), writers)
                 ? Status::Ok()
                 : Status::Internal("export cancelled");
    };
    CHUNKWISE_RETURN_IF_ERROR(ScanOwnShardBoxes(labelmap, version, job, choice, visit, close_all));
    const std::vector<dvid::Labelmap::BlockKeyRange> outside = OutsideGridRanges(job);
    CHUNKWISE_RETURN_IF_ERROR(labelmap.ScanBlockRanges(version, job.scale, outside, visit));
  } else {
    CHUNKWISE_RETURN_IF_ERROR(labelmap.ScanAllBlocks(version, job.scale, visit));
  }
  progress.Add(batch.size());
  if (!batch.empty() && !queue.Push(std::move(batch))) return Status::Internal("export cancelled");
  if (!CloseShards(open, std::numeric_limits<std::int64_t>::max(), writers)) {
    return Status::Internal("export cancelled");
  }
  return Status::Ok();
}

struct StageSizes {
  std::size_t workers = 1;
  std::size_t writers = 1;
};

Result<ExportScaleSummary> ExportScale(const dvid::Labelmap& labelmap, std::uint32_t version,
                                       const ScaleJob& job,
                                       const std::shared_ptr<store::Store>& store,
                                       const std::string& scale_prefix,
                                       const ExportShardsOptions& options, StageSizes sizes) {
  const auto start = std::chrono::steady_clock::now();
  core::ProgressReporter progress({.label = "export s" + std::to_string(job.scale),
                                   .unit = "blocks",
                                   .mode = options.progress,
                                   .observer = options.observer});
  PipelineFailure failure;
  core::BoundedQueue<ScanBatch> queue(2 * sizes.workers + 2);
  // Eight batches of up to kScanBatch blocks per writer.
  ShardWriterStage writers(store, scale_prefix,
                           {options.format, options.index_form, /*overwrite=*/options.resume},
                           sizes.writers, 8, failure, options.before_shard_publish);
  failure.AddCancelHook([&queue] { queue.Close(); });
  failure.AddCancelHook([&writers] { writers.Cancel(); });
  std::vector<std::thread> handlers;
  for (std::size_t w = 0; w < sizes.workers; ++w) {
    handlers.emplace_back([&] { RunChunkHandler(queue, job, writers, failure); });
  }
  ShardChoice choice(job);
  if (Status scanned = ScanScale(labelmap, version, job, queue, writers, progress, choice);
      !scanned.ok()) {
    failure.Fail(std::move(scanned));
  }
  queue.Close();
  for (std::thread& handler : handlers) handler.join();
  const Status finished = writers.Finish();
  if (failure.failed()) return failure.status();
  CHUNKWISE_RETURN_IF_ERROR(finished);
  progress.Finish();
  ExportScaleSummary summary;
  summary.blocks_read = job.counters.blocks_read;
  summary.blocks_written = job.counters.blocks_written;
  summary.blocks_skipped = job.counters.blocks_skipped;
  summary.shards = writers.shards_written();
  summary.shards_kept = choice.kept();
  summary.stored_bytes = job.counters.stored_bytes;
  summary.block_bytes = job.counters.block_bytes;
  summary.zstd_bytes = job.counters.zstd_bytes;
  summary.file_bytes = writers.file_bytes();
  summary.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return summary;
}

StageSizes SizesFor(const ExportShardsOptions& options) {
  StageSizes sizes;
  sizes.workers = options.workers != 0
                      ? options.workers
                      : std::max<std::size_t>(1, std::thread::hardware_concurrency());
  sizes.writers = options.writers != 0 ? options.writers : (sizes.workers + 3) / 4;
  return sizes;
}

// The stems of the shards of `scale_prefix` that a resumed export keeps:
// .arrow and .csv both present (the .csv is published after the .arrow) and
// the index parsing.
Result<std::unordered_set<std::string>> CompleteShards(const store::Store& store,
                                                       const std::string& scale_prefix) {
  CHUNKWISE_ASSIGN_OR_RETURN(const std::vector<std::string> keys, store.List(scale_prefix));
  const std::set<std::string> present(keys.begin(), keys.end());
  std::unordered_set<std::string> complete;
  for (const std::string& key : keys) {
    if (!key.ends_with(".csv")) continue;
    const std::string stem_key = key.substr(0, key.size() - 4);
    if (!present.contains(stem_key + ".arrow")) continue;
    CHUNKWISE_ASSIGN_OR_RETURN(const std::optional<Bytes> csv, store.Get(key));
    if (!csv.has_value()) continue;
    const std::string_view text(reinterpret_cast<const char*>(csv->data()), csv->size());
    if (!dvid::ParseChunkIndex(text, store.Describe(key)).ok()) continue;  // Written again.
    complete.insert(stem_key.substr(scale_prefix.size()));
  }
  return complete;
}

// This rank's part of the export: every scale, the shards it owns.
Result<ExportSummary> ExportOwnShards(const dvid::Labelmap& labelmap, const ExportSpec& spec,
                                      const std::shared_ptr<store::Store>& store,
                                      const std::string& prefix, int num_scales,
                                      std::uint32_t version, const core::Communicator& ranks,
                                      const ExportShardsOptions& options) {
  ExportSummary summary;
  summary.version = version;
  CHUNKWISE_ASSIGN_OR_RETURN(const auto mapping, labelmap.MappingAt(version));
  CHUNKWISE_ASSIGN_OR_RETURN(const auto zstd, codec::ZstdCodec::Create({.level = kZstdLevel}));
  ExportShardsOptions rank_options = options;
  // One progress line per job, not per rank.
  if (ranks.rank() != 0) rank_options.progress = core::ProgressMode::kQuiet;
  const auto start = std::chrono::steady_clock::now();
  for (int scale = 0; scale < num_scales; ++scale) {
    const std::string scale_prefix = prefix + detail::ExportScalePrefix(scale);
    std::unordered_set<std::string> kept;
    if (options.resume) {
      CHUNKWISE_ASSIGN_OR_RETURN(kept, CompleteShards(*store, scale_prefix));
    }
    ScaleCounters counters;
    const ScaleJob job{labelmap.db().path().string(),
                       spec.scales[scale],
                       scale,
                       mapping,
                       *zstd,
                       counters,
                       ranks.rank(),
                       ranks.size(),
                       &kept,
                       options.cancellation};
    CHUNKWISE_ASSIGN_OR_RETURN(
        ExportScaleSummary scale_summary,
        ExportScale(labelmap, version, job, store, scale_prefix, rank_options, SizesFor(options)));
    summary.scales.push_back(scale_summary);
  }
  summary.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return summary;
}

// Rank 0: the ranks' summaries added up.
Result<ExportSummary> JobSummary(const std::vector<std::string>& gathered) {
  ExportSummary job;
  for (const std::string& text : gathered) {
    CHUNKWISE_ASSIGN_OR_RETURN(const ExportSummary rank_summary, ExportSummary::FromJson(text));
    job.version = rank_summary.version;
    job.Add(rank_summary);
  }
  return job;
}

// The scales an export writes: the spec's, the database's, options.num_scales.
int ScalesToExport(const dvid::Labelmap& labelmap, const ExportSpec& spec,
                   const ExportShardsOptions& options) {
  int num_scales = std::min<int>(static_cast<int>(spec.scales.size()), labelmap.num_scales());
  if (options.num_scales > 0) num_scales = std::min(num_scales, options.num_scales);
  return num_scales;
}

std::uint32_t VersionToExport(const dvid::Labelmap& labelmap, const ExportShardsOptions& options) {
  return options.version != 0 ? options.version : labelmap.versions().newest();
}

// One part of a job of independent tasks: a rank that never meets the others.
class PartOfJob final : public core::Communicator {
 public:
  PartOfJob(int part, int parts) : part_(part), parts_(parts) {}
  int rank() const override { return part_; }
  int size() const override { return parts_; }
  Status Barrier() override { return NoCollectives(); }
  Result<std::vector<std::string>> Gather(std::string_view) override { return NoCollectives(); }
  Result<std::string> Broadcast(std::string_view) override { return NoCollectives(); }

 private:
  static Status NoCollectives() {
    return Status::Internal("a part of a task job makes no collective calls");
  }
  int part_;
  int parts_;
};

}  // namespace

Status PrepareExportShards(const std::shared_ptr<store::Store>& store, const std::string& prefix,
                           const ExportShardsOptions& options) {
  CHUNKWISE_ASSIGN_OR_RETURN(
      detail::ExportDestination destination,
      detail::ExportDestination::Begin(store, prefix, options.overwrite, options.resume));
  destination.Keep();  // The parts write into it; the driver publishes.
  return Status::Ok();
}

Result<ExportSummary> ExportShardsPart(const dvid::Labelmap& labelmap, const ExportSpec& spec,
                                       const std::shared_ptr<store::Store>& store,
                                       const std::string& prefix, int part, int parts,
                                       const ExportShardsOptions& options) {
  if (parts < 1 || part < 0 || part >= parts) {
    return Status::InvalidArgument("export part " + std::to_string(part) + " of " +
                                   std::to_string(parts) + ": no such part");
  }
  CHUNKWISE_RETURN_IF_ERROR(InfoForScales(spec, ScalesToExport(labelmap, spec, options)).status());
  PartOfJob ranks(part, parts);
  ExportShardsOptions part_options = options;
  part_options.ranks = nullptr;
  return ExportOwnShards(labelmap, spec, store, prefix, ScalesToExport(labelmap, spec, options),
                         VersionToExport(labelmap, options), ranks, part_options);
}

Result<ExportSummary> PublishExportShards(const dvid::Labelmap& labelmap, const ExportSpec& spec,
                                          const std::shared_ptr<store::Store>& store,
                                          const std::string& prefix,
                                          const std::vector<ExportSummary>& parts,
                                          const ExportShardsOptions& options) {
  CHUNKWISE_ASSIGN_OR_RETURN(const std::string info,
                             InfoForScales(spec, ScalesToExport(labelmap, spec, options)));
  ExportSummary job;
  job.version = VersionToExport(labelmap, options);
  for (const ExportSummary& part : parts) job.Add(part);
  CHUNKWISE_ASSIGN_OR_RETURN(const bool prepared,
                             store->Exists(prefix + detail::kExportIncompleteName));
  if (!prepared) {
    return Status::InvalidArgument(store->Describe(prefix + detail::kExportIncompleteName) +
                                   ": no prepared export to publish");
  }
  // Resume: the parts' shards stay; the marker is taken down by Commit.
  CHUNKWISE_ASSIGN_OR_RETURN(detail::ExportDestination destination,
                             detail::ExportDestination::Begin(store, prefix, false, true));
  const Status committed = destination.Commit(info, job.Format());
  if (!committed.ok()) destination.Keep();
  CHUNKWISE_RETURN_IF_ERROR(committed);
  return job;
}

// Every rank makes the same collective calls in the same order (core/communicator.h):
// rank 0 prepares the prefix, all export their shards, rank 0 publishes.
Result<ExportSummary> ExportShards(const dvid::Labelmap& labelmap, const ExportSpec& spec,
                                   const std::shared_ptr<store::Store>& store,
                                   const std::string& prefix, const ExportShardsOptions& options) {
  core::SingleProcess alone;
  core::Communicator& ranks = options.ranks != nullptr ? *options.ranks : alone;
  const int num_scales = ScalesToExport(labelmap, spec, options);
  const std::uint32_t version = VersionToExport(labelmap, options);
  Result<std::string> info = InfoForScales(spec, num_scales);
  std::optional<detail::ExportDestination> destination;
  Status prepared = info.status();
  if (ranks.rank() == 0 && prepared.ok()) {
    Result<detail::ExportDestination> begun =
        detail::ExportDestination::Begin(store, prefix, options.overwrite, options.resume);
    if (begun.ok()) destination.emplace(std::move(*begun));
    prepared = begun.status();
  }
  CHUNKWISE_RETURN_IF_ERROR(core::ShareRootStatus(ranks, prepared));

  Result<ExportSummary> mine =
      ExportOwnShards(labelmap, spec, store, prefix, num_scales, version, ranks, options);
  Result<std::string> outcome = mine.ok() ? Result<std::string>(mine->ToJson()) : mine.status();
  Result<std::vector<std::string>> gathered = core::GatherOutcomes(ranks, outcome);
  if (!gathered.ok()) {
    // A job of ranks, or a resumed one, keeps its complete shards for --resume.
    if (destination.has_value() && (ranks.size() > 1 || options.resume)) destination->Keep();
    return gathered.status();
  }
  if (ranks.rank() != 0) {
    CHUNKWISE_RETURN_IF_ERROR(core::ShareRootStatus(ranks, Status::Ok()));
    return mine;
  }
  Result<ExportSummary> job = JobSummary(*gathered);
  Status published = job.status();
  // A cancel that came after the scan ended still stops the export before it is published.
  if (published.ok() && options.cancellation != nullptr) {
    published = options.cancellation->Check("exporting to " + store->Describe(prefix));
  }
  if (published.ok()) published = destination->Commit(*info, job->Format());
  if (!published.ok() && (ranks.size() > 1 || options.resume)) destination->Keep();
  CHUNKWISE_RETURN_IF_ERROR(core::ShareRootStatus(ranks, published));
  return job;
}

}  // namespace chunkwise::pipelines
