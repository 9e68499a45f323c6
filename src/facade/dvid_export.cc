#include "chunkwise/facade/dvid_export.h"

#include <algorithm>
#include <optional>

#include "chunkwise/facade/url_value.h"
#include "chunkwise/store/rocksdb_store.h"

namespace chunkwise {

Result<std::unique_ptr<Labelmap>> OpenLabelmap(std::string_view path, bool create, bool read_only) {
  if (path.empty()) return Status::InvalidArgument("an empty path names no labelmap database");
  CHUNKWISE_ASSIGN_OR_RETURN(const StoreUrl url, ParseStoreUrl(path));
  if (url.scheme != "file" && url.scheme != "rocksdb") {
    return Status::InvalidArgument(
        url.text + ": a DVID labelmap database is a local RocksDB directory; " + url.scheme +
        ":// cannot hold one (export it with dvid export-shards to reach object storage)");
  }
  if (url.location.empty()) return Status::InvalidArgument(url.text + " names no directory");
  CHUNKWISE_ASSIGN_OR_RETURN(std::shared_ptr<store::RocksDbStore> db,
                             store::RocksDbStore::Open(url.location, {.create_if_missing = create,
                                                                      .read_only = read_only}));
  return Labelmap::Open(std::move(db), create);
}

Result<std::vector<std::uint64_t>> ReadLabelmapRegion(const Context& context,
                                                      const Labelmap& labelmap, const VoxelBox& box,
                                                      const LabelmapReadOptions& options,
                                                      const CallOptions& call) {
  const std::string name = labelmap.db().path().string();
  if (options.scale < 0 || options.scale >= labelmap.num_scales()) {
    return Status::InvalidArgument(name + ": scale " + std::to_string(options.scale) +
                                   " is not built (scales 0.." +
                                   std::to_string(labelmap.num_scales() - 1) + ")");
  }
  const std::uint32_t version =
      options.version != 0 ? options.version : labelmap.versions().newest();
  CHUNKWISE_RETURN_IF_ERROR(labelmap.versions().Find(version).status().WithContext(name));
  CHUNKWISE_ASSIGN_OR_RETURN(const std::shared_ptr<core::ThreadPool> pool, context.pool(call));
  CHUNKWISE_RETURN_IF_ERROR(context.CheckCancelled(call, "reading " + name));
  const std::unique_ptr<core::ProgressReporter> progress = context.StartProgress(
      call, "dvid read", static_cast<std::uint64_t>(box.num_voxels()) * sizeof(std::uint64_t), "B");
  CHUNKWISE_ASSIGN_OR_RETURN(std::vector<std::uint64_t> labels,
                             labelmap.ReadRegion(version, options.scale, box, pool.get(),
                                                 {progress.get(), &context.cancellation(call)}));
  if (options.mapped) {
    CHUNKWISE_ASSIGN_OR_RETURN(const auto mapping, labelmap.MappingAt(version));
    formats::dvid::ApplyMapping(mapping, labels);
  }
  progress->Finish();
  return labels;
}

Result<ExportSpec> DefaultExportSpec(const Labelmap& labelmap,
                                     const DefaultExportSpecOptions& options) {
  const std::uint32_t version =
      options.version != 0 ? options.version : labelmap.versions().newest();
  CHUNKWISE_ASSIGN_OR_RETURN(const std::optional<VoxelBox> extent,
                             labelmap.StoredExtent(version, 0));
  if (!extent.has_value()) {
    return Status::NotFound("version " + std::to_string(version) +
                            " stores no block at scale 0: nothing to size an export spec from");
  }
  if (*std::min_element(extent->offset.begin(), extent->offset.end()) < 0) {
    return Status::InvalidArgument(
        "version " + std::to_string(version) +
        " stores blocks at negative coordinates; an export spec starts at voxel 0");
  }
  // The box is z, y, x; the spec's sizes are x, y, z and start at voxel 0.
  const core::GridCoord3 size{extent->offset[2] + extent->shape[2],
                              extent->offset[1] + extent->shape[1],
                              extent->offset[0] + extent->shape[0]};
  return pipelines::ExportSpecForVolume(size, std::max(1, labelmap.num_scales()),
                                        options.resolution);
}

Result<ExportSpec> ReadExportSpec(const Context& context, std::string_view url) {
  CHUNKWISE_ASSIGN_OR_RETURN(const Bytes text, ReadUrl(context, url));
  return pipelines::ParseExportSpec(AsChars(text), url);
}

namespace {

constexpr std::string_view kMemoryScheme = "memory://";

// The store and key of the value `url` names. A memory store's name is the
// URL's first segment (memory://NAME/s0/0_0_0.arrow is s0/0_0_0.arrow in
// NAME); every other URL's store is its parent (LocateUrlValue).
Result<UrlValue> LocateExportValue(const Context& context, std::string_view url) {
  if (!url.starts_with(kMemoryScheme)) return LocateUrlValue(context, url, false);
  const std::string_view rest = url.substr(kMemoryScheme.size());
  const std::size_t slash = rest.find('/');
  if (slash == std::string_view::npos || slash + 1 == rest.size()) {
    return Status::InvalidArgument(std::string(url) +
                                   ": names a store, not a value (memory://NAME/KEY)");
  }
  CHUNKWISE_ASSIGN_OR_RETURN(std::shared_ptr<store::Store> store,
                             OpenStore(context, url.substr(0, kMemoryScheme.size() + slash),
                                       context.store_options(false)));
  return UrlValue{std::move(store), std::string(rest.substr(slash + 1))};
}

// Where an export to `dest_url` goes: a local directory as the prefix
// "<name>/" of the store over its parent, so that a failed export, whose keys
// are erased, leaves no directory behind; any other URL as its store's root.
struct ExportDestinationUrl {
  std::shared_ptr<store::Store> store;
  std::string prefix;
};

Result<ExportDestinationUrl> LocateExportDestination(const Context& context,
                                                     std::string_view dest_url) {
  CHUNKWISE_ASSIGN_OR_RETURN(const StoreUrl parsed, ParseStoreUrl(dest_url));
  if (parsed.scheme == "file") {
    CHUNKWISE_ASSIGN_OR_RETURN(const UrlValue dest, LocateUrlValue(context, dest_url, true));
    return ExportDestinationUrl{dest.store, dest.key + "/"};
  }
  CHUNKWISE_ASSIGN_OR_RETURN(std::shared_ptr<store::Store> store,
                             OpenStore(context, dest_url, context.store_options(true)));
  return ExportDestinationUrl{std::move(store), ""};
}

ExportShardsOptions WithContext(const Context& context, const CallOptions& call,
                                ExportShardsOptions options) {
  options.progress = call.progress_mode.value_or(context.progress_mode());
  options.observer = call.observer != nullptr ? call.observer : context.observer();
  options.cancellation = &context.cancellation(call);
  if (options.workers == 0) options.workers = call.threads != 0 ? call.threads : context.threads();
  return options;
}

}  // namespace

Result<ExportSummary> ExportShards(const Context& context, const Labelmap& labelmap,
                                   const ExportSpec& spec, std::string_view dest_url,
                                   ExportShardsOptions options, const CallOptions& call) {
  CHUNKWISE_RETURN_IF_ERROR(
      context.CheckCancelled(call, std::string("exporting to ") + std::string(dest_url)));
  options = WithContext(context, call, std::move(options));
  CHUNKWISE_ASSIGN_OR_RETURN(const StoreUrl parsed, ParseStoreUrl(dest_url));
  // A killed export's temporaries; under ranks only rank 0, which prepares
  // the prefix before any rank writes (the others' files are not yet there).
  if (parsed.scheme == "file" && (options.ranks == nullptr || options.ranks->rank() == 0)) {
    CHUNKWISE_RETURN_IF_ERROR(RemoveDeadTemporariesAt(dest_url));
  }
  CHUNKWISE_ASSIGN_OR_RETURN(const ExportDestinationUrl dest,
                             LocateExportDestination(context, dest_url));
  return pipelines::ExportShards(labelmap, spec, dest.store, dest.prefix, options);
}

Status PrepareExportShards(const Context& context, std::string_view dest_url,
                           const ExportShardsOptions& options) {
  CHUNKWISE_ASSIGN_OR_RETURN(const StoreUrl parsed, ParseStoreUrl(dest_url));
  if (parsed.scheme == "file") CHUNKWISE_RETURN_IF_ERROR(RemoveDeadTemporariesAt(dest_url));
  CHUNKWISE_ASSIGN_OR_RETURN(const ExportDestinationUrl dest,
                             LocateExportDestination(context, dest_url));
  return pipelines::PrepareExportShards(dest.store, dest.prefix, options);
}

Result<ExportSummary> ExportShardsPart(const Context& context, const Labelmap& labelmap,
                                       const ExportSpec& spec, std::string_view dest_url, int part,
                                       int parts, ExportShardsOptions options,
                                       const CallOptions& call) {
  CHUNKWISE_RETURN_IF_ERROR(
      context.CheckCancelled(call, std::string("exporting to ") + std::string(dest_url)));
  options = WithContext(context, call, std::move(options));
  CHUNKWISE_ASSIGN_OR_RETURN(const ExportDestinationUrl dest,
                             LocateExportDestination(context, dest_url));
  return pipelines::ExportShardsPart(labelmap, spec, dest.store, dest.prefix, part, parts, options);
}

Result<ExportSummary> PublishExportShards(const Context& context, const Labelmap& labelmap,
                                          const ExportSpec& spec, std::string_view dest_url,
                                          const std::vector<ExportSummary>& parts,
                                          const ExportShardsOptions& options) {
  CHUNKWISE_ASSIGN_OR_RETURN(const ExportDestinationUrl dest,
                             LocateExportDestination(context, dest_url));
  return pipelines::PublishExportShards(labelmap, spec, dest.store, dest.prefix, parts, options);
}

Result<ExportShardReader> OpenExportShard(const Context& context, std::string_view url,
                                          bool read_whole) {
  CHUNKWISE_ASSIGN_OR_RETURN(const UrlValue file, LocateExportValue(context, url));
  return ExportShardReader::Open(file.store, file.key, {read_whole});
}

Result<std::vector<std::uint64_t>> DecodeExportBlock(const ExportBlock& block, bool supervoxels,
                                                     std::string_view name) {
  std::vector<std::uint64_t> voxels(formats::dvid::kBlockVoxels);
  CHUNKWISE_RETURN_IF_ERROR(pipelines::DecodeExportBlock(block, supervoxels, voxels, name));
  return voxels;
}

Result<std::unique_ptr<ExportedVolumeReader>> OpenExportedVolume(const Context& context,
                                                                 std::string_view url) {
  CHUNKWISE_ASSIGN_OR_RETURN(std::shared_ptr<store::Store> store,
                             OpenStore(context, url, context.store_options(false)));
  Result<std::unique_ptr<ExportedVolumeReader>> reader =
      ExportedVolumeReader::Open(std::move(store), "");
  if (!reader.ok()) return reader.status().WithContext(url);
  return reader;
}

Result<std::vector<std::uint64_t>> ReadExportedRegion(const Context& context,
                                                      const ExportedVolumeReader& volume, int scale,
                                                      const VoxelBox& box, bool supervoxels,
                                                      const CallOptions& call) {
  CHUNKWISE_ASSIGN_OR_RETURN(const std::shared_ptr<core::ThreadPool> pool, context.pool(call));
  const formats::dvid::BlockBox covered = formats::dvid::BlocksCovering(box);
  const std::uint64_t blocks =
      covered.empty() ? 0
                      : static_cast<std::uint64_t>(covered.end.x - covered.begin.x) *
                            static_cast<std::uint64_t>(covered.end.y - covered.begin.y) *
                            static_cast<std::uint64_t>(covered.end.z - covered.begin.z);
  const std::unique_ptr<core::ProgressReporter> progress =
      context.StartProgress(call, "dvid read-shards", blocks, "blocks");
  CHUNKWISE_ASSIGN_OR_RETURN(std::vector<std::uint64_t> labels,
                             volume.Read(scale, box, supervoxels, pool.get(),
                                         &context.cancellation(call), progress.get()));
  progress->Finish();
  return labels;
}

}  // namespace chunkwise
