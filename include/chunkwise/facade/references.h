// kerchunk/fsspec reference sets by URL: build them for a zarr array or
// group, a bcolz carray or DVID export shards, and write them as JSON or
// Parquet (formats/refs).
#ifndef CHUNKWISE_FACADE_REFERENCES_H_
#define CHUNKWISE_FACADE_REFERENCES_H_

#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "chunkwise/core/communicator.h"
#include "chunkwise/facade/context.h"
#include "chunkwise/formats/refs/reference_file.h"
#include "chunkwise/formats/refs/reference_set.h"
#include "chunkwise/formats/refs/reference_summary.h"
#include "chunkwise/store/reference_store.h"

namespace chunkwise {

using ReferenceSet = formats::refs::ReferenceSet;
using ReferenceWriteOptions = formats::refs::ReferenceWriteOptions;
using ReferenceFormat = formats::refs::ReferenceFormat;
using ReferenceSummary = formats::refs::ReferenceSummary;
// "json" (v0), "json-v1" or "parquet"; InvalidArgument naming the text otherwise.
using formats::refs::ParseReferenceFormat;

struct BuildReferencesOptions {
  // What each reference's URL starts with; empty: the source's absolute
  // path (local) or its URL, with a "/" after it (added when missing).
  // A set built from a local copy whose data is then uploaded names the
  // upload here, e.g. "s3://bucket/data/": key k of the source becomes
  // "s3://bucket/data/k".
  std::string url_base;
  // The ranks of a job that builds the set together (docs/scale.md); null or
  // one rank: this process alone. Each rank references the chunks (shards)
  // it owns, and rank 0 gathers and merges the parts: it returns the whole
  // set, byte for byte what one process builds, and the other ranks return
  // an empty set. Every rank must call; all fail with the lowest failing
  // rank's error, named "rank R of N".
  core::Communicator* ranks = nullptr;
  // The set is for a layout that holds only zarr chunk keys (Parquet
  // references): a source whose keys are not (DVID export blocks, keyed
  // x_y_z) is refused before its scan, Unsupported.
  bool zarr_chunk_keys_only = false;
};

// References to every chunk of the source at `source_url`: a zarr v3 or v2
// array or group, a bcolz carray, DVID export shards, or one .arrow shard.
// Unsupported naming the format for other sources, and for export shards
// with options.zarr_chunk_keys_only; DetectFormat's errors when there is none.
// Progress (chunks or shards referenced) and cancellation are the call's,
// else the context's.
Result<ReferenceSet> BuildReferences(const Context& context, std::string_view source_url,
                                     const BuildReferencesOptions& options = {},
                                     const CallOptions& call = {});

// Writes `set` to `output_url`: a JSON value, or a Parquet set (a directory
// of values) as options.format says. An existing output is refused unless
// options.overwrite.
Status WriteReferences(const Context& context, const ReferenceSet& set, std::string_view output_url,
                       const ReferenceWriteOptions& options);

// How BuildReferencesInto runs after an earlier run that stopped.
struct ReferenceJobOptions {
  // Keep the parts that a stopped build of the same source and options saved
  // under the work prefix, building only the others. Without it such a work
  // prefix is refused ("resume not requested"), or erased with overwrite.
  bool resume = false;
  // Called on each rank with its part's key before the part is saved; its
  // error fails the job (tests inject faults here).
  std::function<Status(const std::string& key)> before_part_saved;
};

// What BuildReferencesInto did.
struct ReferenceJobSummary {
  ReferenceSet set;    // The set written, on rank 0; empty on the others.
  int parts = 1;       // One per rank.
  int parts_kept = 0;  // Saved by an earlier run and kept (resume).
};

// The suffix of the work prefix next to a set's output key: the parts of an
// unfinished build ("refs.json" has its parts under "refs.json.chunkwise-parts/").
inline constexpr std::string_view kReferencePartsSuffix = ".chunkwise-parts/";

// The name a Parquet set gives the array when the source is one array (its
// root): the stem of the URL's last segment ("s3://b/src.zarr/" → "src"),
// "data" when it has none. BuildReferencesInto uses it when
// write.root_array_name is empty, so that `refs build` and Python's
// refs.build name it alike.
std::string ReferenceRootArrayName(std::string_view source_url);

// BuildReferences, then WriteReferences to `output_url`, as one job that a
// killed or failed run can resume. With several ranks each rank saves its
// part, as it finishes, under the work prefix next to the output (its key
// and kReferencePartsSuffix; a manifest there names the source and options),
// and rank 0 joins the saved parts, writes the set and removes the work
// prefix: a stopped job leaves no output, only whole parts, which
// job.resume keeps. An existing output is refused before any work unless
// write.overwrite; so is an unfinished build's work prefix unless
// job.resume or write.overwrite (InvalidArgument naming it); job.resume
// with a work prefix begun from another source or options is
// InvalidArgument naming its manifest. Rank 0 holds the parts and the whole
// set in memory while it joins and writes them (docs/scale.md). An empty
// write.root_array_name is ReferenceRootArrayName(source_url).
Result<ReferenceJobSummary> BuildReferencesInto(const Context& context, std::string_view source_url,
                                                std::string_view output_url,
                                                const BuildReferencesOptions& build,
                                                const ReferenceWriteOptions& write,
                                                const ReferenceJobOptions& job = {},
                                                const CallOptions& call = {});

struct ReadReferencesOptions {
  // Local directories targets may lie in besides a local set's own directory.
  std::vector<std::filesystem::path> allowed_roots;
  // Whether http(s)://, s3:// and gs:// targets may be read.
  bool allow_remote = false;
};

// The set at `url`: a JSON value or a Parquet directory, local or in object
// storage. NotFound naming the URL when absent.
Result<std::shared_ptr<const store::ReferenceIndex>> ReadReferenceIndex(const Context& context,
                                                                        std::string_view url);

// A read-only store over the set at `url`. A local set's relative targets
// resolve against its directory; a set in object storage may not point at
// local files. Remote targets (s3://, gs:// through the context's remote
// settings; http(s)://) need options.allow_remote.
Result<std::shared_ptr<store::ReferenceStore>> OpenReferenceStore(
    const Context& context, std::string_view url, const ReadReferencesOptions& options = {});

// What `set` holds: inline values, ranges, whole files (unsized: their
// sizes are not looked up), the arrays and the targets.
Result<ReferenceSummary> SummarizeReferences(const ReferenceSet& set);

// The same for the set at `url`, whole files sized through the targets
// (`options` says which may be read; one that cannot be sized is counted
// unsized, not an error). OpenReferenceStore's errors.
Result<ReferenceSummary> DescribeReferences(const Context& context, std::string_view url,
                                            const ReadReferencesOptions& options = {});

// The JSON reference sets at `input_urls`, in order, concatenated along
// dimension `concat_dim` of their arrays (formats/refs/reference_combine.h).
// Unsupported naming an input that is a Parquet set; InvalidArgument for
// arrays that do not line up.
Result<ReferenceSet> CombineReferences(const Context& context,
                                       const std::vector<std::string>& input_urls, int concat_dim);

}  // namespace chunkwise

#endif  // CHUNKWISE_FACADE_REFERENCES_H_
