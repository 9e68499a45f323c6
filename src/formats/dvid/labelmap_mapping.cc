// Labelmap: the versioned supervoxel → label mapping.
//
// One key per (supervoxel, version) under chunkwise's mapping key class
// (block_key.h), the value the label as u64 little-endian. The entry from
// the nearest ancestor of the version read wins, as for blocks.
#include "formats/dvid/labelmap.h"
#include "formats/dvid/visible_scan.h"

namespace chunkwise::formats::dvid {
namespace {

constexpr detail::VersionedKeyLayout kMappingKeyLayout{kMappingPositionSize, kMappingKeySize};
// Pairs per RocksDB write batch: large enough to amortize, small enough to bound memory.
constexpr std::size_t kPairsPerBatch = 65536;

Result<std::uint64_t> MappingValue(const store::RocksDbStore& db, std::string_view key,
                                   ByteView value) {
  if (value.size() != 8) {
    return Status::Corruption("rocksdb:" + db.path().string() + ": mapping entry " + HexKey(key) +
                              " holds " + std::to_string(value.size()) + " bytes, not 8");
  }
  return LoadLittleEndian<std::uint64_t>(value.data());
}

}  // namespace

void ApplyMapping(const std::unordered_map<std::uint64_t, std::uint64_t>& mapping,
                  std::span<std::uint64_t> labels) {
  if (mapping.empty()) return;
  std::uint64_t last_in = 0, last_out = 0;
  bool have_last = false;
  for (std::uint64_t& label : labels) {
    // Labels come in runs; remember the last lookup.
    if (!have_last || label != last_in) {
      const auto it = mapping.find(label);
      last_in = label;
      last_out = it == mapping.end() ? label : it->second;
      have_last = true;
    }
    label = last_out;
  }
}

Status Labelmap::SetMappings(std::uint32_t version, std::span<const LabelPair> pairs) {
  CHUNKWISE_RETURN_IF_ERROR(CheckWritable(version, 0));
  std::vector<store::BinaryWrite> batch;
  for (std::size_t i = 0; i < pairs.size(); ++i) {
    Bytes value;
    AppendLittleEndian(pairs[i].label, value);
    batch.push_back({EncodeMappingKey({instance_, pairs[i].supervoxel, version, KeyType::kData}),
                     std::move(value), false});
    if (batch.size() == kPairsPerBatch || i + 1 == pairs.size()) {
      CHUNKWISE_RETURN_IF_ERROR(db_->WriteBinary(batch));
      batch.clear();
    }
  }
  return Status::Ok();
}

Status Labelmap::Merge(std::uint32_t version, std::uint64_t label,
                       std::span<const std::uint64_t> supervoxels) {
  std::vector<LabelPair> pairs;
  pairs.reserve(supervoxels.size());
  for (const std::uint64_t supervoxel : supervoxels) pairs.push_back({supervoxel, label});
  return SetMappings(version, pairs);
}

Status Labelmap::Split(std::uint32_t version, std::span<const std::uint64_t> supervoxels) {
  return Merge(version, 0, supervoxels);
}

Result<std::optional<std::uint64_t>> Labelmap::MappedLabel(std::uint32_t version,
                                                           std::uint64_t supervoxel) const {
  CHUNKWISE_ASSIGN_OR_RETURN(const auto distances, AncestorDistances(version));
  const std::string position =
      EncodeMappingKey({instance_, supervoxel, 0, KeyType::kData}).substr(0, kMappingPositionSize);
  std::optional<std::uint64_t> label;
  CHUNKWISE_RETURN_IF_ERROR(
      detail::ScanVisible(*db_, position, PrefixSuccessor(position), kMappingKeyLayout, distances,
                          [&](std::string_view key, ByteView value) -> Status {
                            CHUNKWISE_ASSIGN_OR_RETURN(label, MappingValue(*db_, key, value));
                            return Status::Ok();
                          }));
  return label;
}

Result<std::unordered_map<std::uint64_t, std::uint64_t>> Labelmap::MappingAt(
    std::uint32_t version) const {
  CHUNKWISE_ASSIGN_OR_RETURN(const auto distances, AncestorDistances(version));
  const std::string prefix = MappingKeyPrefix(instance_);
  std::unordered_map<std::uint64_t, std::uint64_t> mapping;
  CHUNKWISE_RETURN_IF_ERROR(detail::ScanVisible(
      *db_, prefix, PrefixSuccessor(prefix), kMappingKeyLayout, distances,
      [&](std::string_view key, ByteView value) -> Status {
        CHUNKWISE_ASSIGN_OR_RETURN(const MappingKey decoded, DecodeMappingKey(key));
        CHUNKWISE_ASSIGN_OR_RETURN(mapping[decoded.supervoxel], MappingValue(*db_, key, value));
        return Status::Ok();
      }));
  return mapping;
}

}  // namespace chunkwise::formats::dvid
