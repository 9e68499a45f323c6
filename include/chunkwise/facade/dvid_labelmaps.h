// DVID labelmaps (facade/labelmap.h): ingest a label volume, load supervoxel
// mappings, store a block, and the box a region names over what is stored.
// Opening a labelmap and reading a region: dvid_export.h.
#ifndef CHUNKWISE_FACADE_DVID_LABELMAPS_H_
#define CHUNKWISE_FACADE_DVID_LABELMAPS_H_

#include <array>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "chunkwise/core/npy.h"
#include "chunkwise/facade/call_options.h"
#include "chunkwise/facade/context.h"
#include "chunkwise/facade/dvid_export.h"
#include "chunkwise/facade/labelmap.h"

namespace chunkwise {

// Any 3-d unsigned (or non-negative signed) .npy array as uint64 labels in C
// order, its (z, y, x) shape into `shape`; InvalidArgument naming `name` for
// another rank or dtype, or a negative label.
Result<std::vector<std::uint64_t>> LabelVolumeFromNpy(const core::NpyArray& array,
                                                      std::array<std::int64_t, 3>& shape,
                                                      std::string_view name);

// What IngestLabels stored.
struct LabelmapIngestSummary {
  std::uint32_t version = 0;
  std::vector<std::uint64_t> blocks_written;  // Per scale.
  std::vector<std::uint64_t> blocks_deleted;  // Per scale: tombstones written.
  std::uint64_t blocks_skipped = 0;           // Scale 0 blocks left absent (all zero).
};

struct IngestLabelsOptions {
  std::uint32_t version = 0;                    // 0: the newest open version.
  std::array<std::int64_t, 3> offset{0, 0, 0};  // Voxel (z, y, x) of volume[0, 0, 0].
  int downsample_scales = 0;                    // Build scales 1..N by 2x mode.
};

// Stores `volume` (C order, `shape` z, y, x) as blocks of `labelmap`, on the
// call's pool (or the context's), with its progress and cancellation.
// InvalidArgument for a volume of the wrong size, a committed or unknown
// version, or blocks outside the int32 block range.
Result<LabelmapIngestSummary> IngestLabels(const Context& context, Labelmap& labelmap,
                                           std::span<const std::uint64_t> volume,
                                           std::array<std::int64_t, 3> shape,
                                           const IngestLabelsOptions& options = {},
                                           const CallOptions& call = {});

// Sets supervoxel → label `pairs` at `version` (0: the newest open one) and
// returns the version; the database's errors for a committed version.
Result<std::uint32_t> SetLabelMappings(Labelmap& labelmap, std::span<const LabelPair> pairs,
                                       std::uint32_t version = 0);

// Stores one DVID compressed label block, given raw or gzipped (`name` names
// it in errors), at `version` (0: the newest open one); returns the version.
// InvalidArgument/Corruption naming `name` for bytes that are not a block.
Result<std::uint32_t> PutLabelBlock(Labelmap& labelmap, int scale, const LabelBlockCoord& coord,
                                    Bytes bytes, std::string_view name, std::uint32_t version = 0);

// The voxel box that `region` ("z0:z1,y0:y1,x0:x1", absolute, exclusive)
// names at `scale` of `version`: open ends and "" take the stored extent
// (none: open ends are 0). NotFound naming the database when nothing is
// stored there and `region` is ""; InvalidArgument naming the dimension for
// bad text.
Result<VoxelBox> LabelmapRegionBox(const Labelmap& labelmap, std::string_view region,
                                   std::uint32_t version, int scale);

}  // namespace chunkwise

#endif  // CHUNKWISE_FACADE_DVID_LABELMAPS_H_
