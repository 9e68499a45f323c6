// kerchunk/fsspec reference sets by URL: build them for a zarr array or
// group, a bcolz carray or DVID export shards, and write them as JSON or
// Parquet (formats/refs).
#ifndef CHUNKWISE_FACADE_REFERENCES_H_
#define CHUNKWISE_FACADE_REFERENCES_H_

#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "chunkwise/core/communicator.h"
#include "chunkwise/core/result.h"
#include "chunkwise/facade/context.h"
#include "chunkwise/store/reference.h"
#include "chunkwise/store/reference_store.h"

namespace chunkwise {

namespace formats::refs {
class ReferenceSet;
}  // namespace formats::refs

// A reference set held in memory, as BuildReferences returns it: each key of
// the source (metadata and chunks) and its reference, read as any
// store::ReferenceIndex. The storage is the library's own (formats/refs);
// copies share it, and nothing changes a set once built.
class ReferenceSet : public store::ReferenceIndex {
 public:
  ReferenceSet();  // Empty.
  ~ReferenceSet() override;
  ReferenceSet(const ReferenceSet&);
  ReferenceSet& operator=(const ReferenceSet&);
  // A moved-from set is empty.
  ReferenceSet(ReferenceSet&&) noexcept;
  ReferenceSet& operator=(ReferenceSet&&) noexcept;

  std::size_t size() const;
  Result<std::optional<store::Reference>> Find(std::string_view key) const override;
  Result<std::vector<std::string>> Keys(std::string_view prefix) const override;

 private:
  friend class ReferenceSetAccess;  // src/facade: wraps and unwraps the held set.
  std::shared_ptr<const formats::refs::ReferenceSet> held_;
};

// How WriteReferences stores a set.
enum class ReferenceFormat { kJsonV0, kJsonV1, kParquet };

// "json" (v0), "json-v1" or "parquet"; InvalidArgument naming the text otherwise.
Result<ReferenceFormat> ParseReferenceFormat(std::string_view text);

struct ReferenceWriteOptions {
  ReferenceFormat format = ReferenceFormat::kJsonV1;
  bool templates = true;               // JSON v1: shorten shared URL directories.
  std::uint64_t record_size = 100000;  // Parquet: references per file.
  // Parquet: the layout keeps chunks under an array path, so a set whose
  // root is an array is written as this array inside a root group. Empty:
  // "data" for WriteReferences; BuildReferencesInto names it after the
  // source (ReferenceRootArrayName).
  std::string root_array_name;
  bool overwrite = false;
};

// What a reference set holds (`chunkwise refs info`): references by kind,
// the zarr arrays it describes, the files it points into, and the bytes.
struct ReferenceSummary {
  std::uint64_t inline_count = 0;
  std::uint64_t whole_file_count = 0;
  std::uint64_t range_count = 0;
  std::uint64_t inline_bytes = 0;
  std::uint64_t range_bytes = 0;
  std::uint64_t whole_file_bytes = 0;            // Of the whole files whose size was found.
  std::uint64_t unsized_whole_files = 0;         // Whole files whose size could not be found.
  std::vector<std::string> arrays;               // Prefixes holding a .zarray ("" for the root).
  std::map<std::string, std::uint64_t> targets;  // URL → references into it.

  std::uint64_t total_references() const { return inline_count + whole_file_count + range_count; }
  std::uint64_t total_bytes() const { return inline_bytes + range_bytes + whole_file_bytes; }
};

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
// dimension `concat_dim` of their arrays (docs/formats/refs.md).
// Unsupported naming an input that is a Parquet set; InvalidArgument for
// arrays that do not line up.
Result<ReferenceSet> CombineReferences(const Context& context,
                                       const std::vector<std::string>& input_urls, int concat_dim);

}  // namespace chunkwise

#endif  // CHUNKWISE_FACADE_REFERENCES_H_
