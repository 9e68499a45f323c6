#include "chunkwise/facade/dvid_export_reading.h"

#include <string>

#include "chunkwise/facade/url_value.h"

namespace chunkwise {
namespace {

constexpr std::string_view kMemoryScheme = "memory://";

// The store and key of the value `url` names. A memory store's name is the
// URL's first segment (memory://NAME/s0/0_0_0.arrow is s0/0_0_0.arrow in
// NAME); every other URL's store is its parent (LocateUrlValue).
Result<UrlValue> LocateValue(const Context& context, std::string_view url) {
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

}  // namespace

Result<ExportShardReader> OpenExportShard(const Context& context, std::string_view url,
                                          bool read_whole) {
  CHUNKWISE_ASSIGN_OR_RETURN(const UrlValue value, LocateValue(context, url));
  return ExportShardReader::Open(value.store, value.key, {read_whole});
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

Result<std::vector<std::uint64_t>> ReadExportedVolume(const Context& context,
                                                      const ExportedVolumeReader& volume, int scale,
                                                      const VoxelBox& box, bool supervoxels,
                                                      const CallOptions& call) {
  CHUNKWISE_ASSIGN_OR_RETURN(const std::shared_ptr<core::ThreadPool> pool, context.pool(call));
  const std::unique_ptr<core::ProgressReporter> progress =
      context.StartProgress(call, "export read", 0, "blocks");
  CHUNKWISE_ASSIGN_OR_RETURN(std::vector<std::uint64_t> labels,
                             volume.Read(scale, box, supervoxels, pool.get(),
                                         &context.cancellation(call), progress.get()));
  progress->Finish();
  return labels;
}

}  // namespace chunkwise
