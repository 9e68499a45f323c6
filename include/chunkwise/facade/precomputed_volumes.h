// neuroglancer precomputed volumes by URL: open one, say what each scale
// stores, read any box of a scale, and make one from a 3-d zarr array.
// Export shards to precomputed: precomputed_conversion.h.
//
// The types here are the facade's own, plain values copied from the
// library's format (docs/formats/precomputed.md): coordinates and extents
// are (x, y, z), neuroglancer's order.
#ifndef CHUNKWISE_FACADE_PRECOMPUTED_VOLUMES_H_
#define CHUNKWISE_FACADE_PRECOMPUTED_VOLUMES_H_

#include <array>
#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "chunkwise/core/data_type.h"
#include "chunkwise/core/morton.h"
#include "chunkwise/core/region.h"
#include "chunkwise/facade/call_options.h"
#include "chunkwise/facade/context.h"

namespace chunkwise {

enum class PrecomputedVolumeType { kImage, kSegmentation };
// The chunk encodings chunkwise reads and writes.
enum class PrecomputedChunkEncoding { kRaw, kCompressedSegmentation };
enum class PrecomputedShardHash { kIdentity, kMurmurHash3X86_128 };
// How minishard indexes, or chunk data, are stored in a shard.
enum class PrecomputedShardEncoding { kRaw, kGzip };

// A scale's neuroglancer_uint64_sharded_v1 spec.
struct PrecomputedShardingSpec {
  int preshift_bits = 0;
  int minishard_bits = 0;
  int shard_bits = 0;
  PrecomputedShardHash hash = PrecomputedShardHash::kIdentity;
  PrecomputedShardEncoding minishard_index_encoding = PrecomputedShardEncoding::kRaw;
  PrecomputedShardEncoding data_encoding = PrecomputedShardEncoding::kRaw;
  bool operator==(const PrecomputedShardingSpec&) const = default;
};

struct PrecomputedScaleInfo {
  std::string key;
  core::GridCoord3 size{};
  core::GridCoord3 voxel_offset{};
  core::GridCoord3 chunk_size{64, 64, 64};
  std::array<double, 3> resolution{1, 1, 1};
  PrecomputedChunkEncoding encoding = PrecomputedChunkEncoding::kRaw;
  core::GridCoord3 compressed_segmentation_block_size{8, 8, 8};
  std::optional<PrecomputedShardingSpec> sharding;

  // Chunks per axis: ceil(size / chunk_size).
  core::GridCoord3 grid() const;
};

struct PrecomputedVolumeInfo {
  PrecomputedVolumeType type = PrecomputedVolumeType::kSegmentation;
  core::DataType data_type{core::DataTypeId::kUInt64};
  int num_channels = 1;
  std::vector<PrecomputedScaleInfo> scales;
  // The info's members the scales do not model ("mesh", "segment_properties", ...).
  nlohmann::json extra = nlohmann::json::object();
};

// The format's names ("segmentation", "compressed_segmentation").
std::string_view VolumeTypeName(PrecomputedVolumeType type);
std::string_view ChunkEncodingName(PrecomputedChunkEncoding encoding);
// The info as neuroglancer reads it (the modelled members, then `extra`).
nlohmann::json VolumeInfoToJson(const PrecomputedVolumeInfo& info);

// An open volume: its info, read when opened, and what reads its voxels
// (ReadPrecomputedRegion). Reads may run concurrently.
class PrecomputedVolume {
 public:
  ~PrecomputedVolume();
  PrecomputedVolume(const PrecomputedVolume&) = delete;
  PrecomputedVolume& operator=(const PrecomputedVolume&) = delete;

  const PrecomputedVolumeInfo& info() const { return info_; }
  const PrecomputedScaleInfo& scale(int s) const { return info_.scales[s]; }
  int num_scales() const { return static_cast<int>(info_.scales.size()); }

 private:
  friend class PrecomputedVolumeAccess;  // src/facade: makes and unwraps volumes.
  struct Held;                           // The library's volume.
  explicit PrecomputedVolume(std::unique_ptr<Held> held);

  std::unique_ptr<Held> held_;
  PrecomputedVolumeInfo info_;
};

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

// How ZarrToPrecomputed lays out the volume. Scale 0 is the array; each
// further scale halves every axis (rounding up), labels by the most frequent
// of the 2×2×2 voxels, images by their mean.
struct ZarrToPrecomputedOptions {
  // nullopt: segmentation for uint32 and uint64 arrays, image otherwise.
  std::optional<PrecomputedVolumeType> type = std::nullopt;
  // nullopt: compressed_segmentation for segmentations, raw for images.
  std::optional<PrecomputedChunkEncoding> encoding = std::nullopt;
  core::GridCoord3 chunk_size{64, 64, 64};    // x, y, z
  std::array<double, 3> resolution{1, 1, 1};  // x, y, z at scale 0
  int num_scales = 1;
  // Sharding of every scale: `sharding` as given, or with `auto_sharding`
  // bits chosen per scale, else unsharded.
  std::optional<PrecomputedShardingSpec> sharding = std::nullopt;
  bool auto_sharding = false;
  int gzip_level = 6;
  std::size_t threads = 0;
  bool overwrite = false;
};

struct ZarrToPrecomputedSummary {
  std::vector<std::uint64_t> chunks_per_scale;
  std::uint64_t bytes_read = 0;  // Decoded bytes of scale 0.
  double seconds = 0;
  std::string Format() const;
};

// The zarr array at `source_url` as a volume at `dest_url` (created when
// missing). Progress is the call's (or the context's); threads are the
// call's, else options.threads, else the context's. InvalidArgument naming
// the destination when a volume is there and !options.overwrite, or naming
// the field (chunk_size, num_scales, gzip_level) for a chunk edge outside
// 1..4096, scales outside 1..32 or a gzip level outside 1..9; for an array
// that is not 3-d, a data type precomputed cannot hold (bool, float16,
// complex) or an encoding the type cannot take.
Result<ZarrToPrecomputedSummary> ZarrToPrecomputed(const Context& context,
                                                   std::string_view source_url,
                                                   std::string_view dest_url,
                                                   ZarrToPrecomputedOptions options = {},
                                                   const CallOptions& call = {});

}  // namespace chunkwise

#endif  // CHUNKWISE_FACADE_PRECOMPUTED_VOLUMES_H_
