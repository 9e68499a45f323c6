// export-shards → neuroglancer precomputed by URL: in one process, as ranks
// of an MPI job, or as a job of independent tasks (a dask graph). Each Arrow
// shard of the export (ours or DVID's) becomes one
// neuroglancer_uint64_sharded_v1 shard of a compressed_segmentation volume,
// written whole; the info is written last.
#ifndef CHUNKWISE_FACADE_PRECOMPUTED_CONVERSION_H_
#define CHUNKWISE_FACADE_PRECOMPUTED_CONVERSION_H_

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "chunkwise/core/communicator.h"
#include "chunkwise/facade/context.h"
#include "chunkwise/facade/precomputed_volumes.h"

namespace chunkwise {

struct ExportToPrecomputedOptions {
  // Scales to convert (indexes into the spec); empty: every scale the export holds.
  std::vector<int> scales = {};
  std::size_t threads = 0;   // 0: one per core.
  bool supervoxels = false;  // Write the supervoxels instead of the mapped labels.
  // The chunk data encoding when the spec names none (the minishard indexes
  // follow the spec, gzip when it names none).
  PrecomputedShardEncoding data_encoding = PrecomputedShardEncoding::kGzip;
  int gzip_level = 6;
  // A destination that holds a volume (or shards) is refused unless one of these:
  bool overwrite = false;  // Erase what is there first.
  bool resume = false;     // Keep every shard already complete and valid; redo the rest.
  // The ranks of a job that converts together (docs/scale.md); null: this
  // process alone. Rank 0 prepares the destination, every rank converts the
  // Arrow shards core::OwnerRank deals to it, and rank 0 writes the info once
  // every rank has succeeded. Every rank must call.
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
  // Each precomputed shard written or kept, with the Arrow shard (key) it came from.
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

// Where a conversion reads and writes: the export at `export_url`, its spec
// at `spec_url` (empty: the export's own info; DVID's exports need it
// given), and the volume at `dest_url` (created when missing).
struct PrecomputedConversionUrls {
  std::string_view export_url;
  std::string_view dest_url;
  std::string_view spec_url;
};

// Converts the export into a precomputed volume; progress is the call's (or
// the context's); threads are the call's, else options.threads, else the
// context's. options.ranks makes it one rank of an MPI job (every rank
// calls; JoinJobRanks, job_ranks.h).
Result<ExportToPrecomputedSummary> ExportToPrecomputed(const Context& context,
                                                       const PrecomputedConversionUrls& urls,
                                                       ExportToPrecomputedOptions options = {},
                                                       const CallOptions& call = {});

// The conversion as a job of independent tasks: the driver prepares the
// destination, each task converts its part (`part` of `parts`: the Arrow
// shards core::OwnerRank deals it) and returns its summary
// (ExportToPrecomputedSummary::ToJson to send it), and the driver publishes
// the info with every part's summary once all have succeeded. The same bytes
// as ExportToPrecomputed. CountExportToPrecomputedShards gives the number of
// Arrow shards, one task per shard at most (urls.dest_url is not used).
Result<std::uint64_t> CountExportToPrecomputedShards(
    const Context& context, const PrecomputedConversionUrls& urls,
    const ExportToPrecomputedOptions& options = {});
Status PrepareExportToPrecomputed(const Context& context, const PrecomputedConversionUrls& urls,
                                  const ExportToPrecomputedOptions& options = {});
Result<ExportToPrecomputedSummary> ExportToPrecomputedPart(const Context& context,
                                                           const PrecomputedConversionUrls& urls,
                                                           int part, int parts,
                                                           ExportToPrecomputedOptions options = {},
                                                           const CallOptions& call = {});
Result<ExportToPrecomputedSummary> PublishExportToPrecomputed(
    const Context& context, const PrecomputedConversionUrls& urls,
    const std::vector<ExportToPrecomputedSummary>& parts,
    const ExportToPrecomputedOptions& options = {});

}  // namespace chunkwise

#endif  // CHUNKWISE_FACADE_PRECOMPUTED_CONVERSION_H_
