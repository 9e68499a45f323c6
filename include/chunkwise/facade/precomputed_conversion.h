// export-shards → neuroglancer precomputed by URL
// (pipelines/export_to_precomputed.h): in one process, as ranks of an MPI
// job, or as a job of independent tasks (a dask graph).
#ifndef CHUNKWISE_FACADE_PRECOMPUTED_CONVERSION_H_
#define CHUNKWISE_FACADE_PRECOMPUTED_CONVERSION_H_

#include <cstdint>
#include <string_view>
#include <vector>

#include "chunkwise/facade/context.h"
#include "chunkwise/pipelines/export_to_precomputed.h"

namespace chunkwise {

using ExportToPrecomputedOptions = pipelines::ExportToPrecomputedOptions;
using ExportToPrecomputedSummary = pipelines::ExportToPrecomputedSummary;

// Where a conversion reads and writes: the export at `export_url`, its spec
// at `spec_url` (empty: the export's own info; DVID's exports need it
// given), and the volume at `dest_url` (created when missing).
struct PrecomputedConversionUrls {
  std::string_view export_url;
  std::string_view dest_url;
  std::string_view spec_url;
};

// Converts the export into a precomputed volume as
// pipelines::ExportToPrecomputed says; options.progress is the call's (or the
// context's); threads are the call's, else options.threads, else the
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
