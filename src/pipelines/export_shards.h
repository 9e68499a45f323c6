// export-shards: a labelmap exported as neuroglancer-sharded Arrow IPC files.
//
// Per scale, three stages joined by bounded queues (docs/formats/dvid.md,
// "export-shards" and "DVID's export format"):
//   1. one sequential ZYX scan of the database's blocks visible at the version;
//      it also assigns each block its shard (export_spec.h) and counts the
//      blocks it sent to each shard, so it can tell that shard's writer to close
//      once the scan has passed the shard's z-range;
//   2. `workers` chunk handlers: gunzip the stored value, check the DVID block
//      layout, take its palette as `supervoxels` and map it at the version to
//      `labels`, skip the block if every mapped label is 0 (as DVID does),
//      zstd-compress the DVID block bytes (one frame, level 3);
//   3. writer threads, each owning a fixed subset of the shards (one
//      ArrowShardWriter per open shard, so a shard's records are serialized):
//      append one record batch per block and one CSV index row.
// Output, under a prefix of a store: s<scale>/<stem>.arrow + .csv, info (the
// spec, cut to the scales written) and export.log (the summary). Each value
// appears whole (the .arrow streams through Store::OpenWriter), and `info`,
// which readers open first, is written last; on any error of a one-process
// export every key written is erased, so the prefix never holds a partial
// export.
//
// Ranks (docs/scale.md): with options.ranks of a job of N ranks, every rank
// handles only the blocks of the shards it owns (core::OwnerRank of the
// shard number), so no two ranks write one shard and each shard's bytes are
// those a one-process export writes. With box shards a rank reads only its
// shards' key ranges (and its share of the gaps between the grid's rows, so
// a block outside the volume is still refused); else it scans the scale.
// Rank 0 prepares the prefix before any rank writes and publishes export.log
// and `info` after every rank has finished; the summary adds the ranks'
// figures. A failed rank fails the job on every rank, naming the rank and
// its error (which names the shard); complete shards stay (no `info`), for
// options.resume to keep.
#ifndef CHUNKWISE_PIPELINES_EXPORT_SHARDS_H_
#define CHUNKWISE_PIPELINES_EXPORT_SHARDS_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "chunkwise/core/cancellation.h"
#include "chunkwise/core/communicator.h"
#include "chunkwise/core/progress.h"
#include "pipelines/export_spec.h"
#include "chunkwise/store/store.h"
#include "formats/arrow/ipc_format.h"
#include "formats/dvid/export_chunk_index.h"
#include "formats/dvid/labelmap.h"

namespace chunkwise::pipelines {

struct ExportShardsOptions {
  int num_scales = 0;         // 0: every scale of the spec; else at most this many.
  std::size_t workers = 0;    // Chunk handlers; 0: hardware threads.
  std::size_t writers = 0;    // Writer threads; 0: one per 4 workers.
  std::uint32_t version = 0;  // 0: the newest version.
  formats::arrow::IpcFormat format = formats::arrow::IpcFormat::kFile;
  formats::dvid::ChunkIndexForm index_form = formats::dvid::ChunkIndexForm::kRecord;
  bool overwrite = false;  // Replace an existing export at the prefix.
  // Finish an unpublished export at the prefix: shards whose .arrow and .csv
  // are both present (the .csv is published second) and whose index parses
  // are kept, the others written again. An export with `info` loses it
  // first. On error the complete shards stay.
  bool resume = false;
  core::ProgressMode progress = core::ProgressMode::kQuiet;
  core::ProgressObserver* observer = nullptr;  // Told of each scale's block counts; not owned.
  // Checked before each block the scan finds; may be null (not owned).
  // Cancelled fails the export as any error does: no shard of it is published.
  const core::Cancellation* cancellation = nullptr;
  core::Communicator* ranks = nullptr;  // The job's ranks; null: this process alone.
  // Called with a shard's .arrow (as store::Store::Describe names it) before
  // the shard is published; an error fails the export there (a test seam:
  // parallel::ShardFaultFromEnvironment).
  std::function<Status(const std::string& shard_key)> before_shard_publish = nullptr;
};

struct ExportScaleSummary {
  std::uint64_t blocks_read = 0;     // Visible blocks the scan found.
  std::uint64_t blocks_written = 0;  // Records written.
  std::uint64_t blocks_skipped = 0;  // Every mapped label 0.
  std::uint64_t shards = 0;          // Shards with at least one record.
  std::uint64_t shards_kept = 0;     // Complete shards a resumed export kept.
  std::uint64_t stored_bytes = 0;    // Database values read (envelope + gzip).
  std::uint64_t block_bytes = 0;     // DVID block bytes of the written blocks.
  std::uint64_t zstd_bytes = 0;      // Their zstd frames.
  std::uint64_t file_bytes = 0;      // .arrow + .csv bytes written.
  double seconds = 0;
};

struct ExportSummary {
  std::uint32_t version = 0;
  std::vector<ExportScaleSummary> scales;
  double seconds = 0;
  // Lines for people and export.log: one per scale, then the totals with blocks/s.
  std::string Format() const;
  // The figures as JSON and back, to gather them from the ranks.
  std::string ToJson() const;
  static Result<ExportSummary> FromJson(std::string_view text);
  // Adds `other`'s counts scale by scale; seconds are the longer of the two.
  void Add(const ExportSummary& other);
};

// Exports scales 0 .. n-1 of `labelmap` at the version, where n is the
// smaller of the spec's scales, options.num_scales (if set) and the scales the
// database has, to `prefix` ("" or ending in "/") of `store`. InvalidArgument
// naming a key if keys exist under the prefix and !overwrite, or they exist
// and hold no export (no info); InvalidArgument naming the block for a block
// outside the spec's grid (data would be lost); Corruption naming the key for
// a stored value or block that does not decode; the store's errors. On error
// the prefix holds no export: what this export wrote is erased (and an export
// it was replacing is gone, its info first), except as said above for a job
// of several ranks or a resumed export. On rank 0 the summary is the job's;
// on the others, the rank's own.
Result<ExportSummary> ExportShards(const formats::dvid::Labelmap& labelmap, const ExportSpec& spec,
                                   const std::shared_ptr<store::Store>& store,
                                   const std::string& prefix, const ExportShardsOptions& options);

// The same export as a job of independent tasks (a dask graph): no task
// meets another, so the ranks' collective calls are split out. The driver
// prepares the prefix, each of `parts` tasks exports the shards
// core::OwnerRank deals to its part (as rank `part` of a job of `parts`
// ranks would: the same bytes), and the driver publishes with the parts'
// summaries once every part has succeeded. A part that fails leaves its
// complete shards (no `info`), for options.resume to keep.

// The driver, before any part: the prefix checked and marked as
// ExportShards does (options.overwrite, options.resume); nothing erased later.
Status PrepareExportShards(const std::shared_ptr<store::Store>& store, const std::string& prefix,
                           const ExportShardsOptions& options);
// Part `part` (0 .. parts - 1) of the job: its shards of every scale, its
// summary. InvalidArgument for a part outside 0 .. parts - 1; options.ranks
// is ignored.
Result<ExportSummary> ExportShardsPart(const formats::dvid::Labelmap& labelmap,
                                       const ExportSpec& spec,
                                       const std::shared_ptr<store::Store>& store,
                                       const std::string& prefix, int part, int parts,
                                       const ExportShardsOptions& options);
// The driver, after every part has succeeded: the job's summary (the parts'
// added up), written as export.log, then `info`, which makes the export
// visible. InvalidArgument naming the prefix when it was not prepared.
Result<ExportSummary> PublishExportShards(const formats::dvid::Labelmap& labelmap,
                                          const ExportSpec& spec,
                                          const std::shared_ptr<store::Store>& store,
                                          const std::string& prefix,
                                          const std::vector<ExportSummary>& parts,
                                          const ExportShardsOptions& options);

}  // namespace chunkwise::pipelines

#endif  // CHUNKWISE_PIPELINES_EXPORT_SHARDS_H_
