// Labelmap: metadata, versions and single-block reads and writes.
#include "formats/dvid/labelmap.h"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "core/json.h"
#include "formats/dvid/value_envelope.h"
#include "formats/dvid/visible_scan.h"

namespace chunkwise::formats::dvid {
namespace {

constexpr std::string_view kFormatName = "chunkwise-dvid-labelmap";
constexpr int kFormatVersion = 1;
constexpr std::uint32_t kDefaultInstance = 1;

Status CheckScale(int scale) {
  if (scale < 0 || scale >= kMaxScales) {
    return Status::InvalidArgument("scale " + std::to_string(scale) + " outside 0-" +
                                   std::to_string(kMaxScales - 1));
  }
  return Status::Ok();
}

std::string BlockName(const store::RocksDbStore& db, int scale, const BlockCoord& c,
                      std::uint32_t version) {
  return "rocksdb:" + db.path().string() + ": block (x,y,z) " + std::to_string(c.x) + "," +
         std::to_string(c.y) + "," + std::to_string(c.z) + " scale " + std::to_string(scale) +
         " as seen from version " + std::to_string(version);
}

struct LabelmapMetadata {
  std::uint32_t instance = 0;
  int num_scales = 0;
  VersionDag versions;
};

Result<LabelmapMetadata> ParseMetadata(ByteView stored, const std::string& name) {
  CHUNKWISE_ASSIGN_OR_RETURN(const nlohmann::json json,
                             core::ParseJson(AsChars(stored), name, StatusCode::kCorruption));
  if (!json.is_object()) {
    return Status::Corruption(name + ": metadata is not a JSON object");
  }
  LabelmapMetadata metadata;
  try {
    if (json.value("format", "") != kFormatName ||
        json.value("format_version", 0) != kFormatVersion) {
      return Status::Unsupported(name + ": not format " + std::string(kFormatName) + " version " +
                                 std::to_string(kFormatVersion));
    }
    metadata.instance = json.at("instance_id").get<std::uint32_t>();
    metadata.num_scales = json.at("num_scales").get<int>();
    if (json.at("block_size").get<std::vector<int>>() != std::vector<int>{64, 64, 64}) {
      return Status::Unsupported(name + ": only 64x64x64 blocks are supported");
    }
  } catch (const nlohmann::json::exception& error) {
    return Status::Corruption(name + ": bad metadata: " + error.what());
  }
  if (metadata.instance == 0 || metadata.num_scales < 1 || metadata.num_scales > kMaxScales) {
    return Status::Corruption(name + ": bad instance_id or num_scales");
  }
  CHUNKWISE_ASSIGN_OR_RETURN(metadata.versions, VersionDag::FromJson(json, name));
  return metadata;
}

}  // namespace

BlockBox BlocksCovering(const VoxelBox& box) {
  BlockBox blocks;
  std::array<std::int32_t, 3> begin{}, end{};
  for (int d = 0; d < 3; ++d) {
    begin[d] = static_cast<std::int32_t>(FloorDiv(box.offset[d], kBlockEdge));
    end[d] = static_cast<std::int32_t>(
        box.shape[d] <= 0 ? begin[d] : FloorDiv(box.offset[d] + box.shape[d] - 1, kBlockEdge) + 1);
  }
  blocks.begin = {begin[2], begin[1], begin[0]};
  blocks.end = {end[2], end[1], end[0]};
  return blocks;
}

Labelmap::Labelmap(std::shared_ptr<store::RocksDbStore> db, std::uint32_t instance,
                   VersionDag versions, int num_scales)
    : db_(std::move(db)),
      instance_(instance),
      versions_(std::move(versions)),
      num_scales_(num_scales) {}

Result<std::unique_ptr<Labelmap>> Labelmap::Open(std::shared_ptr<store::RocksDbStore> db,
                                                 bool create) {
  const std::string name = db->Describe(kLabelmapMetadataKey);
  CHUNKWISE_ASSIGN_OR_RETURN(std::optional<Bytes> stored, db->Get(kLabelmapMetadataKey));
  if (!stored.has_value()) {
    if (!create) return Status::NotFound(name + ": not a chunkwise DVID labelmap database");
    std::unique_ptr<Labelmap> labelmap(new Labelmap(db, kDefaultInstance, VersionDag(), 1));
    std::lock_guard lock(labelmap->mutex_);
    CHUNKWISE_RETURN_IF_ERROR(labelmap->SaveMetadata());
    return labelmap;
  }
  CHUNKWISE_ASSIGN_OR_RETURN(LabelmapMetadata metadata, ParseMetadata(*stored, name));
  return std::unique_ptr<Labelmap>(
      new Labelmap(db, metadata.instance, std::move(metadata.versions), metadata.num_scales));
}

Status Labelmap::SaveMetadata() const {
  nlohmann::json json = versions_.ToJson();
  json["format"] = kFormatName;
  json["format_version"] = kFormatVersion;
  json["instance_id"] = instance_;
  json["num_scales"] = num_scales_;
  json["block_size"] = {kBlockEdge, kBlockEdge, kBlockEdge};
  return db_->Set(kLabelmapMetadataKey, AsBytes(json.dump(2)));
}

VersionDag Labelmap::versions() const {
  std::lock_guard lock(mutex_);
  return versions_;
}

Result<std::uint32_t> Labelmap::Branch(std::uint32_t parent, std::string note) {
  std::lock_guard lock(mutex_);
  VersionDag next = versions_;
  CHUNKWISE_ASSIGN_OR_RETURN(const std::uint32_t id, next.Branch(parent, std::move(note)));
  std::swap(versions_, next);
  Status saved = SaveMetadata();
  if (!saved.ok()) std::swap(versions_, next);
  CHUNKWISE_RETURN_IF_ERROR(saved);
  return id;
}

Status Labelmap::Commit(std::uint32_t version, std::string note) {
  std::lock_guard lock(mutex_);
  VersionDag next = versions_;
  CHUNKWISE_RETURN_IF_ERROR(next.Commit(version, std::move(note)));
  std::swap(versions_, next);
  Status saved = SaveMetadata();
  if (!saved.ok()) std::swap(versions_, next);
  return saved;
}

int Labelmap::num_scales() const {
  std::lock_guard lock(mutex_);
  return num_scales_;
}

Status Labelmap::SetNumScales(int num_scales) {
  if (num_scales < 1 || num_scales > kMaxScales) {
    return Status::InvalidArgument("number of scales " + std::to_string(num_scales) +
                                   " outside 1-" + std::to_string(kMaxScales));
  }
  std::lock_guard lock(mutex_);
  if (num_scales <= num_scales_) return Status::Ok();
  const int previous = num_scales_;
  num_scales_ = num_scales;
  Status saved = SaveMetadata();
  if (!saved.ok()) num_scales_ = previous;
  return saved;
}

Result<std::unordered_map<std::uint32_t, std::uint32_t>> Labelmap::AncestorDistances(
    std::uint32_t version) const {
  std::lock_guard lock(mutex_);
  CHUNKWISE_ASSIGN_OR_RETURN(const std::vector<std::uint32_t> path, versions_.Ancestry(version));
  std::unordered_map<std::uint32_t, std::uint32_t> distances;
  for (std::uint32_t i = 0; i < path.size(); ++i) distances[path[i]] = i;
  return distances;
}

Status Labelmap::CheckWritable(std::uint32_t version, int scale) const {
  CHUNKWISE_RETURN_IF_ERROR(CheckScale(scale));
  std::lock_guard lock(mutex_);
  return versions_.CheckWritable(version);
}

Status Labelmap::PutBlock(std::uint32_t version, int scale, const BlockCoord& coord,
                          std::span<const std::uint64_t> voxels) {
  CHUNKWISE_ASSIGN_OR_RETURN(const Bytes block, EncodeLabelBlock(voxels, kDefaultBlockShape));
  CHUNKWISE_RETURN_IF_ERROR(CheckWritable(version, scale));
  CHUNKWISE_ASSIGN_OR_RETURN(Bytes value, EncodeGzipValue(block));
  return WriteBlockValue(version, scale, coord, std::move(value));
}

Status Labelmap::PutEncodedBlock(std::uint32_t version, int scale, const BlockCoord& coord,
                                 ByteView dvid_block) {
  CHUNKWISE_RETURN_IF_ERROR(
      ValidateLabelBlock(dvid_block, LabelBlockCheck::kDecodable, "DVID block to store"));
  CHUNKWISE_ASSIGN_OR_RETURN(const LabelBlockHeader header,
                             ReadLabelBlockHeader(dvid_block, "DVID block to store"));
  if (header.shape != kDefaultBlockShape) {
    return Status::InvalidArgument("DVID block to store is not 64x64x64");
  }
  CHUNKWISE_RETURN_IF_ERROR(CheckWritable(version, scale));
  CHUNKWISE_ASSIGN_OR_RETURN(Bytes value, EncodeGzipValue(dvid_block));
  return WriteBlockValue(version, scale, coord, std::move(value));
}

Status Labelmap::DeleteBlock(std::uint32_t version, int scale, const BlockCoord& coord) {
  CHUNKWISE_RETURN_IF_ERROR(CheckWritable(version, scale));
  return WriteBlockValue(version, scale, coord, std::nullopt);
}

Status Labelmap::WriteBlockValue(std::uint32_t version, int scale, const BlockCoord& coord,
                                 std::optional<Bytes> value) {
  const BlockKey data{instance_,     static_cast<std::uint8_t>(scale), coord, version, 0,
                      KeyType::kData};
  BlockKey tombstone = data;
  tombstone.type = KeyType::kTombstone;
  // A version holds a data entry or a tombstone for a block, never both; one
  // batch replaces the other so that readers never see the pair.
  std::vector<store::BinaryWrite> writes(2);
  writes[0] = {EncodeBlockKey(value.has_value() ? tombstone : data), {}, true};
  writes[1] = {EncodeBlockKey(value.has_value() ? data : tombstone), value.value_or(Bytes()),
               false};
  return db_->WriteBinary(writes);
}

Result<std::optional<Bytes>> Labelmap::GetStoredValue(std::uint32_t version, int scale,
                                                      const BlockCoord& coord) const {
  CHUNKWISE_RETURN_IF_ERROR(CheckScale(scale));
  CHUNKWISE_ASSIGN_OR_RETURN(const auto distances, AncestorDistances(version));
  const std::string position = BlockPositionKey(instance_, static_cast<std::uint8_t>(scale), coord);
  std::optional<Bytes> stored;
  CHUNKWISE_RETURN_IF_ERROR(detail::ScanVisible(*db_, position, PrefixSuccessor(position),
                                                {position.size(), kBlockKeySize}, distances,
                                                [&](std::string_view, ByteView value) -> Status {
                                                  stored.emplace(value.begin(), value.end());
                                                  return Status::Ok();
                                                }));
  return stored;
}

Result<std::optional<Bytes>> Labelmap::GetBlock(std::uint32_t version, int scale,
                                                const BlockCoord& coord) const {
  CHUNKWISE_ASSIGN_OR_RETURN(const std::optional<Bytes> stored,
                             GetStoredValue(version, scale, coord));
  if (!stored.has_value()) return std::optional<Bytes>();
  CHUNKWISE_ASSIGN_OR_RETURN(Bytes block, DecodeValue(*stored, kMaxStoredBlockBytes,
                                                      BlockName(*db_, scale, coord, version)));
  return std::optional<Bytes>(std::move(block));
}

Result<bool> Labelmap::ReadBlockVoxels(std::uint32_t version, int scale, const BlockCoord& coord,
                                       std::span<std::uint64_t> out) const {
  CHUNKWISE_ASSIGN_OR_RETURN(const std::optional<Bytes> block, GetBlock(version, scale, coord));
  if (!block.has_value()) {
    std::fill(out.begin(), out.end(), 0);
    return false;
  }
  CHUNKWISE_RETURN_IF_ERROR(DecodeLabelBlockInto(*block, kDefaultBlockShape, out,
                                                 BlockName(*db_, scale, coord, version)));
  return true;
}

}  // namespace chunkwise::formats::dvid
