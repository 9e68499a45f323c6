#include "chunkwise/facade/references.h"

#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>

#include "chunkwise/facade/format_detection.h"
#include "chunkwise/facade/url_value.h"
#include "chunkwise/store/file_store.h"
#include "facade/reference_targets.h"
#include "formats/refs/arrow_shard_references.h"
#include "formats/refs/bcolz_references.h"
#include "formats/refs/parquet_references.h"
#include "formats/refs/reference_combine.h"
#include "formats/refs/reference_file.h"
#include "formats/refs/reference_parts.h"
#include "formats/refs/reference_set.h"
#include "formats/refs/reference_summary.h"
#include "formats/refs/zarr_references.h"

namespace chunkwise {

// The facade's sets hold a formats/refs set, which only this file sees.
class ReferenceSetAccess {
 public:
  static ReferenceSet Wrap(formats::refs::ReferenceSet set) {
    ReferenceSet wrapped;
    wrapped.held_ = std::make_shared<const formats::refs::ReferenceSet>(std::move(set));
    return wrapped;
  }
  static const formats::refs::ReferenceSet& Held(const ReferenceSet& set) {
    static const formats::refs::ReferenceSet kEmpty;
    return set.held_ != nullptr ? *set.held_ : kEmpty;
  }
};

ReferenceSet::ReferenceSet() = default;
ReferenceSet::~ReferenceSet() = default;
ReferenceSet::ReferenceSet(const ReferenceSet&) = default;
ReferenceSet& ReferenceSet::operator=(const ReferenceSet&) = default;
ReferenceSet::ReferenceSet(ReferenceSet&&) noexcept = default;
ReferenceSet& ReferenceSet::operator=(ReferenceSet&&) noexcept = default;

std::size_t ReferenceSet::size() const { return ReferenceSetAccess::Held(*this).size(); }

Result<std::optional<store::Reference>> ReferenceSet::Find(std::string_view key) const {
  return ReferenceSetAccess::Held(*this).Find(key);
}

Result<std::vector<std::string>> ReferenceSet::Keys(std::string_view prefix) const {
  return ReferenceSetAccess::Held(*this).Keys(prefix);
}

Result<ReferenceFormat> ParseReferenceFormat(std::string_view text) {
  CHUNKWISE_ASSIGN_OR_RETURN(const formats::refs::ReferenceFormat format,
                             formats::refs::ParseReferenceFormat(text));
  switch (format) {
    case formats::refs::ReferenceFormat::kJsonV0:
      return ReferenceFormat::kJsonV0;
    case formats::refs::ReferenceFormat::kJsonV1:
      return ReferenceFormat::kJsonV1;
    case formats::refs::ReferenceFormat::kParquet:
      return ReferenceFormat::kParquet;
  }
  return ReferenceFormat::kJsonV1;
}

namespace {

namespace fs = std::filesystem;
namespace refs = formats::refs;

refs::ReferenceFormat ToHeld(ReferenceFormat format) {
  switch (format) {
    case ReferenceFormat::kJsonV0:
      return refs::ReferenceFormat::kJsonV0;
    case ReferenceFormat::kJsonV1:
      return refs::ReferenceFormat::kJsonV1;
    case ReferenceFormat::kParquet:
      return refs::ReferenceFormat::kParquet;
  }
  return refs::ReferenceFormat::kJsonV1;
}

refs::ReferenceWriteOptions ToHeld(const ReferenceWriteOptions& options) {
  return {ToHeld(options.format), options.templates, options.record_size, options.root_array_name,
          options.overwrite};
}

ReferenceSummary FromHeld(refs::ReferenceSummary held) {
  return {held.inline_count,        held.whole_file_count,  held.range_count,
          held.inline_bytes,        held.range_bytes,       held.whole_file_bytes,
          held.unsized_whole_files, std::move(held.arrays), std::move(held.targets)};
}

Status WriteHeld(const Context& context, const refs::ReferenceSet& set, std::string_view output_url,
                 const ReferenceWriteOptions& options) {
  // A Parquet set is a directory of values: a killed writer's temporary files
  // there go before the next write.
  CHUNKWISE_RETURN_IF_ERROR(RemoveDeadTemporariesAt(output_url));
  CHUNKWISE_ASSIGN_OR_RETURN(const UrlValue value, LocateUrlValue(context, output_url, true));
  return refs::WriteReferences(*value.store, value.key, set, ToHeld(options));
}

// Where the source's keys are: a store, the prefix in it, and the URL the
// store's keys are under.
struct Source {
  std::shared_ptr<store::Store> store;
  std::string prefix;
  std::string url_base;
};

Result<Source> OpenSource(const Context& context, const StoreUrl& url) {
  std::error_code error;
  if (url.scheme == "file") {
    const fs::path path = fs::absolute(url.location).lexically_normal();
    // One .arrow shard: a value of the store over its directory.
    if (fs::is_regular_file(path, error)) {
      CHUNKWISE_ASSIGN_OR_RETURN(const UrlValue value,
                                 LocateUrlValue(context, path.string(), false));
      return Source{value.store, value.key, (path.parent_path() / "").string()};
    }
    std::string base = path.string();
    while (base.size() > 1 && base.ends_with('/')) base.pop_back();
    CHUNKWISE_ASSIGN_OR_RETURN(std::shared_ptr<store::Store> store,
                               OpenStore(context, url.text, context.store_options(false)));
    return Source{std::move(store), "", base + "/"};
  }
  if (url.location.ends_with(".arrow")) {
    CHUNKWISE_ASSIGN_OR_RETURN(const UrlValue value, LocateUrlValue(context, url.text, false));
    return Source{value.store, value.key, url.text.substr(0, url.text.size() - value.key.size())};
  }
  CHUNKWISE_ASSIGN_OR_RETURN(std::shared_ptr<store::Store> store,
                             OpenStore(context, url.text, context.store_options(false)));
  return Source{std::move(store), "", url.text.ends_with('/') ? url.text : url.text + "/"};
}

// This rank's part of the references: every part when `part` is whole.
// Progress shows on rank 0 only.
Result<refs::ReferenceSet> BuildReferencePart(const Context& context, std::string_view source_url,
                                              const BuildReferencesOptions& options,
                                              const core::JobPart& part, const CallOptions& call) {
  CHUNKWISE_RETURN_IF_ERROR(context.CheckCancelled(
      call, std::string("building references to ") + std::string(source_url)));
  CHUNKWISE_ASSIGN_OR_RETURN(const StoreUrl url, ParseStoreUrl(source_url));
  CHUNKWISE_ASSIGN_OR_RETURN(Source source, OpenSource(context, url));
  if (!options.url_base.empty()) {
    source.url_base = options.url_base;
    if (!source.url_base.ends_with('/')) source.url_base += '/';
  }
  CHUNKWISE_ASSIGN_OR_RETURN(const DetectedFormat format,
                             DetectFormat(*source.store, source.prefix));
  const auto progress_for = [&](const char* unit) {
    return part.rank == 0 ? context.StartProgress(call, "refs build", 0, unit) : nullptr;
  };
  switch (format.kind) {
    case FormatKind::kZarrV3Array:
    case FormatKind::kZarrV3Group:
    case FormatKind::kZarrV2Array:
    case FormatKind::kZarrV2Group: {
      auto progress = progress_for("chunks");
      CHUNKWISE_ASSIGN_OR_RETURN(refs::ReferenceSet set,
                                 refs::BuildZarrReferences(source.store, source.prefix,
                                                           {source.url_base, progress.get(),
                                                            &context.cancellation(call), part}));
      if (progress != nullptr) progress->Finish();
      return set;
    }
    case FormatKind::kBcolzCarray: {
      refs::BcolzReferenceOptions bcolz{source.url_base, part, nullptr,
                                        &context.cancellation(call)};
      if (part.rank == 0) {
        bcolz.start_progress = [&context, &call](std::uint64_t chunks) {
          return context.StartProgress(call, "refs build", chunks, "chunks");
        };
      }
      return refs::BuildBcolzReferences(source.store, source.prefix, bcolz);
    }
    case FormatKind::kDvidExport:
    case FormatKind::kArrowShard: {
      if (options.zarr_chunk_keys_only) {
        return Status::Unsupported(url.text + " (" + std::string(FormatName(format.kind)) +
                                   "): its blocks are keyed x_y_z outside any zarr chunk grid, "
                                   "which Parquet references cannot hold; " +
                                   std::string(refs::kParquetNeedsZarrKeys))
            .WithField("reference_format");
      }
      auto progress = progress_for("shards");
      CHUNKWISE_ASSIGN_OR_RETURN(refs::ReferenceSet set, refs::BuildArrowShardReferences(
                                                             source.store, source.prefix,
                                                             {source.url_base, progress.get(),
                                                              &context.cancellation(call), part}));
      if (progress != nullptr) progress->Finish();
      return set;
    }
    default:
      return Status::Unsupported(url.text + " is a " + std::string(FormatName(format.kind)) +
                                 "; references are built for zarr arrays and groups, bcolz "
                                 "carrays and DVID export shards");
  }
}

// What a resumed job must match: the source (a local one by its absolute
// path) and the build options its parts depend on.
Result<std::string> JobManifest(std::string_view source_url, const BuildReferencesOptions& build) {
  CHUNKWISE_ASSIGN_OR_RETURN(const StoreUrl url, ParseStoreUrl(source_url));
  nlohmann::ordered_json manifest;
  manifest["source"] =
      url.scheme == "file" ? fs::absolute(url.location).lexically_normal().string() : url.text;
  manifest["url_base"] = build.url_base;
  manifest["zarr_chunk_keys_only"] = build.zarr_chunk_keys_only;
  return manifest.dump() + "\n";
}

Result<bool> OutputExists(const store::Store& store, const std::string& key,
                          ReferenceFormat format) {
  if (format != ReferenceFormat::kParquet) return store.Exists(key);
  CHUNKWISE_ASSIGN_OR_RETURN(const std::vector<std::string> values, store.List(key + "/"));
  return !values.empty();
}

// Where a job keeps its parts: the work prefix next to the output `key`.
struct JobPlace {
  std::shared_ptr<store::Store> store;
  std::string key;
  std::string work;
  std::string manifest;
  std::string PartKey(int rank, int ranks) const {
    return work + "part-" + std::to_string(rank) + "-of-" + std::to_string(ranks) + ".json";
  }
};

Result<JobPlace> LocateJob(const Context& context, std::string_view output_url) {
  CHUNKWISE_ASSIGN_OR_RETURN(UrlValue output, LocateUrlValue(context, output_url, true));
  std::string work = output.key + std::string(kReferencePartsSuffix);
  std::string manifest = work + "job.json";
  return JobPlace{std::move(output.store), std::move(output.key), std::move(work),
                  std::move(manifest)};
}

// Rank 0, before any rank builds: refuses an existing output or an
// unfinished build's work prefix as the options say, or checks that a
// resumed one was begun alike; then records the manifest (for a job of
// several ranks: one process saves no parts).
Status BeginReferenceJob(const JobPlace& place, const std::string& manifest_text,
                         const ReferenceWriteOptions& write, bool resume, int ranks) {
  store::Store& store = *place.store;
  if (!write.overwrite) {
    CHUNKWISE_ASSIGN_OR_RETURN(const bool exists, OutputExists(store, place.key, write.format));
    if (exists) {
      return Status::InvalidArgument(store.Describe(place.key) +
                                     " already exists (overwrite not requested)")
          .WithField("overwrite");
    }
  }
  CHUNKWISE_ASSIGN_OR_RETURN(const std::vector<std::string> keys, store.List(place.work));
  if (!keys.empty() && resume) {
    CHUNKWISE_ASSIGN_OR_RETURN(const std::optional<Bytes> begun, store.Get(place.manifest));
    if (!begun.has_value() || AsChars(*begun) != manifest_text) {
      return Status::InvalidArgument(store.Describe(place.manifest) +
                                     ": the unfinished reference build there was begun from "
                                     "another source or options, so it cannot be resumed");
    }
    return Status::Ok();
  }
  if (!keys.empty() && !write.overwrite) {
    return Status::InvalidArgument(
               store.Describe(place.work) + " holds " + std::to_string(keys.size()) +
               " keys of an unfinished reference build (a run that stopped before it wrote the "
               "set): "
               "resume it with the same source and options (resume not requested) or replace it "
               "(overwrite not requested)")
        .WithField("resume");
  }
  if (ranks == 1) return Status::Ok();  // Erased once the set is written.
  for (const std::string& key : keys) CHUNKWISE_RETURN_IF_ERROR(store.Erase(key));
  return store.Set(place.manifest, AsBytes(manifest_text));
}

// Removes the work prefix next to `output_url` (the manifest last), once its
// set is written.
Status RemoveWork(const JobPlace& place, std::string_view output_url) {
  std::string work_url(output_url);
  work_url += kReferencePartsSuffix.substr(0, kReferencePartsSuffix.size() - 1);
  CHUNKWISE_RETURN_IF_ERROR(RemoveDeadTemporariesAt(work_url));
  CHUNKWISE_ASSIGN_OR_RETURN(const std::vector<std::string> keys, place.store->List(place.work));
  for (const std::string& key : keys) {
    if (key != place.manifest) CHUNKWISE_RETURN_IF_ERROR(place.store->Erase(key));
  }
  return place.store->Erase(place.manifest);
}

// This rank's part, saved under the work prefix ("built"), or kept from an
// earlier run when resuming ("kept").
Result<std::string> SavePart(const Context& context, std::string_view source_url,
                             const BuildReferencesOptions& build, const ReferenceJobOptions& job,
                             const JobPlace& place, const core::JobPart& part,
                             const CallOptions& call) {
  const std::string key = place.PartKey(part.rank, part.size);
  if (job.resume) {
    CHUNKWISE_ASSIGN_OR_RETURN(const bool saved, place.store->Exists(key));
    if (saved) return std::string("kept");
  }
  CHUNKWISE_ASSIGN_OR_RETURN(const refs::ReferenceSet set,
                             BuildReferencePart(context, source_url, build, part, call));
  CHUNKWISE_ASSIGN_OR_RETURN(const std::string text, refs::EncodeReferencePart(set));
  if (job.before_part_saved) CHUNKWISE_RETURN_IF_ERROR(job.before_part_saved(key));
  CHUNKWISE_RETURN_IF_ERROR(place.store->Set(key, AsBytes(text)));
  return std::string("built");
}

// Rank 0, once every part is saved: joins them, writes the set, then
// removes the work prefix (the manifest last).
Result<refs::ReferenceSet> JoinParts(const Context& context, const JobPlace& place,
                                     std::string_view output_url, int ranks,
                                     const ReferenceWriteOptions& write) {
  Result<refs::ReferenceSet> set = Status::Internal("not joined");
  {
    std::vector<std::string> texts;
    for (int rank = 0; rank < ranks; ++rank) {
      const std::string key = place.PartKey(rank, ranks);
      CHUNKWISE_ASSIGN_OR_RETURN(std::optional<Bytes> text, place.store->Get(key));
      if (!text) return Status::NotFound(place.store->Describe(key) + ": a saved part is gone");
      texts.emplace_back(AsChars(*text));
    }
    set = refs::MergeReferenceParts(texts);
  }
  if (!set.ok()) return set.status();
  CHUNKWISE_RETURN_IF_ERROR(WriteHeld(context, *set, output_url, write));
  CHUNKWISE_RETURN_IF_ERROR(RemoveWork(place, output_url));
  return set;
}

}  // namespace

std::string ReferenceRootArrayName(std::string_view source_url) {
  std::string name(source_url);
  while (name.size() > 1 && name.ends_with('/')) name.pop_back();
  name = fs::path(name).filename().stem().string();
  return name.empty() ? "data" : name;
}

Result<ReferenceJobSummary> BuildReferencesInto(const Context& context, std::string_view source_url,
                                                std::string_view output_url,
                                                const BuildReferencesOptions& build,
                                                const ReferenceWriteOptions& given_write,
                                                const ReferenceJobOptions& job,
                                                const CallOptions& call) {
  ReferenceWriteOptions write = given_write;
  if (write.root_array_name.empty()) write.root_array_name = ReferenceRootArrayName(source_url);
  core::SingleProcess alone;
  core::Communicator& ranks = build.ranks != nullptr ? *build.ranks : alone;
  const bool root = ranks.rank() == 0;
  // Every rank reaches each collective call with its outcome; none returns early.
  const Result<std::string> manifest = JobManifest(source_url, build);
  const Result<JobPlace> place = LocateJob(context, output_url);
  Status begun = manifest.ok() ? place.status() : manifest.status();
  if (root && begun.ok()) {
    begun = BeginReferenceJob(*place, *manifest, write, job.resume, ranks.size());
  }
  CHUNKWISE_RETURN_IF_ERROR(core::ShareRootStatus(ranks, root ? begun : Status::Ok()));
  ReferenceJobSummary summary;
  summary.parts = ranks.size();
  if (ranks.size() == 1) {
    // One process: no parts to save; the set is written as it is built.
    CHUNKWISE_ASSIGN_OR_RETURN(refs::ReferenceSet set,
                               BuildReferencePart(context, source_url, build, {}, call));
    CHUNKWISE_RETURN_IF_ERROR(WriteHeld(context, set, output_url, write));
    summary.set = ReferenceSetAccess::Wrap(std::move(set));
    CHUNKWISE_RETURN_IF_ERROR(RemoveWork(*place, output_url));
    return summary;
  }
  const Result<std::string> saved = place.ok() ? SavePart(context, source_url, build, job, *place,
                                                          {ranks.rank(), ranks.size()}, call)
                                               : Result<std::string>(place.status());
  CHUNKWISE_ASSIGN_OR_RETURN(const std::vector<std::string> outcomes,
                             core::GatherOutcomes(ranks, saved));
  Result<refs::ReferenceSet> joined =
      root ? JoinParts(context, *place, output_url, ranks.size(), write) : refs::ReferenceSet();
  CHUNKWISE_RETURN_IF_ERROR(core::ShareRootStatus(ranks, joined.status()));
  summary.parts_kept = static_cast<int>(std::count(outcomes.begin(), outcomes.end(), "kept"));
  summary.set = ReferenceSetAccess::Wrap(*std::move(joined));
  return summary;
}

Result<ReferenceSet> BuildReferences(const Context& context, std::string_view source_url,
                                     const BuildReferencesOptions& options,
                                     const CallOptions& call) {
  if (options.ranks == nullptr || options.ranks->size() == 1) {
    CHUNKWISE_ASSIGN_OR_RETURN(refs::ReferenceSet set,
                               BuildReferencePart(context, source_url, options, {}, call));
    return ReferenceSetAccess::Wrap(std::move(set));
  }
  core::Communicator& ranks = *options.ranks;
  // Every rank reaches the gather, its error included: a rank that returned
  // early would leave the others waiting in it.
  const Result<refs::ReferenceSet> part =
      BuildReferencePart(context, source_url, options, {ranks.rank(), ranks.size()}, call);
  const Result<std::string> encoded =
      part.ok() ? refs::EncodeReferencePart(*part) : Result<std::string>(part.status());
  CHUNKWISE_ASSIGN_OR_RETURN(const std::vector<std::string> parts,
                             core::GatherOutcomes(ranks, encoded));
  Result<refs::ReferenceSet> merged = ranks.rank() == 0
                                          ? refs::MergeReferenceParts(parts)
                                          : Result<refs::ReferenceSet>(refs::ReferenceSet());
  CHUNKWISE_RETURN_IF_ERROR(core::ShareRootStatus(ranks, merged.status()));
  if (!merged.ok()) return merged.status();
  return ReferenceSetAccess::Wrap(*std::move(merged));
}

Status WriteReferences(const Context& context, const ReferenceSet& set, std::string_view output_url,
                       const ReferenceWriteOptions& options) {
  return WriteHeld(context, ReferenceSetAccess::Held(set), output_url, options);
}

Result<std::shared_ptr<const store::ReferenceIndex>> ReadReferenceIndex(const Context& context,
                                                                        std::string_view url) {
  CHUNKWISE_ASSIGN_OR_RETURN(const UrlValue value, LocateUrlValue(context, url, false));
  return refs::OpenReferences(value.store, value.key);
}

Result<std::shared_ptr<store::ReferenceStore>> OpenReferenceStore(
    const Context& context, std::string_view url, const ReadReferencesOptions& options) {
  CHUNKWISE_ASSIGN_OR_RETURN(std::shared_ptr<const store::ReferenceIndex> index,
                             ReadReferenceIndex(context, url));
  CHUNKWISE_ASSIGN_OR_RETURN(const StoreUrl parsed, ParseStoreUrl(url));
  store::ReferenceStoreOptions store_options;
  if (parsed.scheme == "file") {
    store_options.base_directory = fs::absolute(parsed.location).lexically_normal().parent_path();
    store_options.allowed_roots.push_back(store_options.base_directory);
    for (const fs::path& root : options.allowed_roots) store_options.allowed_roots.push_back(root);
  } else {
    store_options.refuse_local_targets = true;
  }
  store_options.allow_remote = options.allow_remote;
  store_options.open_target = ObjectStorageTargetOpener(context.store_options(false));
  store_options.name = std::string(url);
  return store::ReferenceStore::Open(std::move(index), std::move(store_options));
}

Result<ReferenceSummary> SummarizeReferences(const ReferenceSet& set) {
  CHUNKWISE_ASSIGN_OR_RETURN(refs::ReferenceSummary summary,
                             refs::SummarizeReferences(ReferenceSetAccess::Held(set), nullptr));
  return FromHeld(std::move(summary));
}

Result<ReferenceSummary> DescribeReferences(const Context& context, std::string_view url,
                                            const ReadReferencesOptions& options) {
  CHUNKWISE_ASSIGN_OR_RETURN(const std::shared_ptr<store::ReferenceStore> store,
                             OpenReferenceStore(context, url, options));
  CHUNKWISE_ASSIGN_OR_RETURN(refs::ReferenceSummary summary,
                             refs::SummarizeReferences(store->index(), store.get()));
  return FromHeld(std::move(summary));
}

Result<ReferenceSet> CombineReferences(const Context& context,
                                       const std::vector<std::string>& input_urls, int concat_dim) {
  std::vector<std::shared_ptr<const store::ReferenceIndex>> loaded;
  std::vector<const refs::ReferenceSet*> inputs;
  for (const std::string& input : input_urls) {
    CHUNKWISE_ASSIGN_OR_RETURN(auto index, ReadReferenceIndex(context, input));
    const auto* set = dynamic_cast<const refs::ReferenceSet*>(index.get());
    if (set == nullptr) {
      return Status::Unsupported(input + ": combine reads JSON reference sets only");
    }
    inputs.push_back(set);
    loaded.push_back(std::move(index));
  }
  CHUNKWISE_ASSIGN_OR_RETURN(refs::ReferenceSet combined,
                             refs::CombineReferenceSets(inputs, {concat_dim}));
  return ReferenceSetAccess::Wrap(std::move(combined));
}

}  // namespace chunkwise
