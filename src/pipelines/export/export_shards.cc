#include "chunkwise/pipelines/export_shards.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <limits>
#include <thread>
#include <unordered_map>
#include <utility>

#include "chunkwise/codec/zstd_codec.h"
#include "chunkwise/core/bounded_queue.h"
#include "chunkwise/formats/dvid/label_block.h"
#include "chunkwise/formats/dvid/value_envelope.h"
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

// Stage 1: the ZYX scan of one scale.
Status ScanScale(const dvid::Labelmap& labelmap, std::uint32_t version, const ScaleJob& job,
                 core::BoundedQueue<ScanBatch>& queue, ShardWriterStage& writers,
                 core::ProgressReporter& progress) {
  std::unordered_map<std::uint64_t, ScanShard> open;
  ScanBatch batch;
  std::int64_t current_z = std::numeric_limits<std::int64_t>::min();
  const Status scanned = labelmap.ScanAllBlocks(
      version, job.scale, [&](const dvid::BlockCoord& coord, ByteView value) -> Status {
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
        ScanItem item{xyz, job.spec.ShardOf(xyz), "", CopyToBytes(value)};
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
      });
  CHUNKWISE_RETURN_IF_ERROR(scanned);
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
                                   .mode = options.progress});
  PipelineFailure failure;
  core::BoundedQueue<ScanBatch> queue(2 * sizes.workers + 2);
  // Eight batches of up to kScanBatch blocks per writer.
  ShardWriterStage writers(store, scale_prefix, {options.format, options.index_form, false},
                           sizes.writers, 8, failure);
  failure.AddCancelHook([&queue] { queue.Close(); });
  failure.AddCancelHook([&writers] { writers.Cancel(); });
  std::vector<std::thread> handlers;
  for (std::size_t w = 0; w < sizes.workers; ++w) {
    handlers.emplace_back([&] { RunChunkHandler(queue, job, writers, failure); });
  }
  if (Status scanned = ScanScale(labelmap, version, job, queue, writers, progress); !scanned.ok()) {
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

}  // namespace

Result<ExportSummary> ExportShards(const dvid::Labelmap& labelmap, const ExportSpec& spec,
                                   std::shared_ptr<store::Store> store, const std::string& prefix,
                                   const ExportShardsOptions& options) {
  int num_scales = std::min<int>(static_cast<int>(spec.scales.size()), labelmap.num_scales());
  if (options.num_scales > 0) num_scales = std::min(num_scales, options.num_scales);
  ExportSummary summary;
  summary.version = options.version != 0 ? options.version : labelmap.versions().newest();
  CHUNKWISE_ASSIGN_OR_RETURN(const auto mapping, labelmap.MappingAt(summary.version));
  CHUNKWISE_ASSIGN_OR_RETURN(const auto zstd, codec::ZstdCodec::Create({.level = kZstdLevel}));
  CHUNKWISE_ASSIGN_OR_RETURN(const std::string info, InfoForScales(spec, num_scales));
  CHUNKWISE_ASSIGN_OR_RETURN(
      detail::ExportDestination destination,
      detail::ExportDestination::Begin(std::move(store), prefix, options.overwrite));
  const auto start = std::chrono::steady_clock::now();
  for (int scale = 0; scale < num_scales; ++scale) {
    ScaleCounters counters;
    const ScaleJob job{
        labelmap.db().path().string(), spec.scales[scale], scale, mapping, *zstd, counters};
    CHUNKWISE_ASSIGN_OR_RETURN(ExportScaleSummary scale_summary,
                               ExportScale(labelmap, summary.version, job, destination.store(),
                                           destination.prefix() + detail::ExportScalePrefix(scale),
                                           options, SizesFor(options)));
    summary.scales.push_back(scale_summary);
  }
  summary.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  CHUNKWISE_RETURN_IF_ERROR(destination.Commit(info, summary.Format()));
  return summary;
}

}  // namespace chunkwise::pipelines
