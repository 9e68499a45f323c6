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
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "chunkwise/core/progress.h"
#include "chunkwise/formats/precomputed/info.h"
#include "chunkwise/pipelines/export_spec.h"
#include "chunkwise/store/store.h"

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
};

struct ExportToPrecomputedSummary {
  std::vector<ExportToPrecomputedScaleSummary> scales;
  double seconds = 0;
  // One line per scale, then the totals with blocks/s.
  std::string Format() const;
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

}  // namespace chunkwise::pipelines

#endif  // CHUNKWISE_PIPELINES_EXPORT_TO_PRECOMPUTED_H_
