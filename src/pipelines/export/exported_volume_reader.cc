#include "pipelines/exported_volume_reader.h"

#include <algorithm>
#include <cstring>
#include <system_error>

#include "chunkwise/core/thread_pool.h"
#include "codec/zstd_codec.h"
#include "formats/dvid/label_block.h"
#include "pipelines/export/export_destination.h"

namespace chunkwise::pipelines {
namespace {

namespace dvid = formats::dvid;
constexpr std::int64_t kEdge = kExportChunkEdge;

// Copies the part of block `xyz` (64³, z y x) inside `box` into `out` (box-sized).
void CopyBlockIntoBox(std::span<const std::uint64_t> block, const core::GridCoord3& xyz,
                      const dvid::VoxelBox& box, std::span<std::uint64_t> out) {
  const std::array<std::int64_t, 3> origin{xyz[2] * kEdge, xyz[1] * kEdge, xyz[0] * kEdge};
  std::array<std::int64_t, 3> lo{}, hi{};
  for (int d = 0; d < 3; ++d) {
    lo[d] = std::max(origin[d], box.offset[d]);
    hi[d] = std::min(origin[d] + kEdge, box.offset[d] + box.shape[d]);
    if (lo[d] >= hi[d]) return;
  }
  const std::size_t run = static_cast<std::size_t>(hi[2] - lo[2]) * sizeof(std::uint64_t);
  for (std::int64_t z = lo[0]; z < hi[0]; ++z) {
    for (std::int64_t y = lo[1]; y < hi[1]; ++y) {
      const std::int64_t from =
          ((z - origin[0]) * kEdge + (y - origin[1])) * kEdge + (lo[2] - origin[2]);
      const std::int64_t to =
          ((z - box.offset[0]) * box.shape[1] + (y - box.offset[1])) * box.shape[2] +
          (lo[2] - box.offset[2]);
      std::memcpy(out.data() + to, block.data() + from, run);
    }
  }
}

Status CheckBox(const ExportScaleSpec& spec, int scale, const dvid::VoxelBox& box) {
  for (int d = 0; d < 3; ++d) {
    const core::Index size = spec.size[2 - d];  // The spec is x y z; the box z y x.
    if (box.offset[d] < 0 || box.shape[d] < 0 || box.offset[d] + box.shape[d] > size) {
      return Status::InvalidArgument(
          "region " + std::to_string(box.offset[0]) + ":" +
          std::to_string(box.offset[0] + box.shape[0]) + "," + std::to_string(box.offset[1]) + ":" +
          std::to_string(box.offset[1] + box.shape[1]) + "," + std::to_string(box.offset[2]) + ":" +
          std::to_string(box.offset[2] + box.shape[2]) + " (z,y,x) lies outside scale " +
          std::to_string(scale) + " (size z,y,x " + std::to_string(spec.size[2]) + "," +
          std::to_string(spec.size[1]) + "," + std::to_string(spec.size[0]) + ")");
    }
  }
  return Status::Ok();
}

std::string ChunkText(const std::array<std::int32_t, 3>& chunk) {
  return "(" + std::to_string(chunk[0]) + ", " + std::to_string(chunk[1]) + ", " +
         std::to_string(chunk[2]) + ")";
}

// A row this reader never looks up in this shard (a chunk outside the volume's
// grid, or one whose shard is another) must at least carry its own record: a
// row renamed away from its chunk would leave that chunk reading as zeros.
// Rows that do carry their own record are DVID's (it exports x one past the
// grid and y, z unclipped, docs/formats/dvid.md) and are left unread, as
// before. Rows that are looked up are held to their record by Get.
Status CheckRowsNotLookedUp(const ExportScaleSpec& spec, const dvid::ArrowShardReader& shard,
                            const std::string& stem, const std::string& csv_name) {
  for (const std::array<std::int32_t, 3>& chunk : shard.ListChunks()) {
    const core::GridCoord3 xyz{chunk[0], chunk[1], chunk[2]};
    std::string where;
    if (!spec.InGrid(xyz)) {
      where = "lies outside the volume's grid of " + std::to_string(spec.bits.grid[0]) + " x " +
              std::to_string(spec.bits.grid[1]) + " x " + std::to_string(spec.bits.grid[2]) +
              " chunks";
    } else if (const std::string home = spec.ShardStem(xyz); home != stem) {
      where = "belongs to shard " + home + ", not " + stem;
    } else {
      continue;
    }
    Result<std::optional<dvid::ExportBlock>> record = shard.Get(chunk[0], chunk[1], chunk[2]);
    if (!record.ok()) {
      if (record.status().code() != StatusCode::kCorruption) return record.status();
      return Status::Corruption(csv_name + ": the row of chunk " + ChunkText(chunk) + ", which " +
                                where +
                                ", is not that chunk's: " + std::string(record.status().message()));
    }
  }
  return Status::Ok();
}

}  // namespace

Status DecodeExportBlock(const dvid::ExportBlock& record, bool supervoxels,
                         std::span<std::uint64_t> out, std::string_view name) {
  const std::string where(name);
  if (record.labels.size() != record.supervoxels.size()) {
    return Status::Corruption(where + ": labels and supervoxels differ in length");
  }
  if (record.uncompressed_size > dvid::kMaxStoredBlockBytes) {
    return Status::Corruption(where + ": uncompressed_size " +
                              std::to_string(record.uncompressed_size) +
                              " is larger than any 64^3 block");
  }
  CHUNKWISE_ASSIGN_OR_RETURN(const auto zstd, codec::ZstdCodec::Create({}));
  Result<Bytes> block = zstd->Decode(record.dvid_compressed_block, record.uncompressed_size);
  if (!block.ok())
    return Status::Corruption(where +
                              ": dvid_compressed_block: " + std::string(block.status().message()));
  if (block->size() != record.uncompressed_size) {
    return Status::Corruption(where + ": dvid_compressed_block holds " +
                              std::to_string(block->size()) + " bytes, uncompressed_size says " +
                              std::to_string(record.uncompressed_size));
  }
  CHUNKWISE_ASSIGN_OR_RETURN(const dvid::LabelBlockHeader header,
                             dvid::ReadLabelBlockHeader(*block, where));
  if (header.labels != record.supervoxels) {
    return Status::Corruption(where + ": the block's labels differ from the record's supervoxels");
  }
  if (!supervoxels) {
    // The palette sits at offset 16; the mapped labels are parallel to it.
    for (std::size_t i = 0; i < record.labels.size(); ++i) {
      StoreLittleEndian(record.labels[i], block->data() + dvid::kLabelBlockHeaderSize + 8 * i);
    }
  }
  return dvid::DecodeLabelBlockInto(*block, dvid::kDefaultBlockShape, out, where);
}

Result<std::unique_ptr<ExportedVolumeReader>> ExportedVolumeReader::Open(
    std::shared_ptr<const store::Store> store, std::string prefix) {
  const std::string info_key = prefix + detail::kExportInfoName;
  CHUNKWISE_ASSIGN_OR_RETURN(const std::optional<Bytes> info, store->Get(info_key));
  if (!info.has_value()) {
    return Status::NotFound(store->Describe(info_key) + " does not exist: not an export");
  }
  CHUNKWISE_ASSIGN_OR_RETURN(ExportSpec spec,
                             ParseExportSpec(AsChars(*info), store->Describe(info_key)));
  return std::unique_ptr<ExportedVolumeReader>(
      new ExportedVolumeReader(std::move(store), std::move(prefix), std::move(spec)));
}

Result<const dvid::ArrowShardReader*> ExportedVolumeReader::Shard(
    int scale, const core::GridCoord3& xyz) const {
  std::string stem = spec_.scales[scale].ShardStem(xyz);
  std::lock_guard lock(mutex_);
  auto key = std::make_pair(scale, stem);
  if (auto it = shards_.find(key); it != shards_.end()) return it->second.get();
  const std::string stem_key = prefix_ + detail::ExportScalePrefix(scale) + stem;
  CHUNKWISE_ASSIGN_OR_RETURN(const bool has_arrow, store_->Exists(stem_key + ".arrow"));
  bool has_csv = false;
  if (!has_arrow) {
    CHUNKWISE_ASSIGN_OR_RETURN(has_csv, store_->Exists(stem_key + ".csv"));
  }
  std::unique_ptr<dvid::ArrowShardReader> reader;
  if (has_arrow || has_csv) {
    // One of the pair missing is an error the shard reader reports.
    CHUNKWISE_ASSIGN_OR_RETURN(dvid::ArrowShardReader opened,
                               dvid::ArrowShardReader::Open(store_, stem_key + ".arrow"));
    CHUNKWISE_RETURN_IF_ERROR(CheckRowsNotLookedUp(spec_.scales[scale], opened, stem,
                                                   store_->Describe(stem_key + ".csv")));
    reader = std::make_unique<dvid::ArrowShardReader>(std::move(opened));
  }
  const dvid::ArrowShardReader* out = reader.get();
  shards_.emplace(std::move(key), std::move(reader));
  return out;
}

Result<std::optional<dvid::ExportBlock>> ExportedVolumeReader::ReadRecord(
    int scale, const core::GridCoord3& xyz) const {
  if (scale < 0 || scale >= num_scales()) {
    return Status::InvalidArgument("scale " + std::to_string(scale) + " is not in the export (0.." +
                                   std::to_string(num_scales() - 1) + ")");
  }
  if (!spec_.scales[scale].InGrid(xyz)) return std::optional<dvid::ExportBlock>();
  CHUNKWISE_ASSIGN_OR_RETURN(const dvid::ArrowShardReader* shard, Shard(scale, xyz));
  if (shard == nullptr) return std::optional<dvid::ExportBlock>();
  return shard->Get(static_cast<std::int32_t>(xyz[0]), static_cast<std::int32_t>(xyz[1]),
                    static_cast<std::int32_t>(xyz[2]));
}

Result<std::vector<std::uint64_t>> ExportedVolumeReader::Read(
    int scale, const dvid::VoxelBox& box, bool supervoxels, core::ThreadPool* pool,
    const core::Cancellation* cancellation, core::ProgressReporter* progress) const {
  if (scale < 0 || scale >= num_scales()) {
    return Status::InvalidArgument("scale " + std::to_string(scale) + " is not in the export (0.." +
                                   std::to_string(num_scales() - 1) + ")");
  }
  CHUNKWISE_RETURN_IF_ERROR(CheckBox(spec_.scales[scale], scale, box));
  std::vector<std::uint64_t> out(static_cast<std::size_t>(box.num_voxels()), 0);
  const dvid::BlockBox blocks = dvid::BlocksCovering(box);
  if (blocks.empty()) return out;
  const std::int64_t nx = blocks.end.x - blocks.begin.x, ny = blocks.end.y - blocks.begin.y;
  const std::int64_t count = nx * ny * (blocks.end.z - blocks.begin.z);
  auto read_block = [&](std::size_t i) -> Status {
    const auto n = static_cast<std::int64_t>(i);
    const core::GridCoord3 xyz{blocks.begin.x + n % nx, blocks.begin.y + n / nx % ny,
                               blocks.begin.z + n / (nx * ny)};
    if (cancellation != nullptr && cancellation->cancelled()) {
      return cancellation->Check("reading scale " + std::to_string(scale) + " of the export");
    }
    CHUNKWISE_ASSIGN_OR_RETURN(const std::optional<dvid::ExportBlock> record,
                               ReadRecord(scale, xyz));
    if (!record.has_value()) {
      if (progress != nullptr) progress->Add(1);
      return Status::Ok();
    }
    std::vector<std::uint64_t> voxels(static_cast<std::size_t>(kEdge * kEdge * kEdge));
    const std::string name = store_->Describe(prefix_ + detail::ExportScalePrefix(scale) +
                                              spec_.scales[scale].ShardStem(xyz) + ".arrow") +
                             ": chunk x,y,z " + std::to_string(xyz[0]) + "," +
                             std::to_string(xyz[1]) + "," + std::to_string(xyz[2]);
    CHUNKWISE_RETURN_IF_ERROR(DecodeExportBlock(*record, supervoxels, voxels, name));
    CopyBlockIntoBox(voxels, xyz, box, out);
    if (progress != nullptr) progress->Add(1);
    return Status::Ok();
  };
  if (pool != nullptr) {
    CHUNKWISE_RETURN_IF_ERROR(pool->ParallelFor(static_cast<std::size_t>(count), read_block));
  } else {
    for (std::int64_t i = 0; i < count; ++i)
      CHUNKWISE_RETURN_IF_ERROR(read_block(static_cast<std::size_t>(i)));
  }
  return out;
}

}  // namespace chunkwise::pipelines
