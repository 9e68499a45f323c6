// zarr → neuroglancer precomputed: a 3-d zarr array (z, y, x) as a
// multiscale precomputed volume, sharded or not.
//
// Scale 0 is the array, chunk by chunk (sharded: shard by shard, each
// written once). Each further scale halves every axis (rounding up) and is
// built from the scale before it as written: labels by the most frequent of
// the 2×2×2 voxels (ties to the smaller label), images by their mean
// (integers rounded to nearest, halves to even), both by core::Downsampler,
// as the stream writer's pyramids; a segmentation of floats is refused, for
// floats have no mode. Segmentations (uint32, uint64) default
// to compressed_segmentation in 8³ blocks, images to raw. Chunks run in
// parallel on one pool; the info is written last.
#ifndef CHUNKWISE_PIPELINES_ZARR_TO_PRECOMPUTED_H_
#define CHUNKWISE_PIPELINES_ZARR_TO_PRECOMPUTED_H_

#include <array>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "chunkwise/core/progress.h"
#include "chunkwise/store/store.h"
#include "formats/precomputed/info.h"

namespace chunkwise::pipelines {

struct ZarrToPrecomputedOptions {
  // nullopt: segmentation for uint32 and uint64 arrays, image otherwise.
  std::optional<formats::precomputed::VolumeType> type = std::nullopt;
  // nullopt: compressed_segmentation for segmentations, raw for images.
  std::optional<formats::precomputed::ChunkEncoding> encoding = std::nullopt;
  formats::precomputed::GridCoord3 chunk_size{64, 64, 64};  // x, y, z
  std::array<double, 3> resolution{1, 1, 1};                // x, y, z at scale 0
  int num_scales = 1;
  // Sharding of every scale: `sharding` as given, or with `auto_sharding`
  // bits chosen per scale (preshift up to 9 and minishard up to 6 of the
  // grid's Morton bits, the rest to the shard number), else unsharded.
  std::optional<formats::precomputed::ShardingSpec> sharding = std::nullopt;
  bool auto_sharding = false;
  int gzip_level = 6;
  std::size_t threads = 0;
  bool overwrite = false;
  core::ProgressMode progress = core::ProgressMode::kQuiet;
};

struct ZarrToPrecomputedSummary {
  std::vector<std::uint64_t> chunks_per_scale;
  std::uint64_t bytes_read = 0;  // Decoded bytes of scale 0.
  double seconds = 0;
  std::string Format() const;
};

// Converts the zarr array at (`source`, `source_prefix`) into a volume at
// (`dest`, `dest_prefix`). InvalidArgument for an array that is not 3-d, a
// data type precomputed cannot hold (bool, float16, complex), an encoding
// the type cannot take, or a taken destination without overwrite; the
// zarr reader's and the store's errors.
Result<ZarrToPrecomputedSummary> ZarrToPrecomputed(std::shared_ptr<store::Store> source,
                                                   const std::string& source_prefix,
                                                   std::shared_ptr<store::Store> dest,
                                                   const std::string& dest_prefix,
                                                   const ZarrToPrecomputedOptions& options);

}  // namespace chunkwise::pipelines

#endif  // CHUNKWISE_PIPELINES_ZARR_TO_PRECOMPUTED_H_
