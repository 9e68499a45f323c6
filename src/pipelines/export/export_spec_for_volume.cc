#include <algorithm>
#include <nlohmann/json.hpp>

#include "chunkwise/core/morton.h"
#include "pipelines/export_spec.h"

namespace chunkwise::pipelines {
namespace {

using nlohmann::json;

// FlyEM's exports: 8³ chunks per minishard and 64 minishards per shard.
constexpr int kPreshiftBits = 9;
constexpr int kMinishardBits = 6;
// 2^21 chunks of 64 per axis: 63 Morton bits, within the 64 of a chunk id.
constexpr core::Index kMaxEdge = core::Index{1} << 27;

Result<json> ScaleJson(const core::GridCoord3& size, int scale,
                       const std::array<double, 3>& resolution) {
  core::GridCoord3 chunks{};
  json voxels = json::array();
  json nanometres = json::array();
  for (int d = 0; d < 3; ++d) {
    chunks[d] = (size[d] + kExportChunkEdge - 1) / kExportChunkEdge;
    voxels.push_back(size[d]);
    nanometres.push_back(resolution[d] * static_cast<double>(core::Index{1} << scale));
  }
  CHUNKWISE_ASSIGN_OR_RETURN(const core::MortonBits morton, core::MortonBits::FromGrid(chunks));
  const int bits = morton.total_bits();
  const int preshift = std::min(kPreshiftBits, bits);
  const int minishard = std::min(kMinishardBits, bits - preshift);
  return json{{"key", "s" + std::to_string(scale)},
              {"size", voxels},
              {"resolution", nanometres},
              {"voxel_offset", {0, 0, 0}},
              {"chunk_sizes", {{kExportChunkEdge, kExportChunkEdge, kExportChunkEdge}}},
              {"encoding", "compressed_segmentation"},
              {"compressed_segmentation_block_size", {8, 8, 8}},
              {"sharding",
               {{"@type", "neuroglancer_uint64_sharded_v1"},
                {"hash", "identity"},
                {"preshift_bits", preshift},
                {"minishard_bits", minishard},
                {"shard_bits", bits - preshift - minishard},
                {"minishard_index_encoding", "gzip"},
                {"data_encoding", "gzip"}}}};
}

}  // namespace

Result<ExportSpec> ExportSpecForVolume(const core::GridCoord3& size, int num_scales,
                                       const std::array<double, 3>& resolution) {
  for (const core::Index extent : size) {
    if (extent < 1 || extent > kMaxEdge) {
      return Status::InvalidArgument("export spec: a volume size of " + std::to_string(extent) +
                                     " voxels (must be 1.." + std::to_string(kMaxEdge) + ")");
    }
  }
  if (num_scales < 1 || num_scales > 32) {
    return Status::InvalidArgument("export spec: " + std::to_string(num_scales) +
                                   " scales (must be 1..32)");
  }
  json scales = json::array();
  for (int scale = 0; scale < num_scales; ++scale) {
    core::GridCoord3 scaled{};
    for (int d = 0; d < 3; ++d) scaled[d] = (size[d] + (core::Index{1} << scale) - 1) >> scale;
    CHUNKWISE_ASSIGN_OR_RETURN(json entry, ScaleJson(scaled, scale, resolution));
    scales.push_back(std::move(entry));
  }
  const json info = {{"@type", "neuroglancer_multiscale_volume"},
                     {"type", "segmentation"},
                     {"data_type", "uint64"},
                     {"num_channels", 1},
                     {"scales", scales}};
  return ParseExportSpec(info.dump(2), "default export spec");
}

}  // namespace chunkwise::pipelines
