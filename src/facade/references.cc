#include "chunkwise/facade/references.h"

#include <filesystem>

#include "chunkwise/facade/format_detection.h"
#include "chunkwise/facade/reference_targets.h"
#include "chunkwise/facade/url_value.h"
#include "chunkwise/formats/refs/arrow_shard_references.h"
#include "chunkwise/formats/refs/bcolz_references.h"
#include "chunkwise/formats/refs/parquet_references.h"
#include "chunkwise/formats/refs/reference_parts.h"
#include "chunkwise/formats/refs/zarr_references.h"
#include "chunkwise/store/file_store.h"

namespace chunkwise {
namespace {

namespace fs = std::filesystem;
namespace refs = formats::refs;

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
Result<ReferenceSet> BuildReferencePart(const Context& context, std::string_view source_url,
                                        const BuildReferencesOptions& options,
                                        const core::JobPart& part) {
  CHUNKWISE_RETURN_IF_ERROR(
      context.CheckCancelled(std::string("building references to ") + std::string(source_url)));
  CHUNKWISE_ASSIGN_OR_RETURN(const StoreUrl url, ParseStoreUrl(source_url));
  CHUNKWISE_ASSIGN_OR_RETURN(Source source, OpenSource(context, url));
  if (!options.url_base.empty()) {
    source.url_base = options.url_base;
    if (!source.url_base.ends_with('/')) source.url_base += '/';
  }
  CHUNKWISE_ASSIGN_OR_RETURN(const DetectedFormat format,
                             DetectFormat(*source.store, source.prefix));
  const auto progress_for = [&](const char* unit) {
    return part.rank == 0 ? context.StartProgress("refs build", 0, unit) : nullptr;
  };
  switch (format.kind) {
    case FormatKind::kZarrV3Array:
    case FormatKind::kZarrV3Group:
    case FormatKind::kZarrV2Array:
    case FormatKind::kZarrV2Group: {
      auto progress = progress_for("chunks");
      CHUNKWISE_ASSIGN_OR_RETURN(
          ReferenceSet set, refs::BuildZarrReferences(
                                source.store, source.prefix,
                                {source.url_base, progress.get(), &context.cancellation(), part}));
      if (progress != nullptr) progress->Finish();
      return set;
    }
    case FormatKind::kBcolzCarray:
      return refs::BuildBcolzReferences(source.store, source.prefix, {source.url_base, part});
    case FormatKind::kDvidExport:
    case FormatKind::kArrowShard: {
      if (options.zarr_chunk_keys_only) {
        return Status::Unsupported(url.text + " (" + std::string(FormatName(format.kind)) +
                                   "): its blocks are keyed x_y_z outside any zarr chunk grid, "
                                   "which Parquet references cannot hold; " +
                                   std::string(refs::kParquetNeedsZarrKeys));
      }
      auto progress = progress_for("shards");
      CHUNKWISE_ASSIGN_OR_RETURN(
          ReferenceSet set, refs::BuildArrowShardReferences(
                                source.store, source.prefix,
                                {source.url_base, progress.get(), &context.cancellation(), part}));
      if (progress != nullptr) progress->Finish();
      return set;
    }
    default:
      return Status::Unsupported(url.text + " is a " + std::string(FormatName(format.kind)) +
                                 "; references are built for zarr arrays and groups, bcolz "
                                 "carrays and DVID export shards");
  }
}

}  // namespace

Result<ReferenceSet> BuildReferences(const Context& context, std::string_view source_url,
                                     const BuildReferencesOptions& options) {
  if (options.ranks == nullptr || options.ranks->size() == 1) {
    return BuildReferencePart(context, source_url, options, {});
  }
  core::Communicator& ranks = *options.ranks;
  // Every rank reaches the gather, its error included: a rank that returned
  // early would leave the others waiting in it.
  const Result<ReferenceSet> part =
      BuildReferencePart(context, source_url, options, {ranks.rank(), ranks.size()});
  const Result<std::string> encoded =
      part.ok() ? refs::EncodeReferencePart(*part) : Result<std::string>(part.status());
  CHUNKWISE_ASSIGN_OR_RETURN(const std::vector<std::string> parts,
                             core::GatherOutcomes(ranks, encoded));
  Result<ReferenceSet> merged =
      ranks.rank() == 0 ? refs::MergeReferenceParts(parts) : Result<ReferenceSet>(ReferenceSet());
  CHUNKWISE_RETURN_IF_ERROR(core::ShareRootStatus(ranks, merged.status()));
  return merged;
}

Status WriteReferences(const Context& context, const ReferenceSet& set, std::string_view output_url,
                       const ReferenceWriteOptions& options) {
  // A Parquet set is a directory of values: a killed writer's temporary files
  // there go before the next write.
  CHUNKWISE_RETURN_IF_ERROR(RemoveDeadTemporariesAt(output_url));
  CHUNKWISE_ASSIGN_OR_RETURN(const UrlValue value, LocateUrlValue(context, output_url, true));
  return refs::WriteReferences(*value.store, value.key, set, options);
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

}  // namespace chunkwise
