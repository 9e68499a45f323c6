// The spec that export-shards takes: a neuroglancer multiscale `info` with
// `sharding` per scale, and the shard each chunk belongs to.
//
// Spec: docs/formats/dvid.md, "DVID's export format", and
// docs/formats/precomputed.md, "Sharding". Each scale gives `size` (voxels, x y
// z), `chunk_sizes` (must be [[64,64,64]]: DVID blocks) and `sharding`
// {"@type": "neuroglancer_uint64_sharded_v1", preshift_bits, hash: identity |
// murmurhash3_x86_128, minishard_bits, shard_bits, ...}. A chunk's shard is
// ((hash(morton >> preshift_bits)) >> minishard_bits) & (2^shard_bits - 1) over
// its compressed Morton code. With the identity hash and total Morton bits <=
// preshift + minishard + shard bits a shard is an axis-aligned box of chunks,
// and its files are named by its voxel origin "<ox>_<oy>_<oz>" (DVID's names,
// per-dimension extent); otherwise by the shard number in lowercase hex,
// zero-padded to ceil(shard_bits / 4) digits. Values are immutable and
// thread-safe.
#ifndef CHUNKWISE_PIPELINES_EXPORT_SPEC_H_
#define CHUNKWISE_PIPELINES_EXPORT_SPEC_H_

#include <array>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "chunkwise/core/morton.h"
#include "chunkwise/core/result.h"

namespace chunkwise::pipelines {

inline constexpr std::int64_t kExportChunkEdge = 64;

enum class ShardHash { kIdentity, kMurmurHash3X86_128 };

struct ShardingSpec {
  int preshift_bits = 0;
  int minishard_bits = 0;
  int shard_bits = 0;
  ShardHash hash = ShardHash::kIdentity;
};

// One scale of the spec, with the grid math done once.
struct ExportScaleSpec {
  std::string key;
  core::GridCoord3 size{};  // Voxels, (x, y, z).
  ShardingSpec sharding;
  core::MortonBits bits;            // Chunk grid (x, y, z) and its Morton bits.
  bool shards_are_boxes = false;    // Identity hash and the bit bound hold.
  core::GridCoord3 shard_chunks{};  // Chunks per shard and axis, when boxes.

  // The shard number of chunk `xyz`. REQUIRES: 0 <= xyz[d] < bits.grid[d].
  std::uint64_t ShardOf(const core::GridCoord3& xyz) const;
  // The file stem ("2048_0_0" or "0a3f") of the shard holding chunk `xyz`.
  // REQUIRES: as ShardOf.
  std::string ShardStem(const core::GridCoord3& xyz) const;
  // The first chunk z past the shard of chunk `xyz` (boxes), else the maximum:
  // a ZYX scan that has reached this z has seen every chunk of the shard.
  std::int64_t ShardZEnd(const core::GridCoord3& xyz) const;
  // True when `xyz` lies in the chunk grid.
  bool InGrid(const core::GridCoord3& xyz) const;
};

struct ExportSpec {
  std::vector<ExportScaleSpec> scales;
  std::string info_json;  // The spec as given (parsed and re-serialized).
};

// Parses the spec text. `name` (a file name) starts every message:
// InvalidArgument for text that is not a JSON object, a missing or mistyped
// field ("scales[1].size: ..."), chunk sizes other than [[64,64,64]], bit
// counts outside 0..64 or summing past 64, a data_type other than uint64, a
// nonzero voxel_offset; Unsupported for another sharding @type or hash.
Result<ExportSpec> ParseExportSpec(std::string_view text, std::string_view name);

// The spec export-shards uses when none is given: a volume of `size` voxels
// (x, y, z) at scale 0 and `num_scales` scales, each half the last (sizes
// rounded up), `resolution` nanometres per voxel at scale 0 (doubling per
// scale), 64³ chunks. Every scale is sharded as FlyEM's exports are: the
// identity hash, 9 preshift bits (8³ chunks per minishard), 6 minishard bits
// (64 minishards per shard), and the rest of the scale's Morton bits as shard
// bits, so that each shard is a box of at most 32³ chunks (2048³ voxels),
// fewer bits going first to the shard and then to the minishard where a
// scale's grid is small. InvalidArgument for a size below 1 or past 2^27 (the chunk ids' 64 bits),
// or num_scales outside 1..32.
Result<ExportSpec> ExportSpecForVolume(const core::GridCoord3& size, int num_scales,
                                       const std::array<double, 3>& resolution);

// `info_json` with its scales cut to the first `num_scales`, pretty-printed:
// what export-shards writes to DEST/info. InvalidArgument if it does not parse.
Result<std::string> InfoForScales(const ExportSpec& spec, int num_scales);

}  // namespace chunkwise::pipelines

#endif  // CHUNKWISE_PIPELINES_EXPORT_SPEC_H_
