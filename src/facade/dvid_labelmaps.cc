#include "chunkwise/facade/dvid_labelmaps.h"

#include <memory>
#include <string>
#include <utility>

#include "core/region_text.h"
#include "facade/labelmap_access.h"
#include "formats/dvid/ingest.h"
#include "formats/dvid/value_envelope.h"

namespace chunkwise {

namespace dvid = formats::dvid;

namespace {

std::uint32_t NewestOpenUnless(const Labelmap& labelmap, std::uint32_t version) {
  return version != 0 ? version : labelmap.newest_open_version();
}

}  // namespace

Result<std::vector<std::uint64_t>> LabelVolumeFromNpy(const core::NpyArray& array,
                                                      std::array<std::int64_t, 3>& shape,
                                                      std::string_view name) {
  return dvid::LabelVolumeFromNpy(array, shape, name);
}

Result<LabelmapIngestSummary> IngestLabels(const Context& context, Labelmap& labelmap,
                                           std::span<const std::uint64_t> volume,
                                           std::array<std::int64_t, 3> shape,
                                           const IngestLabelsOptions& options,
                                           const CallOptions& call) {
  CHUNKWISE_ASSIGN_OR_RETURN(const std::shared_ptr<core::ThreadPool> pool, context.pool(call));
  dvid::IngestOptions ingest;
  ingest.version = options.version;
  ingest.offset = options.offset;
  ingest.downsample_scales = options.downsample_scales;
  ingest.pool = pool.get();
  ingest.progress = call.progress_mode.value_or(context.progress_mode());
  ingest.observer = call.observer != nullptr ? call.observer : context.observer();
  ingest.cancellation = &context.cancellation(call);
  CHUNKWISE_ASSIGN_OR_RETURN(
      dvid::IngestSummary summary,
      dvid::IngestVolume(LabelmapAccess::Held(labelmap), volume, shape, ingest));
  return LabelmapIngestSummary{summary.version, std::move(summary.blocks_written),
                               std::move(summary.blocks_deleted), summary.blocks_skipped};
}

Result<std::uint32_t> SetLabelMappings(Labelmap& labelmap, std::span<const LabelPair> pairs,
                                       std::uint32_t version) {
  version = NewestOpenUnless(labelmap, version);
  std::vector<dvid::LabelPair> entries;
  entries.reserve(pairs.size());
  for (const LabelPair& pair : pairs) entries.push_back({pair.supervoxel, pair.label});
  CHUNKWISE_RETURN_IF_ERROR(LabelmapAccess::Held(labelmap).SetMappings(version, entries));
  return version;
}

Result<std::uint32_t> PutLabelBlock(Labelmap& labelmap, int scale, const LabelBlockCoord& coord,
                                    Bytes bytes, std::string_view name, std::uint32_t version) {
  CHUNKWISE_ASSIGN_OR_RETURN(bytes, dvid::GunzipIfGzip(std::move(bytes), name));
  version = NewestOpenUnless(labelmap, version);
  CHUNKWISE_RETURN_IF_ERROR(LabelmapAccess::Held(labelmap)
                                .PutEncodedBlock(version, scale, ToFormat(coord), bytes)
                                .WithContext(name));
  return version;
}

Result<VoxelBox> LabelmapRegionBox(const Labelmap& labelmap, std::string_view region,
                                   std::uint32_t version, int scale) {
  CHUNKWISE_ASSIGN_OR_RETURN(const std::optional<VoxelBox> extent,
                             labelmap.StoredExtent(version, scale));
  core::Region defaults =
      core::Region::FromOriginAndShape(core::Coord{0, 0, 0}, core::Coord{0, 0, 0});
  if (extent) {
    defaults =
        core::Region::FromOriginAndShape(core::Coord(extent->offset.begin(), extent->offset.end()),
                                         core::Coord(extent->shape.begin(), extent->shape.end()));
  } else if (region.empty()) {
    return Status::NotFound(LabelmapAccess::Held(labelmap).db().path().string() +
                            ": no blocks stored at scale " + std::to_string(scale) + " version " +
                            std::to_string(version));
  }
  CHUNKWISE_ASSIGN_OR_RETURN(const core::Region parsed, core::ParseBox(region, defaults));
  VoxelBox box;
  for (int d = 0; d < 3; ++d) {
    box.offset[d] = parsed.start()[d];
    box.shape[d] = parsed.stop()[d] - parsed.start()[d];
  }
  return box;
}

}  // namespace chunkwise
