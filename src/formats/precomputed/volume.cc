#include "formats/precomputed/volume.h"

#include <algorithm>
#include <cstring>

#include "codec/compressed_segmentation.h"
#include "codec/gzip_codec.h"
#include "core/ravel.h"

namespace chunkwise::formats::precomputed {
namespace {

constexpr std::string_view kInfoKey = "info";

std::string FormatCell(const GridCoord3& cell) {
  std::string text(1, '(');  // Appends: GCC 12 warns falsely on "(" + std::string.
  text += std::to_string(cell[0]) + ", " + std::to_string(cell[1]) + ", " +
          std::to_string(cell[2]) + ")";
  return text;
}

codec::SegmentationLayout LayoutOf(const ScaleInfo& scale, const GridCoord3& extent, int channels) {
  return {{extent[0], extent[1], extent[2]},
          {scale.compressed_segmentation_block_size[0], scale.compressed_segmentation_block_size[1],
           scale.compressed_segmentation_block_size[2]},
          channels};
}

// The most bytes a valid compressed_segmentation chunk of `layout` can take:
// a bound for gunzipping one.
std::uint64_t MaxSegmentationBytes(const codec::SegmentationLayout& layout,
                                   std::size_t value_size) {
  std::uint64_t blocks = 1;
  std::uint64_t block_voxels = 1;
  for (int d = 0; d < 3; ++d) {
    blocks *=
        static_cast<std::uint64_t>((layout.extent[d] + layout.block[d] - 1) / layout.block[d]);
    block_voxels *= static_cast<std::uint64_t>(layout.block[d]);
  }
  const std::uint64_t per_block = 8 + 4 * block_voxels + value_size * block_voxels;
  return static_cast<std::uint64_t>(layout.channels) * (4 + blocks * per_block);
}

// Every entry must name a chunk of the grid that lives in this shard: one that
// does not is never looked up, so the chunk it displaced would read as fill.
Status CheckMinishardEntries(const ScaleInfo& s, std::uint64_t shard, std::uint64_t minishard,
                             const std::vector<MinishardEntry>& entries, const std::string& name) {
  const core::MortonBits bits = s.morton_bits();
  const GridCoord3 grid = s.grid();
  for (const MinishardEntry& entry : entries) {
    const std::string where = name + ": minishard " + std::to_string(minishard) + ": chunk id " +
                              std::to_string(entry.chunk_id);
    if (bits.total_bits() < 64 && entry.chunk_id >> bits.total_bits() != 0) {
      return Status::Corruption(where + " lies outside the grid " + FormatCell(grid) +
                                " of scale " + s.key + " (its code has more than " +
                                std::to_string(bits.total_bits()) + " bits)");
    }
    const GridCoord3 cell = core::DecodeCompressedMorton(entry.chunk_id, bits);
    for (int d = 0; d < 3; ++d) {
      if (cell[d] >= grid[d]) {
        return Status::Corruption(where + " is chunk " + FormatCell(cell) + ", outside the grid " +
                                  FormatCell(grid) + " of scale " + s.key);
      }
    }
    if (const std::uint64_t home = LocateChunk(*s.sharding, entry.chunk_id).shard; home != shard) {
      return Status::Corruption(where + " belongs to shard " + std::to_string(home));
    }
  }
  return Status::Ok();
}

}  // namespace

Volume::Volume(std::shared_ptr<store::Store> store, std::string prefix, VolumeInfo info,
               VolumeOptions options)
    : store_(std::move(store)),
      prefix_(std::move(prefix)),
      info_(std::move(info)),
      options_(std::move(options)) {
  if (options_.pool == nullptr) options_.pool = std::make_shared<core::ThreadPool>();
}

Result<std::unique_ptr<Volume>> Volume::Open(std::shared_ptr<store::Store> store,
                                             std::string prefix, VolumeOptions options) {
  const std::string key = prefix + std::string(kInfoKey);
  CHUNKWISE_ASSIGN_OR_RETURN(std::optional<Bytes> text, store->Get(key));
  if (!text.has_value()) {
    return Status::NotFound(store->Describe(key) + ": no precomputed info");
  }
  CHUNKWISE_ASSIGN_OR_RETURN(VolumeInfo info,
                             ParseVolumeInfo(AsChars(*text), store->Describe(key)));
  return std::unique_ptr<Volume>(
      new Volume(std::move(store), std::move(prefix), std::move(info), std::move(options)));
}

Result<std::unique_ptr<Volume>> Volume::Stage(std::shared_ptr<store::Store> store,
                                              std::string prefix, VolumeInfo info,
                                              VolumeOptions options) {
  std::unique_ptr<Volume> volume(
      new Volume(std::move(store), std::move(prefix), std::move(info), std::move(options)));
  // The info must read back as given (keys, encodings and types it can hold).
  CHUNKWISE_RETURN_IF_ERROR(
      ParseVolumeInfo(volume->InfoText(), volume->Describe(kInfoKey)).status());
  return volume;
}

std::string Volume::InfoText() const { return VolumeInfoToJson(info_).dump(2) + "\n"; }

Status Volume::PublishInfo() {
  return store_->Set(prefix_ + std::string(kInfoKey), AsBytes(InfoText()));
}

Result<std::unique_ptr<Volume>> Volume::Create(const std::shared_ptr<store::Store>& store,
                                               const std::string& prefix, VolumeInfo info,
                                               bool overwrite, VolumeOptions options) {
  const std::string key = prefix + std::string(kInfoKey);
  CHUNKWISE_ASSIGN_OR_RETURN(std::unique_ptr<Volume> volume,
                             Stage(store, prefix, std::move(info), std::move(options)));
  CHUNKWISE_ASSIGN_OR_RETURN(const bool exists, store->Exists(key));
  if (exists && !overwrite) {
    return Status::InvalidArgument(store->Describe(key) + ": a volume exists already");
  }
  if (exists) {
    for (const ScaleInfo& scale : volume->info().scales) {
      CHUNKWISE_ASSIGN_OR_RETURN(const std::vector<std::string> keys,
                                 store->List(prefix + scale.key + "/"));
      for (const std::string& stale : keys) CHUNKWISE_RETURN_IF_ERROR(store->Erase(stale));
    }
  }
  CHUNKWISE_RETURN_IF_ERROR(volume->PublishInfo());
  return volume;
}

std::string Volume::Describe(std::string_view key) const {
  return store_->Describe(prefix_ + std::string(key));
}

std::uint64_t Volume::ChunkBytes(const GridCoord3& extent) const {
  return static_cast<std::uint64_t>(extent[0]) * extent[1] * extent[2] * info_.num_channels *
         info_.data_type.size();
}

Status Volume::CheckCell(int scale, const GridCoord3& cell) const {
  if (scale < 0 || scale >= num_scales()) {
    return Status::InvalidArgument("precomputed: scale " + std::to_string(scale) +
                                   " (the volume has " + std::to_string(num_scales()) + ")");
  }
  const GridCoord3 grid = info_.scales[scale].grid();
  for (int d = 0; d < 3; ++d) {
    if (cell[d] < 0 || cell[d] >= grid[d]) {
      return Status::InvalidArgument("precomputed: chunk " + FormatCell(cell) +
                                     " lies outside the grid " + FormatCell(grid) + " of scale " +
                                     info_.scales[scale].key);
    }
  }
  return Status::Ok();
}

Result<std::shared_ptr<Volume::ShardState>> Volume::LoadShard(int scale,
                                                              std::uint64_t shard) const {
  {
    std::lock_guard lock(mutex_);
    const auto it = shards_.find({scale, shard});
    if (it != shards_.end()) return it->second;
  }
  const ScaleInfo& s = info_.scales[scale];
  const std::string key = prefix_ + s.ShardKey(shard);
  CHUNKWISE_ASSIGN_OR_RETURN(const std::optional<std::uint64_t> size, store_->Size(key));
  std::shared_ptr<ShardState> state;
  if (size.has_value()) {
    state = std::make_shared<ShardState>();
    state->size = *size;
    const std::uint64_t index_size = s.sharding->shard_index_size();
    Bytes index;
    if (*size >= index_size) {
      CHUNKWISE_ASSIGN_OR_RETURN(std::optional<Bytes> read,
                                 store_->GetRange(key, store::ByteRange::Span(0, index_size)));
      if (read.has_value()) index = std::move(*read);
    }
    CHUNKWISE_ASSIGN_OR_RETURN(state->spans,
                               ParseShardIndex(index, *s.sharding, *size, store_->Describe(key)));
  }
  std::lock_guard lock(mutex_);
  return shards_.try_emplace({scale, shard}, state).first->second;
}

Result<const std::vector<MinishardEntry>*> Volume::LoadMinishard(int scale, std::uint64_t shard,
                                                                 ShardState& state,
                                                                 std::uint64_t minishard) const {
  {
    std::lock_guard lock(mutex_);
    const auto it = state.minishards.find(minishard);
    if (it != state.minishards.end()) return &it->second;
  }
  const ScaleInfo& s = info_.scales[scale];
  const std::string key = prefix_ + s.ShardKey(shard);
  const MinishardSpan span = state.spans[minishard];
  std::vector<MinishardEntry> entries;
  if (!span.empty()) {
    CHUNKWISE_ASSIGN_OR_RETURN(
        std::optional<Bytes> stored,
        store_->GetRange(key, store::ByteRange::Span(span.start, span.end - span.start)));
    if (!stored.has_value()) {
      return Status::Corruption(store_->Describe(key) + ": the shard vanished while being read");
    }
    CHUNKWISE_ASSIGN_OR_RETURN(entries, DecodeMinishardIndex(*stored, *s.sharding, state.size,
                                                             minishard, store_->Describe(key)));
    CHUNKWISE_RETURN_IF_ERROR(
        CheckMinishardEntries(s, shard, minishard, entries, store_->Describe(key)));
  }
  std::lock_guard lock(mutex_);
  return &state.minishards.try_emplace(minishard, std::move(entries)).first->second;
}

Result<std::optional<Bytes>> Volume::ReadStoredChunk(int scale, const GridCoord3& cell) const {
  const ScaleInfo& s = info_.scales[scale];
  if (!s.sharding.has_value()) return store_->Get(prefix_ + s.UnshardedChunkKey(cell));
  const std::uint64_t id = s.ChunkId(cell);
  const ChunkShard where = LocateChunk(*s.sharding, id);
  CHUNKWISE_ASSIGN_OR_RETURN(std::shared_ptr<ShardState> state, LoadShard(scale, where.shard));
  if (state == nullptr) return std::optional<Bytes>();
  CHUNKWISE_ASSIGN_OR_RETURN(const std::vector<MinishardEntry>* entries,
                             LoadMinishard(scale, where.shard, *state, where.minishard));
  const auto it = std::find_if(entries->begin(), entries->end(),
                               [&](const MinishardEntry& e) { return e.chunk_id == id; });
  if (it == entries->end()) return std::optional<Bytes>();
  const std::string key = prefix_ + s.ShardKey(where.shard);
  CHUNKWISE_ASSIGN_OR_RETURN(std::optional<Bytes> data,
                             store_->GetRange(key, store::ByteRange::Span(it->offset, it->size)));
  if (!data.has_value()) {
    return Status::Corruption(store_->Describe(key) + ": the shard vanished while being read");
  }
  return data;
}

Result<Bytes> Volume::DecodeChunk(int scale, const GridCoord3& cell, ByteView stored,
                                  const std::string& name) const {
  const ScaleInfo& s = info_.scales[scale];
  const GridCoord3 extent = s.ChunkExtent(cell);
  const std::uint64_t bytes = ChunkBytes(extent);
  const codec::SegmentationLayout layout = LayoutOf(s, extent, info_.num_channels);
  Bytes gunzipped;
  if (s.sharding.has_value() && s.sharding->data_encoding == ShardEncoding::kGzip) {
    const std::uint64_t limit = s.encoding == ChunkEncoding::kRaw
                                    ? bytes
                                    : MaxSegmentationBytes(layout, info_.data_type.size());
    CHUNKWISE_ASSIGN_OR_RETURN(auto gzip, codec::GzipCodec::Create(options_.gzip_level));
    Result<Bytes> decoded = gzip->Decode(stored, limit);
    if (!decoded.ok()) {
      return Status::Corruption(
          name + ": chunk " + FormatCell(cell) +
          ": gzip data does not decode: " + std::string(decoded.status().message()));
    }
    gunzipped = std::move(*decoded);
    stored = gunzipped;
  }
  Bytes out(bytes);
  if (s.encoding == ChunkEncoding::kRaw) {
    if (stored.size() != bytes) {
      return Status::Corruption(name + ": raw chunk " + FormatCell(cell) + " has " +
                                std::to_string(stored.size()) + " bytes, not " +
                                std::to_string(bytes));
    }
    std::memcpy(out.data(), stored.data(), bytes);
    return out;
  }
  const std::string where = name + ": chunk " + FormatCell(cell);
  if (info_.data_type.id() == core::DataTypeId::kUInt64) {
    CHUNKWISE_RETURN_IF_ERROR(codec::DecodeCompressedSegmentation(
        stored, layout, {reinterpret_cast<std::uint64_t*>(out.data()), bytes / 8}, where));
  } else {
    CHUNKWISE_RETURN_IF_ERROR(codec::DecodeCompressedSegmentation(
        stored, layout, {reinterpret_cast<std::uint32_t*>(out.data()), bytes / 4}, where));
  }
  return out;
}

Result<std::optional<Bytes>> Volume::ReadChunk(int scale, const GridCoord3& cell) const {
  CHUNKWISE_RETURN_IF_ERROR(CheckCell(scale, cell));
  CHUNKWISE_ASSIGN_OR_RETURN(std::optional<Bytes> stored, ReadStoredChunk(scale, cell));
  if (!stored.has_value()) return std::optional<Bytes>();
  const ScaleInfo& s = info_.scales[scale];
  const std::string name =
      s.sharding.has_value() ? Describe(s.ShardKey(LocateChunk(*s.sharding, s.ChunkId(cell)).shard))
                             : Describe(s.UnshardedChunkKey(cell));
  CHUNKWISE_ASSIGN_OR_RETURN(Bytes voxels, DecodeChunk(scale, cell, *stored, name));
  return std::optional<Bytes>(std::move(voxels));
}

Result<Bytes> Volume::Read(int scale, const core::Region& region) const {
  CHUNKWISE_RETURN_IF_ERROR(CheckCell(scale, {0, 0, 0}));
  const ScaleInfo& s = info_.scales[scale];
  const core::Region full =
      core::Region::Full(std::vector<core::Index>{s.size[2], s.size[1], s.size[0]});
  if (region.rank() != 3 || !full.Covers(region)) {
    return Status::InvalidArgument("precomputed: region " + region.ToString() +
                                   " does not lie inside scale " + s.key + " of shape " +
                                   full.ToString());
  }
  const core::Index channels = info_.num_channels;
  const std::size_t element = info_.data_type.size();
  const core::Shape region_shape = region.shape();
  const std::vector<core::Index> out_shape{channels, region_shape[0], region_shape[1],
                                           region_shape[2]};
  Bytes out(static_cast<std::size_t>(region.num_elements() * channels) * element, 0);
  if (region.IsEmpty()) return out;
  // The chunks the region touches, (x, y, z) grid cells.
  GridCoord3 first{};
  GridCoord3 last{};
  for (int d = 0; d < 3; ++d) {
    first[d] = region.start()[2 - d] / s.chunk_size[d];
    last[d] = (region.stop()[2 - d] - 1) / s.chunk_size[d];
  }
  std::vector<GridCoord3> cells;
  for (core::Index z = first[2]; z <= last[2]; ++z) {
    for (core::Index y = first[1]; y <= last[1]; ++y) {
      for (core::Index x = first[0]; x <= last[0]; ++x) cells.push_back({x, y, z});
    }
  }
  const Status status = options_.pool->ParallelFor(cells.size(), [&](std::size_t i) -> Status {
    const GridCoord3& cell = cells[i];
    CHUNKWISE_ASSIGN_OR_RETURN(std::optional<Bytes> voxels, ReadChunk(scale, cell));
    if (!voxels.has_value()) return Status::Ok();
    const GridCoord3 extent = s.ChunkExtent(cell);
    const core::Region chunk = core::Region::FromOriginAndShape(
        std::vector<core::Index>{cell[2] * s.chunk_size[2], cell[1] * s.chunk_size[1],
                                 cell[0] * s.chunk_size[0]},
        std::vector<core::Index>{extent[2], extent[1], extent[0]});
    const std::optional<core::Region> overlap = chunk.Intersect(region);
    if (!overlap.has_value()) return Status::Ok();
    const std::vector<core::Index> chunk_shape{channels, extent[2], extent[1], extent[0]};
    const std::vector<core::Index> source_origin{0, overlap->start()[0] - chunk.start()[0],
                                                 overlap->start()[1] - chunk.start()[1],
                                                 overlap->start()[2] - chunk.start()[2]};
    const std::vector<core::Index> target_origin{0, overlap->start()[0] - region.start()[0],
                                                 overlap->start()[1] - region.start()[1],
                                                 overlap->start()[2] - region.start()[2]};
    const core::Shape overlap_shape = overlap->shape();
    const std::vector<core::Index> copy_extent{channels, overlap_shape[0], overlap_shape[1],
                                               overlap_shape[2]};
    core::CopyStridedRegion({voxels->data(), chunk_shape, source_origin},
                            {out.data(), out_shape, target_origin}, copy_extent, element);
    return Status::Ok();
  });
  CHUNKWISE_RETURN_IF_ERROR(status);
  return out;
}

Result<Bytes> Volume::EncodeChunk(int scale, const GridCoord3& cell, ByteView voxels) const {
  CHUNKWISE_RETURN_IF_ERROR(CheckCell(scale, cell));
  const ScaleInfo& s = info_.scales[scale];
  const GridCoord3 extent = s.ChunkExtent(cell);
  const std::uint64_t bytes = ChunkBytes(extent);
  if (voxels.size() != bytes) {
    return Status::InvalidArgument("precomputed: chunk " + FormatCell(cell) + " of scale " + s.key +
                                   " takes " + std::to_string(bytes) + " bytes, not " +
                                   std::to_string(voxels.size()));
  }
  Bytes encoded;
  if (s.encoding == ChunkEncoding::kRaw) {
    encoded = CopyToBytes(voxels);
  } else {
    const codec::SegmentationLayout layout = LayoutOf(s, extent, info_.num_channels);
    if (info_.data_type.id() == core::DataTypeId::kUInt64) {
      CHUNKWISE_RETURN_IF_ERROR(codec::EncodeCompressedSegmentation(
          {reinterpret_cast<const std::uint64_t*>(voxels.data()), bytes / 8}, layout, encoded));
    } else {
      CHUNKWISE_RETURN_IF_ERROR(codec::EncodeCompressedSegmentation(
          {reinterpret_cast<const std::uint32_t*>(voxels.data()), bytes / 4}, layout, encoded));
    }
  }
  if (s.sharding.has_value() && s.sharding->data_encoding == ShardEncoding::kGzip) {
    CHUNKWISE_ASSIGN_OR_RETURN(auto gzip, codec::GzipCodec::Create(options_.gzip_level));
    CHUNKWISE_ASSIGN_OR_RETURN(encoded, gzip->Encode(encoded));
    encoded.shrink_to_fit();
  }
  return encoded;
}

Status Volume::WriteChunk(int scale, const GridCoord3& cell, ByteView voxels) {
  CHUNKWISE_RETURN_IF_ERROR(CheckCell(scale, cell));
  const ScaleInfo& s = info_.scales[scale];
  if (s.sharding.has_value()) {
    return Status::InvalidArgument("precomputed: scale " + s.key +
                                   " is sharded: its chunks are written a shard at a time");
  }
  CHUNKWISE_ASSIGN_OR_RETURN(const Bytes encoded, EncodeChunk(scale, cell, voxels));
  return store_->Set(prefix_ + s.UnshardedChunkKey(cell), encoded);
}

Result<std::uint64_t> Volume::WriteShard(int scale, std::uint64_t shard,
                                         std::span<const StoredChunk> chunks) {
  CHUNKWISE_RETURN_IF_ERROR(CheckCell(scale, {0, 0, 0}));
  const ScaleInfo& s = info_.scales[scale];
  if (!s.sharding.has_value()) {
    return Status::InvalidArgument("precomputed: scale " + s.key + " is not sharded");
  }
  std::vector<ShardChunk> placed;
  placed.reserve(chunks.size());
  for (const StoredChunk& chunk : chunks) {
    CHUNKWISE_RETURN_IF_ERROR(CheckCell(scale, chunk.cell));
    const std::uint64_t id = s.ChunkId(chunk.cell);
    if (LocateChunk(*s.sharding, id).shard != shard) {
      return Status::InvalidArgument("precomputed: chunk " + FormatCell(chunk.cell) +
                                     " does not belong to " + s.ShardKey(shard));
    }
    placed.push_back({id, chunk.data});
  }
  const std::string key = prefix_ + s.ShardKey(shard);
  std::uint64_t size = 0;
  if (placed.empty()) {
    CHUNKWISE_RETURN_IF_ERROR(store_->Erase(key));
  } else {
    CHUNKWISE_ASSIGN_OR_RETURN(const ShardImage image, BuildShard(std::move(placed), *s.sharding));
    CHUNKWISE_RETURN_IF_ERROR(store_->SetParts(key, image.parts));
    size = image.size;
  }
  std::lock_guard lock(mutex_);
  shards_.erase({scale, shard});
  return size;
}

Result<std::optional<std::vector<std::uint64_t>>> Volume::ListShard(int scale,
                                                                    std::uint64_t shard) const {
  CHUNKWISE_RETURN_IF_ERROR(CheckCell(scale, {0, 0, 0}));
  const ScaleInfo& s = info_.scales[scale];
  if (!s.sharding.has_value()) {
    return Status::InvalidArgument("precomputed: scale " + s.key + " is not sharded");
  }
  CHUNKWISE_ASSIGN_OR_RETURN(std::shared_ptr<ShardState> state, LoadShard(scale, shard));
  if (state == nullptr) return std::optional<std::vector<std::uint64_t>>();
  std::vector<std::uint64_t> ids;
  for (std::uint64_t m = 0; m < state->spans.size(); ++m) {
    if (state->spans[m].empty()) continue;
    CHUNKWISE_ASSIGN_OR_RETURN(const std::vector<MinishardEntry>* entries,
                               LoadMinishard(scale, shard, *state, m));
    for (const MinishardEntry& e : *entries) {
      if (LocateChunk(*s.sharding, e.chunk_id) != ChunkShard{shard, m}) {
        return Status::Corruption(Describe(s.ShardKey(shard)) + ": minishard " + std::to_string(m) +
                                  " lists chunk " + std::to_string(e.chunk_id) +
                                  ", which belongs elsewhere");
      }
      ids.push_back(e.chunk_id);
    }
  }
  std::sort(ids.begin(), ids.end());
  return std::optional<std::vector<std::uint64_t>>(std::move(ids));
}

}  // namespace chunkwise::formats::precomputed
