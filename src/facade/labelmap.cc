#include "chunkwise/facade/labelmap.h"

#include <utility>

#include "facade/labelmap_access.h"

namespace chunkwise {

namespace dvid = formats::dvid;

Labelmap::Labelmap() = default;
Labelmap::~Labelmap() = default;
Labelmap::Labelmap(const Labelmap&) = default;
Labelmap& Labelmap::operator=(const Labelmap&) = default;
Labelmap::Labelmap(Labelmap&&) noexcept = default;
Labelmap& Labelmap::operator=(Labelmap&&) noexcept = default;

int Labelmap::num_scales() const { return held_->num_scales(); }

std::vector<LabelmapVersion> Labelmap::versions() const {
  const dvid::VersionDag dag = held_->versions();
  std::vector<LabelmapVersion> versions;
  versions.reserve(dag.nodes().size());
  for (const dvid::VersionNode& node : dag.nodes()) {
    versions.push_back({node.id, node.parent, node.committed, node.note});
  }
  return versions;
}

std::uint32_t Labelmap::newest_version() const { return held_->versions().newest(); }

std::uint32_t Labelmap::newest_open_version() const { return held_->versions().newest_open(); }

Result<std::uint32_t> Labelmap::Branch(std::uint32_t parent, std::string note) {
  return held_->Branch(parent, std::move(note));
}

Status Labelmap::Commit(std::uint32_t version, std::string note) {
  return held_->Commit(version, std::move(note));
}

Result<std::optional<Bytes>> Labelmap::GetBlock(std::uint32_t version, int scale,
                                                const LabelBlockCoord& coord) const {
  return held_->GetBlock(version, scale, ToFormat(coord));
}

Result<std::optional<Bytes>> Labelmap::GetStoredValue(std::uint32_t version, int scale,
                                                      const LabelBlockCoord& coord) const {
  return held_->GetStoredValue(version, scale, ToFormat(coord));
}

Result<std::optional<VoxelBox>> Labelmap::StoredExtent(std::uint32_t version, int scale) const {
  CHUNKWISE_ASSIGN_OR_RETURN(const std::optional<dvid::VoxelBox> extent,
                             held_->StoredExtent(version, scale));
  if (!extent.has_value()) return std::optional<VoxelBox>();
  return std::optional<VoxelBox>(FromFormat(*extent));
}

Status Labelmap::Merge(std::uint32_t version, std::uint64_t label,
                       std::span<const std::uint64_t> supervoxels) {
  return held_->Merge(version, label, supervoxels);
}

Status Labelmap::Split(std::uint32_t version, std::span<const std::uint64_t> supervoxels) {
  return held_->Split(version, supervoxels);
}

Result<std::unordered_map<std::uint64_t, std::uint64_t>> Labelmap::MappingAt(
    std::uint32_t version) const {
  return held_->MappingAt(version);
}

Result<LabelmapStats> Labelmap::Stats() const {
  CHUNKWISE_ASSIGN_OR_RETURN(dvid::LabelmapStats stats, held_->Stats());
  LabelmapStats result;
  result.mapping_entries = stats.mapping_entries;
  for (dvid::ScaleStats& scale : stats.scales) {
    result.scales.push_back(
        {scale.data_entries, scale.tombstones, scale.value_bytes, std::move(scale.visible_blocks)});
  }
  return result;
}

}  // namespace chunkwise
