// The `info` file of a neuroglancer precomputed multiscale volume, and the
// chunk grid and chunk keys of each scale.
//
// Format: docs/formats/precomputed.md §info. Coordinates and extents are
// (x, y, z), neuroglancer's order. A scale's chunks cover
// [voxel_offset + g·chunk_size, voxel_offset + min((g + 1)·chunk_size, size))
// for grid cell g, so chunks at the upper edge are cut to the volume. An
// unsharded chunk is stored at "<key>/<x0>-<x1>_<y0>-<y1>_<z0>-<z1>"; a
// sharded one inside "<key>/<shard>.shard" under its compressed Morton code.
// Values are plain and thread-safe.
#ifndef CHUNKWISE_FORMATS_PRECOMPUTED_INFO_H_
#define CHUNKWISE_FORMATS_PRECOMPUTED_INFO_H_

#include <array>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "chunkwise/core/data_type.h"
#include "chunkwise/core/morton.h"
#include "chunkwise/core/result.h"
#include "formats/precomputed/sharding.h"

namespace chunkwise::formats::precomputed {

using core::GridCoord3;

enum class VolumeType { kImage, kSegmentation };
// The chunk encodings chunkwise reads and writes; others are Unsupported.
enum class ChunkEncoding { kRaw, kCompressedSegmentation };

struct ScaleInfo {
  std::string key;
  GridCoord3 size{};
  GridCoord3 voxel_offset{};
  GridCoord3 chunk_size{64, 64, 64};
  std::array<double, 3> resolution{1, 1, 1};
  ChunkEncoding encoding = ChunkEncoding::kRaw;
  GridCoord3 compressed_segmentation_block_size{8, 8, 8};
  std::optional<ShardingSpec> sharding;

  // Chunks per axis: ceil(size / chunk_size).
  GridCoord3 grid() const;
  // The extent of grid cell `g`, cut at the volume's upper edge.
  GridCoord3 ChunkExtent(const GridCoord3& g) const;
  // The Morton bits of the grid (sharded chunk ids).
  core::MortonBits morton_bits() const;
  // The chunk id of grid cell `g`: its compressed Morton code.
  std::uint64_t ChunkId(const GridCoord3& g) const;
  // "<key>/<x0>-<x1>_<y0>-<y1>_<z0>-<z1>", relative to the volume's prefix.
  std::string UnshardedChunkKey(const GridCoord3& g) const;
  // "<key>/<hex>.shard". REQUIRES: sharding.
  std::string ShardKey(std::uint64_t shard) const;
};

struct VolumeInfo {
  VolumeType type = VolumeType::kSegmentation;
  core::DataType data_type{core::DataTypeId::kUInt64};
  int num_channels = 1;
  std::vector<ScaleInfo> scales;
  // Members chunkwise does not model ("mesh", "segment_properties", ...), kept
  // so that a rewritten info keeps them.
  nlohmann::json extra = nlohmann::json::object();
};

// Parses the info text. `name` (the key or file) starts every message:
// InvalidArgument for text that is not a JSON object, a missing or mistyped
// field ("scales[1].size: ..."), a non-positive size or chunk size, more than
// one chunk size with sharding, a scale key that is empty, absolute or has a
// "." or ".." segment, a compressed_segmentation scale of a type other than
// uint32/uint64 or with more than one channel... ; Unsupported for another
// @type, data type or encoding (jpeg, png, compresso), or a grid whose
// Morton codes need more than 64 bits with sharding.
Result<VolumeInfo> ParseVolumeInfo(std::string_view text, std::string_view name);

// The info as JSON (the modelled members, then `extra`).
nlohmann::json VolumeInfoToJson(const VolumeInfo& info);

// "image" / "segmentation", "raw" / "compressed_segmentation".
std::string_view VolumeTypeName(VolumeType type);
std::string_view ChunkEncodingName(ChunkEncoding encoding);

}  // namespace chunkwise::formats::precomputed

#endif  // CHUNKWISE_FORMATS_PRECOMPUTED_INFO_H_
