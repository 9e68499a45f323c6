// neuroglancer precomputed volumes by URL (formats/precomputed): open one,
// say what each scale stores, read any box of a scale, and make one from a
// 3-d zarr array (pipelines/zarr_to_precomputed.h). Export shards to
// precomputed: precomputed_conversion.h.
#ifndef CHUNKWISE_FACADE_PRECOMPUTED_VOLUMES_H_
#define CHUNKWISE_FACADE_PRECOMPUTED_VOLUMES_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "chunkwise/core/region.h"
#include "chunkwise/facade/call_options.h"
#include "chunkwise/facade/context.h"
#include "chunkwise/formats/precomputed/info.h"
#include "chunkwise/formats/precomputed/sharding.h"
#include "chunkwise/formats/precomputed/volume.h"
#include "chunkwise/pipelines/zarr_to_precomputed.h"

namespace chunkwise {

using PrecomputedVolume = formats::precomputed::Volume;
using PrecomputedVolumeInfo = formats::precomputed::VolumeInfo;
using PrecomputedScaleInfo = formats::precomputed::ScaleInfo;
using PrecomputedVolumeType = formats::precomputed::VolumeType;
using PrecomputedChunkEncoding = formats::precomputed::ChunkEncoding;
using PrecomputedShardingSpec = formats::precomputed::ShardingSpec;
using PrecomputedShardHash = formats::precomputed::ShardHash;
using PrecomputedShardEncoding = formats::precomputed::ShardEncoding;
using ZarrToPrecomputedOptions = pipelines::ZarrToPrecomputedOptions;
using ZarrToPrecomputedSummary = pipelines::ZarrToPrecomputedSummary;
// The format's names ("segmentation", "compressed_segmentation") and the
// info as neuroglancer reads it.
using formats::precomputed::ChunkEncodingName;
using formats::precomputed::VolumeInfoToJson;
using formats::precomputed::VolumeTypeName;

// The volume at `url` (its `info`). NotFound naming the info key when absent.
Result<std::unique_ptr<PrecomputedVolume>> OpenPrecomputed(const Context& context,
                                                           std::string_view url);

// What one scale holds in the store: its chunks (unsharded) or shards, and their bytes.
struct PrecomputedStoredScale {
  std::string key;
  std::uint64_t objects = 0;
  std::uint64_t bytes = 0;
};
// One entry per scale of `volume`, in order; listing or size errors name the key.
Result<std::vector<PrecomputedStoredScale>> DescribePrecomputedStorage(
    const PrecomputedVolume& volume);

// The voxels of `region` (z, y, x; channels first when more than one) at
// `scale`, zero where nothing is stored. InvalidArgument for a scale the
// volume lacks (naming its scales) or a region outside it; Cancelled before
// the read when the call's flag is set.
Result<Bytes> ReadPrecomputedRegion(const Context& context, const PrecomputedVolume& volume,
                                    int scale, const core::Region& region,
                                    const CallOptions& call = {});

// A sharding spec (neuroglancer_uint64_sharded_v1) from its JSON text;
// InvalidArgument naming `where` and the field at fault.
Result<PrecomputedShardingSpec> ParsePrecomputedSharding(std::string_view json_text,
                                                         std::string_view where);

// A volume type ("segmentation", "image") and a chunk encoding ("raw",
// "compressed_segmentation") by the format's names, as both doors take them;
// InvalidArgument naming the field (type, encoding) and the names otherwise.
Result<PrecomputedVolumeType> ParsePrecomputedVolumeType(std::string_view text);
Result<PrecomputedChunkEncoding> ParsePrecomputedChunkEncoding(std::string_view text);

// The zarr array at `source_url` as a volume at `dest_url` (created when
// missing), as pipelines::ZarrToPrecomputed says. Progress is the call's
// (or the context's); threads are the call's, else options.threads, else the
// context's. InvalidArgument naming the destination when a volume is there
// and !options.overwrite, or naming the field (chunk_size, num_scales,
// gzip_level) for a chunk edge outside 1..4096, scales outside 1..32 or a
// gzip level outside 1..9.
Result<ZarrToPrecomputedSummary> ZarrToPrecomputed(const Context& context,
                                                   std::string_view source_url,
                                                   std::string_view dest_url,
                                                   ZarrToPrecomputedOptions options = {},
                                                   const CallOptions& call = {});

}  // namespace chunkwise

#endif  // CHUNKWISE_FACADE_PRECOMPUTED_VOLUMES_H_
