// Labelmap: ZYX scans of visible blocks, dense region reads and statistics.
#include <algorithm>
#include <cstring>
#include <limits>

#include "chunkwise/core/thread_pool.h"
#include "formats/dvid/labelmap.h"
#include "formats/dvid/value_envelope.h"
#include "formats/dvid/visible_scan.h"

namespace chunkwise::formats::dvid {
namespace {

constexpr detail::VersionedKeyLayout kBlockKeyLayout{kBlockPositionSize, kBlockKeySize};

// Copies the part of a decoded block that lies in `box` into `out` (box-sized).
void CopyBlockIntoRegion(std::span<const std::uint64_t> block, const BlockCoord& coord,
                         const VoxelBox& box, std::span<std::uint64_t> out) {
  const std::array<std::int64_t, 3> origin{std::int64_t{coord.z} * kBlockEdge,
                                           std::int64_t{coord.y} * kBlockEdge,
                                           std::int64_t{coord.x} * kBlockEdge};
  std::array<std::int64_t, 3> lo{}, hi{};
  for (int d = 0; d < 3; ++d) {
    lo[d] = std::max(origin[d], box.offset[d]);
    hi[d] = std::min(origin[d] + kBlockEdge, box.offset[d] + box.shape[d]);
    if (lo[d] >= hi[d]) return;
  }
  const std::size_t run = static_cast<std::size_t>(hi[2] - lo[2]) * sizeof(std::uint64_t);
  for (std::int64_t z = lo[0]; z < hi[0]; ++z) {
    for (std::int64_t y = lo[1]; y < hi[1]; ++y) {
      const std::int64_t from =
          ((z - origin[0]) * kBlockEdge + (y - origin[1])) * kBlockEdge + (lo[2] - origin[2]);
      const std::int64_t to =
          ((z - box.offset[0]) * box.shape[1] + (y - box.offset[1])) * box.shape[2] +
          (lo[2] - box.offset[2]);
      std::memcpy(out.data() + to, block.data() + from, run);
    }
  }
}

Status CheckRegion(const VoxelBox& box) {
  std::int64_t product = 1;
  for (int d = 0; d < 3; ++d) {
    const std::int64_t extent = box.shape[d];
    if (extent < 0 || __builtin_mul_overflow(product, extent, &product) ||
        box.offset[d] < std::int64_t{INT32_MIN} * kBlockEdge ||
        box.offset[d] + extent > std::int64_t{INT32_MAX} * kBlockEdge) {
      return Status::InvalidArgument("region shape or offset out of range");
    }
  }
  if (product > (std::int64_t{1} << 34)) {
    return Status::InvalidArgument("region of " + std::to_string(product) +
                                   " voxels is too large to read at once (limit 2^34)");
  }
  return Status::Ok();
}

// Per stored block position: the versions that have an entry and its kind.
struct PositionEntries {
  std::vector<std::pair<std::uint32_t, bool>> versions;  // (version, tombstone)
};

// Adds one position's entries to the per-version visible counts.
void CountVisible(const PositionEntries& entries,
                  const std::vector<std::pair<std::uint32_t, detail::AncestorDistanceMap>>& dags,
                  ScaleStats& stats) {
  for (const auto& [version, distances] : dags) {
    std::uint32_t best = std::numeric_limits<std::uint32_t>::max();
    bool tombstone = true;
    for (const auto& [entry_version, entry_tombstone] : entries.versions) {
      const auto it = distances.find(entry_version);
      if (it != distances.end() && it->second < best) {
        best = it->second;
        tombstone = entry_tombstone;
      }
    }
    if (!tombstone) ++stats.visible_blocks[version];
  }
}

}  // namespace

Status Labelmap::ScanBlocks(std::uint32_t version, int scale, const BlockBox& box,
                            const BlockVisitor& visit) const {
  CHUNKWISE_ASSIGN_OR_RETURN(const auto distances, AncestorDistances(version));
  const auto s = static_cast<std::uint8_t>(scale);
  auto visit_key = [&](std::string_view key, ByteView value) -> Status {
    CHUNKWISE_ASSIGN_OR_RETURN(const BlockKey decoded, DecodeBlockKey(key));
    return visit(decoded.coord, value);
  };
  for (std::int32_t z = box.begin.z; z < box.end.z; ++z) {
    for (std::int32_t y = box.begin.y; y < box.end.y; ++y) {
      CHUNKWISE_RETURN_IF_ERROR(
          detail::ScanVisible(*db_, BlockPositionKey(instance_, s, {box.begin.x, y, z}),
                              BlockPositionKey(instance_, s, {box.end.x, y, z}), kBlockKeyLayout,
                              distances, visit_key));
    }
  }
  return Status::Ok();
}

Status Labelmap::ScanBlockRanges(std::uint32_t version, int scale,
                                 std::span<const BlockKeyRange> ranges,
                                 const BlockVisitor& visit) const {
  CHUNKWISE_ASSIGN_OR_RETURN(const auto distances, AncestorDistances(version));
  const auto s = static_cast<std::uint8_t>(scale);
  const std::string scale_end = PrefixSuccessor(ScaleKeyPrefix(instance_, s));
  auto visit_key = [&](std::string_view key, ByteView value) -> Status {
    CHUNKWISE_ASSIGN_OR_RETURN(const BlockKey decoded, DecodeBlockKey(key));
    return visit(decoded.coord, value);
  };
  for (const BlockKeyRange& range : ranges) {
    CHUNKWISE_RETURN_IF_ERROR(detail::ScanVisible(
        *db_, BlockPositionKey(instance_, s, range.from),
        range.to.has_value() ? BlockPositionKey(instance_, s, *range.to) : scale_end,
        kBlockKeyLayout, distances, visit_key));
  }
  return Status::Ok();
}

Status Labelmap::ScanAllBlocks(std::uint32_t version, int scale, const BlockVisitor& visit) const {
  CHUNKWISE_ASSIGN_OR_RETURN(const auto distances, AncestorDistances(version));
  const std::string prefix = ScaleKeyPrefix(instance_, static_cast<std::uint8_t>(scale));
  return detail::ScanVisible(*db_, prefix, PrefixSuccessor(prefix), kBlockKeyLayout, distances,
                             [&](std::string_view key, ByteView value) -> Status {
                               CHUNKWISE_ASSIGN_OR_RETURN(const BlockKey decoded,
                                                          DecodeBlockKey(key));
                               return visit(decoded.coord, value);
                             });
}

Result<std::optional<VoxelBox>> Labelmap::StoredExtent(std::uint32_t version, int scale) const {
  std::optional<BlockBox> blocks;
  CHUNKWISE_RETURN_IF_ERROR(
      ScanAllBlocks(version, scale, [&](const BlockCoord& coord, ByteView) -> Status {
        const BlockCoord next{coord.x + 1, coord.y + 1, coord.z + 1};
        if (!blocks) {
          blocks = BlockBox{coord, next};
          return Status::Ok();
        }
        blocks->begin = {std::min(blocks->begin.x, coord.x), std::min(blocks->begin.y, coord.y),
                         std::min(blocks->begin.z, coord.z)};
        blocks->end = {std::max(blocks->end.x, next.x), std::max(blocks->end.y, next.y),
                       std::max(blocks->end.z, next.z)};
        return Status::Ok();
      }));
  if (!blocks) return std::optional<VoxelBox>();
  VoxelBox box;
  box.offset = {std::int64_t{blocks->begin.z} * kBlockEdge,
                std::int64_t{blocks->begin.y} * kBlockEdge,
                std::int64_t{blocks->begin.x} * kBlockEdge};
  box.shape = {(std::int64_t{blocks->end.z} - blocks->begin.z) * kBlockEdge,
               (std::int64_t{blocks->end.y} - blocks->begin.y) * kBlockEdge,
               (std::int64_t{blocks->end.x} - blocks->begin.x) * kBlockEdge};
  return std::optional<VoxelBox>(box);
}

Result<std::vector<std::uint64_t>> Labelmap::ReadRegion(std::uint32_t version, int scale,
                                                        const VoxelBox& box, core::ThreadPool* pool,
                                                        const RegionReadHooks& hooks) const {
  CHUNKWISE_RETURN_IF_ERROR(CheckRegion(box));
  std::vector<std::uint64_t> out(static_cast<std::size_t>(box.num_voxels()), 0);
  const BlockBox blocks = BlocksCovering(box);
  if (blocks.empty()) return out;
  const std::int64_t rows_y = blocks.end.y - blocks.begin.y;
  const std::int64_t rows = rows_y * (blocks.end.z - blocks.begin.z);
  // The voxels of [begin, begin + 64) along `axis` (z 0, y 1) inside the box.
  const auto overlap = [&](std::int64_t block, int axis) -> std::uint64_t {
    const std::int64_t begin = std::max(block * kBlockEdge, box.offset[axis]);
    const std::int64_t end = std::min((block + 1) * kBlockEdge, box.offset[axis] + box.shape[axis]);
    return static_cast<std::uint64_t>(std::max<std::int64_t>(end - begin, 0));
  };
  auto read_row = [&](std::size_t row) -> Status {
    if (hooks.cancellation != nullptr) {
      CHUNKWISE_RETURN_IF_ERROR(hooks.cancellation->Check("reading " + db_->path().string()));
    }
    BlockBox one = blocks;
    one.begin.z = blocks.begin.z + static_cast<std::int32_t>(row / rows_y);
    one.begin.y = blocks.begin.y + static_cast<std::int32_t>(row % rows_y);
    one.end.z = one.begin.z + 1;
    one.end.y = one.begin.y + 1;
    if (hooks.progress != nullptr) {
      hooks.progress->Add(overlap(one.begin.z, 0) * overlap(one.begin.y, 1) *
                          static_cast<std::uint64_t>(box.shape[2]) * sizeof(std::uint64_t));
    }
    std::vector<std::uint64_t> voxels(kBlockVoxels);
    return ScanBlocks(version, scale, one, [&](const BlockCoord& coord, ByteView value) -> Status {
      const std::string name = db_->path().string() + ": block (x,y,z) " + std::to_string(coord.x) +
                               "," + std::to_string(coord.y) + "," + std::to_string(coord.z) +
                               " scale " + std::to_string(scale);
      CHUNKWISE_ASSIGN_OR_RETURN(const Bytes block, DecodeValue(value, kMaxStoredBlockBytes, name));
      CHUNKWISE_RETURN_IF_ERROR(DecodeLabelBlockInto(block, kDefaultBlockShape, voxels, name));
      CopyBlockIntoRegion(voxels, coord, box, out);
      return Status::Ok();
    });
  };
  if (pool != nullptr) {
    CHUNKWISE_RETURN_IF_ERROR(pool->ParallelFor(static_cast<std::size_t>(rows), read_row));
  } else {
    for (std::int64_t row = 0; row < rows; ++row) {
      CHUNKWISE_RETURN_IF_ERROR(read_row(static_cast<std::size_t>(row)));
    }
  }
  return out;
}

Result<LabelmapStats> Labelmap::Stats() const {
  LabelmapStats stats;
  std::vector<std::pair<std::uint32_t, detail::AncestorDistanceMap>> dags;
  const VersionDag dag = versions();
  for (const VersionNode& node : dag.nodes()) {
    CHUNKWISE_ASSIGN_OR_RETURN(auto distances, AncestorDistances(node.id));
    dags.emplace_back(node.id, std::move(distances));
  }
  const std::string prefix = ScaleKeyPrefix(instance_, 0).substr(0, 7);
  std::string position;
  int position_scale = -1;
  PositionEntries entries;
  auto flush = [&] {
    if (position_scale >= 0) CountVisible(entries, dags, stats.scales[position_scale]);
    entries.versions.clear();
  };
  CHUNKWISE_RETURN_IF_ERROR(db_->ScanBinary(
      prefix, PrefixSuccessor(prefix), [&](const store::KeyValueView& entry) -> Result<bool> {
        CHUNKWISE_ASSIGN_OR_RETURN(const BlockKey key, DecodeBlockKey(entry.key));
        if (entry.key.substr(0, kBlockPositionSize) != position) {
          flush();
          position.assign(entry.key.substr(0, kBlockPositionSize));
          position_scale = key.scale;
          if (stats.scales.size() <= key.scale) stats.scales.resize(key.scale + 1);
        }
        const bool tombstone = key.type == KeyType::kTombstone;
        ScaleStats& scale = stats.scales[key.scale];
        ++(tombstone ? scale.tombstones : scale.data_entries);
        if (!tombstone) scale.value_bytes += entry.value.size();
        entries.versions.emplace_back(key.version, tombstone);
        return true;
      }));
  flush();
  const std::string mapping = MappingKeyPrefix(instance_);
  CHUNKWISE_RETURN_IF_ERROR(db_->ScanBinary(mapping, PrefixSuccessor(mapping),
                                            [&](const store::KeyValueView&) -> Result<bool> {
                                              ++stats.mapping_entries;
                                              return true;
                                            }));
  return stats;
}

}  // namespace chunkwise::formats::dvid
