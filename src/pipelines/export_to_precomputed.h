// export-shards → neuroglancer precomputed: each Arrow shard of an export
// (ours or DVID's: file or stream IPC, either CSV form) becomes one
// neuroglancer_uint64_sharded_v1 shard of a compressed_segmentation volume.
//
// An Arrow shard and a precomputed shard cover the same chunks, because the
// export was partitioned by the same sharding spec; so each shard converts
// on its own: its records are read, each DVID block is zstd-decompressed and
// decoded (mapped labels, or the supervoxels on request), cut to the scale's
// extent at the volume's edge, compressed_segmentation-encoded (8³ blocks)
// and gzipped, all in parallel on the pool, and the shard is written once
// through Store::SetParts (so it appears whole). The info is written last:
// a volume that neuroglancer can open is a complete one.
//
// Input and output are each a Store and a prefix. The input holds
// "<prefix>s<scale>/<stem>.arrow" + ".csv"; the spec is the export's own
// "<prefix>info" unless given (DVID's exports do not write one).
#ifndef CHUNKWISE_PIPELINES_EXPORT_TO_PRECOMPUTED_H_
#define CHUNKWISE_PIPELINES_EXPORT_TO_PRECOMPUTED_H_

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "chunkwise/core/communicator.h"
#include "chunkwise/core/progress.h"
#include "pipelines/export_spec.h"
#include "chunkwise/store/store.h"
#include "formats/precomputed/info.h"

namespace chunkwise::pipelines {

struct ExportToPrecomputedOptions {
  // Scales to convert (indexes into the spec); empty: every scale the export holds.
  std::vector<int> scales = {};
  std::size_t threads = 0;   // 0: one per core.
  bool supervoxels = false;  // Write the supervoxels instead of the mapped labels.
  // The chunk data encoding when the spec names none (the minishard indexes
  // follow the spec, gzip when it names none).
  formats::precomputed::ShardEncoding data_encoding = formats::precomputed::ShardEncoding::kGzip;
  int gzip_level = 6;
  // A destination that holds a volume (or shards) is refused unless one of these:
  bool overwrite = false;  // Erase what is there first.
  bool resume = false;     // Keep every shard already complete and valid; redo the rest.
  core::ProgressMode progress = core::ProgressMode::kQuiet;
  // The ranks of a job that converts together (docs/scale.md); null: this
  // process alone. Rank 0 prepares the destination, every rank converts the
  // Arrow shards core::OwnerRank deals to it (numbered in key order, scale
  // after scale), and rank 0 writes the info once every rank has succeeded.
  // The shards' bytes are one process's. Every rank must call.
  core::Communicator* ranks = nullptr;
  // Called with each Arrow shard's key before its precomputed shard is
  // written (not for kept ones); its error fails the conversion (tests
  // inject a failing or killed rank here).
  std::function<Status(const std::string& arrow_key)> before_shard = nullptr;
};

struct ExportToPrecomputedScaleSummary {
  std::string key;
  std::uint64_t arrow_shards = 0;  // Arrow shards found.
  std::uint64_t shards_written = 0;
  std::uint64_t shards_kept = 0;   // Complete already (resume).
  std::uint64_t blocks = 0;        // Blocks converted.
  std::uint64_t input_bytes = 0;   // zstd DVID blocks read.
  std::uint64_t output_bytes = 0;  // Shard bytes written.
  double seconds = 0;
  // Each precomputed shard written or kept, with the Arrow shard (key) it
  // came from: what the parts of a job compare, so that no two Arrow shards
  // of different parts fill one precomputed shard unnoticed.
  std::map<std::uint64_t, std::string> sources;
};

struct ExportToPrecomputedSummary {
  std::vector<ExportToPrecomputedScaleSummary> scales;
  double seconds = 0;
  // One line per scale, then the totals with blocks/s.
  std::string Format() const;
  // As JSON, to pass between ranks or tasks, and back (InvalidArgument for
  // text that is not a summary).
  std::string ToJson() const;
  static Result<ExportToPrecomputedSummary> FromJson(std::string_view text);
};

// The info of the volume the conversion writes for `spec`: a uint64
// segmentation, compressed_segmentation in 8³ blocks, each scale's key,
// size, resolution and sharding from the spec (the encodings it names, else
// gzip indexes and `data_encoding` data).
Result<formats::precomputed::VolumeInfo> PrecomputedInfoForExport(
    const ExportSpec& spec, formats::precomputed::ShardEncoding data_encoding);

// Converts the export at (`source`, `source_prefix`) into a precomputed
// volume at (`dest`, `dest_prefix`). `spec` is the export's spec (nullopt:
// read "<source_prefix>info"). InvalidArgument if the destination holds a
// volume or shards and neither overwrite nor resume is set, or resume finds
// an info that differs; InvalidArgument naming the Arrow shard if its chunks
// lie outside the grid or in several precomputed shards, or two Arrow shards
// hold chunks of one precomputed shard; the readers' Corruption naming the
// shard and chunk for bad input; the store's errors.
Result<ExportToPrecomputedSummary> ExportToPrecomputed(
    const std::shared_ptr<const store::Store>& source, const std::string& source_prefix,
    std::optional<ExportSpec> spec, std::shared_ptr<store::Store> dest,
    const std::string& dest_prefix, const ExportToPrecomputedOptions& options);

// The same conversion as a job of independent tasks (a dask graph), the
// ranks' collective calls split out: the driver prepares, each of `parts`
// tasks converts the Arrow shards core::OwnerRank deals to its part, and the
// driver publishes with the parts' summaries once every part has succeeded.
// A part that fails leaves its complete shards and no info, for
// options.resume to keep. Each takes the arguments ExportToPrecomputed takes.

// The number of Arrow shards to convert: one task per shard at most.
Result<std::uint64_t> CountExportToPrecomputedShards(
    const std::shared_ptr<const store::Store>& source, const std::string& source_prefix,
    const std::optional<ExportSpec>& spec, const ExportToPrecomputedOptions& options);
// The driver, before any part: the destination checked (and erased with
// options.overwrite) as ExportToPrecomputed does.
Status PrepareExportToPrecomputed(const std::shared_ptr<const store::Store>& source,
                                  const std::string& source_prefix,
                                  const std::optional<ExportSpec>& spec,
                                  std::shared_ptr<store::Store> dest,
                                  const std::string& dest_prefix,
                                  const ExportToPrecomputedOptions& options);
// Part `part` of the job: its Arrow shards of every scale, its summary.
// options.ranks is ignored.
Result<ExportToPrecomputedSummary> ExportToPrecomputedPart(
    const std::shared_ptr<const store::Store>& source, const std::string& source_prefix,
    const std::optional<ExportSpec>& spec, std::shared_ptr<store::Store> dest,
    const std::string& dest_prefix, const core::JobPart& part,
    const ExportToPrecomputedOptions& options);
// The driver, after every part has succeeded: the job's summary (the parts'
// added up, seconds the longest part's), then the info, which makes the
// volume visible. InvalidArgument, and no info, when two parts filled one
// precomputed shard from different Arrow shards.
Result<ExportToPrecomputedSummary> PublishExportToPrecomputed(
    const std::shared_ptr<const store::Store>& source, const std::string& source_prefix,
    const std::optional<ExportSpec>& spec, std::shared_ptr<store::Store> dest,
    const std::string& dest_prefix, const std::vector<ExportToPrecomputedSummary>& parts,
    const ExportToPrecomputedOptions& options);

}  // namespace chunkwise::pipelines

#endif  // CHUNKWISE_PIPELINES_EXPORT_TO_PRECOMPUTED_H_
