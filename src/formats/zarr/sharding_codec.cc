#include "formats/zarr/sharding_codec.h"

#include <algorithm>
#include <string>
#include <utility>

#include "chunkwise/core/check.h"
#include "formats/zarr/fill_value.h"

namespace chunkwise::formats::zarr {
namespace {

using codec::ChunkSpec;
using core::Index;
using core::Region;

// Above this, a shard's inner chunks are not given slots of one buffer.
constexpr std::size_t kMaxSlotBytes = std::size_t{512} << 20;

// Shards inside shards are legal; a configuration nested deeper than this is
// an attack. The depth travels down the registries built for inner chains.
constexpr int kMaxShardingDepth = 8;

codec::CodecRegistry ZarrCodecRegistryAtDepth(const codec::CodecBuildOptions& build, int depth);

// Only [bytes little, crc32c] is read: the index layout of shard_index.h.
Status CheckIndexCodecs(const nlohmann::json& codecs) {
  const bool ok =
      codecs.is_array() && codecs.size() == 2 && codecs[0].is_object() &&
      codecs[0].value("name", nlohmann::json()) == "bytes" &&
      codecs[0]
              .value("configuration", nlohmann::json::object())
              .value("endian", nlohmann::json("little")) == "little" &&
      (codecs[1] == "crc32c" ||
       (codecs[1].is_object() && codecs[1].value("name", nlohmann::json()) == "crc32c"));
  if (ok) return Status::Ok();
  return Status::Unsupported("sharding_indexed index_codecs " + codecs.dump() +
                             " (only [bytes little, crc32c] is supported)");
}

Result<core::Shape> ParseChunkShape(const nlohmann::json& configuration) {
  const nlohmann::json& json = configuration["chunk_shape"];
  if (!json.is_array() || json.empty()) {
    return Status::InvalidArgument("sharding_indexed chunk_shape must be a non-empty list");
  }
  core::Shape shape;
  for (const auto& extent : json) {
    if (!extent.is_number_integer() || extent.get<std::int64_t>() <= 0) {
      return Status::InvalidArgument("sharding_indexed chunk_shape " + json.dump() +
                                     " must hold positive integers");
    }
    shape.push_back(extent.get<std::int64_t>());
  }
  return shape;
}

Result<IndexLocation> ParseIndexLocation(const nlohmann::json& configuration) {
  if (!configuration.contains("index_location")) return IndexLocation::kEnd;
  const nlohmann::json& value = configuration["index_location"];
  if (value == "end") return IndexLocation::kEnd;
  if (value == "start") return IndexLocation::kStart;
  return Status::InvalidArgument("sharding_indexed index_location " + value.dump() +
                                 " (must be \"start\" or \"end\")");
}

Status CheckKeys(const nlohmann::json& configuration) {
  if (!configuration.is_object()) {
    return Status::InvalidArgument("sharding_indexed configuration must be an object");
  }
  for (const auto& [key, value] : configuration.items()) {
    if (key != "chunk_shape" && key != "codecs" && key != "index_codecs" &&
        key != "index_location") {
      return Status::InvalidArgument("sharding_indexed: unknown configuration key \"" + key + "\"");
    }
  }
  if (!configuration.contains("chunk_shape") || !configuration.contains("codecs")) {
    return Status::InvalidArgument("sharding_indexed needs chunk_shape and codecs");
  }
  return Status::Ok();
}

std::vector<std::uint8_t> FillElement(const ChunkSpec& spec) {
  if (!spec.fill_value.empty()) return spec.fill_value;
  return std::vector<std::uint8_t>(spec.dtype.size(), 0);
}

core::Coord Plus(std::span<const Index> a, std::span<const Index> b) {
  core::Coord sum(a.begin(), a.end());
  for (std::size_t d = 0; d < sum.size(); ++d) sum[d] += b[d];
  return sum;
}

core::Coord Minus(std::span<const Index> a, std::span<const Index> b) {
  core::Coord difference(a.begin(), a.end());
  for (std::size_t d = 0; d < difference.size(); ++d) difference[d] -= b[d];
  return difference;
}

// The scratch buffers of a call: the context's, or, when it brings none,
// ones of the call's own.
class CallScratch {
 public:
  explicit CallScratch(const ShardCallContext& context)
      : scratch_(context.scratch != nullptr ? *context.scratch : own_) {}
  ShardScratch& get() { return scratch_; }

 private:
  ShardScratch own_;
  ShardScratch& scratch_;
};

std::string InnerName(std::string_view key, std::span<const Index> coord) {
  return std::string(key) + " inner chunk [" + core::FormatShape(coord) + "]";
}

}  // namespace

ShardingCodec::ShardingCodec(core::Shape chunk_shape, codec::CodecChain inner_codecs,
                             nlohmann::json index_codecs, IndexLocation index_location)
    : chunk_shape_(std::move(chunk_shape)),
      inner_codecs_(std::move(inner_codecs)),
      index_codecs_(std::move(index_codecs)),
      index_location_(index_location) {}

Result<std::shared_ptr<const ShardingCodec>> ShardingCodec::FromJson(
    const nlohmann::json& configuration, const codec::CodecRegistry& registry) {
  CHUNKWISE_RETURN_IF_ERROR(CheckKeys(configuration));
  CHUNKWISE_ASSIGN_OR_RETURN(core::Shape chunk_shape, ParseChunkShape(configuration));
  CHUNKWISE_ASSIGN_OR_RETURN(IndexLocation location, ParseIndexLocation(configuration));
  const nlohmann::json index_codecs = configuration.value("index_codecs", ShardIndexCodecs());
  CHUNKWISE_RETURN_IF_ERROR(CheckIndexCodecs(index_codecs));
  Result<codec::CodecChain> inner = codec::CodecChain::FromJson(configuration["codecs"], registry);
  if (!inner.ok()) return inner.status().WithContext("sharding_indexed codecs");
  return std::shared_ptr<const ShardingCodec>(
      new ShardingCodec(std::move(chunk_shape), std::move(inner).value(), index_codecs, location));
}

nlohmann::json ShardingCodec::ToJson() const {
  return {{"name", kShardingCodecName},
          {"configuration",
           {{"chunk_shape", chunk_shape_},
            {"codecs", inner_codecs_.ToJson()},
            {"index_codecs", ShardIndexCodecs()},
            {"index_location", index_location_ == IndexLocation::kStart ? "start" : "end"}}}};
}

Status ShardingCodec::CheckShardShape(const core::Shape& shard_shape) const {
  bool ok = shard_shape.size() == chunk_shape_.size();
  for (std::size_t d = 0; ok && d < shard_shape.size(); ++d) {
    ok = shard_shape[d] > 0 && shard_shape[d] % chunk_shape_[d] == 0;
  }
  if (ok) return Status::Ok();
  return Status::InvalidArgument(
      "sharding_indexed chunk_shape [" + core::FormatShape(chunk_shape_) +
      "] does not divide the shard shape [" + core::FormatShape(shard_shape) + "]");
}

ChunkSpec ShardingCodec::InnerSpec(const ChunkSpec& shard_spec) const {
  return ChunkSpec{shard_spec.dtype, chunk_shape_, shard_spec.fill_value};
}

core::RegularChunkGrid ShardingCodec::InnerGrid(const core::Shape& shard_shape) const {
  Result<core::RegularChunkGrid> grid = core::RegularChunkGrid::Create(shard_shape, chunk_shape_);
  CHUNKWISE_CHECK(grid.ok());
  return std::move(grid).value();
}

Status ShardingCodec::ForEachInner(core::ThreadPool* pool, std::size_t n,
                                   const std::function<Status(std::size_t)>& body) {
  if (pool != nullptr) return pool->ParallelFor(n, body);
  for (std::size_t i = 0; i < n; ++i) CHUNKWISE_RETURN_IF_ERROR(body(i));
  return Status::Ok();
}

Result<ShardIndex> ShardingCodec::ReadIndex(const ShardByteReader& read, std::uint64_t shard_size,
                                            std::size_t n, std::string_view key) const {
  const std::uint64_t index_size = ShardIndex::EncodedSize(n);
  if (shard_size < index_size) {
    return Status::Corruption("shard " + std::string(key) + " is " + std::to_string(shard_size) +
                              " bytes, smaller than its index (" + std::to_string(index_size) +
                              " bytes): truncated");
  }
  const std::uint64_t offset =
      index_location_ == IndexLocation::kStart ? 0 : shard_size - index_size;
  Bytes scratch;
  CHUNKWISE_ASSIGN_OR_RETURN(ByteView bytes, read(offset, index_size, scratch));
  return ShardIndex::Decode(bytes, n, shard_size, key, index_location_);
}

Status ShardingCodec::DecodeRegion(const ChunkSpec& shard_spec, const ShardIndex& index,
                                   const ShardByteReader& read, const Region& box,
                                   const core::StridedDestination& destination,
                                   std::string_view key, const ShardCallContext& context) const {
  const core::RegularChunkGrid grid = InnerGrid(shard_spec.shape);
  const ChunkSpec inner_spec = InnerSpec(shard_spec);
  const std::vector<std::uint8_t> fill = FillElement(shard_spec);
  const std::vector<core::Coord> chunks = grid.ChunksIntersecting(box);
  CallScratch scratch(context);
  return ForEachInner(context.pool, chunks.size(), [&](std::size_t i) -> Status {
    const core::ChunkOverlap overlap = *grid.Overlap(chunks[i], box);
    const core::Coord origin = Plus(destination.origin, overlap.region_local.start());
    const core::StridedDestination target{destination.data, destination.shape, origin,
                                          destination.streaming};
    const core::Shape extent = overlap.array.shape();
    const ChunkLocation& location = index.at(core::Ravel(chunks[i], grid.grid_shape()));
    if (location.empty()) {
      core::FillStridedRegion(target, extent, fill);
      return Status::Ok();
    }
    ShardScratch::Lease scratch_fetched(scratch.get());
    CHUNKWISE_ASSIGN_OR_RETURN(ByteView encoded,
                               read(location.offset, location.nbytes, scratch_fetched.get()));
    ShardScratch::Lease scratch_decoded(scratch.get());
    const Status status = inner_codecs_.DecodeRegion(inner_spec, encoded, overlap.chunk_local,
                                                     target, scratch_decoded.get());
    if (!status.ok()) return status.WithContext(InnerName(key, chunks[i]));
    return Status::Ok();
  });
}

Result<std::optional<EncodedShard>> ShardingCodec::EncodeMerged(
    const ChunkSpec& shard_spec, const ShardWriteSource& write,
    const std::optional<ShardIndex>& old_index, const ShardByteReader& read_old,
    std::string_view key, const ShardCallContext& context) const {
  const core::RegularChunkGrid grid = InnerGrid(shard_spec.shape);
  const ChunkSpec inner_spec = InnerSpec(shard_spec);
  const std::vector<std::uint8_t> fill = FillElement(shard_spec);
  const std::size_t element_size = inner_spec.dtype.size();
  const auto n = static_cast<std::size_t>(grid.num_chunks());
  // Each inner chunk encodes into its own slot of one pooled buffer: no
  // allocation per chunk, and the store writes the slots where they are. A
  // shard of thousands of chunks, whose slots would take more than
  // kMaxSlotBytes, gives each chunk a buffer of its own instead.
  const std::size_t slot_size = inner_codecs_.MaxEncodedSize(inner_spec);
  const bool use_slots = n <= kMaxSlotBytes / std::max<std::size_t>(slot_size, 1);
  EncodedShard shard;
  if (use_slots) shard.slots = core::BufferPool::TakeFrom(context.buffers, n * slot_size);
  shard.owned.resize(n);
  std::vector<std::size_t> sizes(n, 0);  // 0: not stored.
  CallScratch scratch(context);
  CHUNKWISE_RETURN_IF_ERROR(ForEachInner(context.pool, n, [&](std::size_t k) -> Status {
    const core::Coord coord = core::Unravel(static_cast<Index>(k), grid.grid_shape());
    const Region inner_box = grid.UnclippedChunkRegion(coord);
    const std::optional<Region> hit = inner_box.Intersect(write.box);
    const bool has_old = old_index && !old_index->at(k).empty();
    ShardScratch::Lease scratch_old(scratch.get());  // For a reader that copies into it.
    if (!hit && has_old) {  // Untouched: keep the old encoded bytes as they are.
      const ChunkLocation& location = old_index->at(k);
      CHUNKWISE_ASSIGN_OR_RETURN(ByteView old,
                                 read_old(location.offset, location.nbytes, scratch_old.get()));
      shard.owned[k] = CopyToBytes(old);
      sizes[k] = old.size();
      return Status::Ok();
    }
    if (!hit) return Status::Ok();
    ShardScratch::Lease scratch_chunk(scratch.get());
    Bytes& chunk = scratch_chunk.get();
    chunk.resize(inner_spec.num_bytes());
    if (*hit == inner_box) {
      // Every element comes from the write.
    } else if (has_old) {
      const ChunkLocation& location = old_index->at(k);
      CHUNKWISE_ASSIGN_OR_RETURN(ByteView old,
                                 read_old(location.offset, location.nbytes, scratch_old.get()));
      const Status decoded = inner_codecs_.DecodeInto(inner_spec, old, chunk);
      if (!decoded.ok()) return decoded.WithContext(InnerName(key, coord));
    } else {
      core::FillStridedRegion({chunk.data(), inner_spec.shape, core::Coord(coord.size(), 0)},
                              inner_spec.shape, fill);
    }
    const core::Coord source_origin =
        Plus(write.source.origin, Minus(hit->start(), write.box.start()));
    const core::Coord chunk_origin = Minus(hit->start(), inner_box.start());
    core::CopyStridedRegion({write.source.data, write.source.shape, source_origin},
                            {chunk.data(), inner_spec.shape, chunk_origin}, hit->shape(),
                            element_size);
    if (IsFilledWith(chunk, fill)) return Status::Ok();
    if (!use_slots) {
      CHUNKWISE_ASSIGN_OR_RETURN(shard.owned[k], inner_codecs_.Encode(inner_spec, chunk));
      sizes[k] = shard.owned[k].size();
      return Status::Ok();
    }
    const MutableByteView slot(shard.slots.data() + k * slot_size, slot_size);
    CHUNKWISE_ASSIGN_OR_RETURN(sizes[k], inner_codecs_.EncodeInto(inner_spec, chunk, slot));
    return Status::Ok();
  }));
  if (std::all_of(sizes.begin(), sizes.end(), [](std::size_t size) { return size == 0; })) {
    return std::optional<EncodedShard>();
  }
  Assemble(shard, sizes, slot_size);
  return std::optional<EncodedShard>(std::move(shard));
}

void ShardingCodec::Assemble(EncodedShard& shard, std::span<const std::size_t> sizes,
                             std::size_t slot_size) const {
  std::vector<ByteView> chunks(sizes.size());
  for (std::size_t k = 0; k < sizes.size(); ++k) {
    if (sizes[k] == 0) continue;
    chunks[k] = !shard.owned.empty() && !shard.owned[k].empty()
                    ? ByteView(shard.owned[k])
                    : ByteView(shard.slots.data() + k * slot_size, sizes[k]);
  }
  LayOut(shard, chunks);
}

void ShardingCodec::LayOut(EncodedShard& shard, std::span<const ByteView> chunks) const {
  ShardIndex index = ShardIndex::Empty(chunks.size());
  const std::uint64_t shift = DataOffsetShift(index_location_, chunks.size());
  std::uint64_t data_size = 0;
  shard.parts.clear();
  for (std::size_t k = 0; k < chunks.size(); ++k) {
    if (chunks[k].empty()) continue;
    index.Set(k, {shift + data_size, chunks[k].size()});
    data_size += chunks[k].size();
    shard.parts.push_back(chunks[k]);
  }
  shard.index = index.Encode();
  if (index_location_ == IndexLocation::kStart) {
    shard.parts.insert(shard.parts.begin(), ByteView(shard.index));
  } else {
    shard.parts.emplace_back(shard.index);
  }
}

std::optional<EncodedShard> ShardingCodec::Pack(std::span<const ByteView> chunks) const {
  if (std::all_of(chunks.begin(), chunks.end(), [](ByteView chunk) { return chunk.empty(); })) {
    return std::nullopt;
  }
  EncodedShard shard;
  LayOut(shard, chunks);
  return shard;
}

Bytes EncodedShard::Join() const { return JoinBytes(parts); }

Result<Bytes> ShardingCodec::Encode(const ChunkSpec& spec, ByteView data) const {
  CHUNKWISE_RETURN_IF_ERROR(CheckShardShape(spec.shape));
  const core::Coord origin(spec.shape.size(), 0);
  const ShardWriteSource write{{data.data(), spec.shape, origin}, Region::Full(spec.shape)};
  CHUNKWISE_ASSIGN_OR_RETURN(std::optional<EncodedShard> shard,
                             EncodeMerged(spec, write, std::nullopt, {}, "shard"));
  if (shard) return shard->Join();
  // An index of empty entries: the codec must return a value.
  EncodedShard empty;
  const std::vector<std::size_t> no_chunks(
      static_cast<std::size_t>(InnerGrid(spec.shape).num_chunks()), 0);
  Assemble(empty, no_chunks, 0);
  return empty.Join();
}

const nlohmann::json& ShardIndexCodecs() {
  static const nlohmann::json codecs = nlohmann::json::array(
      {{{"name", "bytes"}, {"configuration", {{"endian", "little"}}}}, {{"name", "crc32c"}}});
  return codecs;
}

ShardByteReader MemoryShardReader(ByteView shard) {
  return [shard](std::uint64_t offset, std::uint64_t nbytes, Bytes&) -> Result<ByteView> {
    return shard.subspan(offset, nbytes);
  };
}

Result<Bytes> ShardingCodec::Decode(const ChunkSpec& spec, ByteView encoded) const {
  CHUNKWISE_RETURN_IF_ERROR(CheckShardShape(spec.shape));
  const ShardByteReader read = MemoryShardReader(encoded);
  const std::size_t n = static_cast<std::size_t>(InnerGrid(spec.shape).num_chunks());
  CHUNKWISE_ASSIGN_OR_RETURN(ShardIndex index, ReadIndex(read, encoded.size(), n, "shard"));
  Bytes decoded(spec.num_bytes());
  const core::Coord origin(spec.shape.size(), 0);
  CHUNKWISE_RETURN_IF_ERROR(DecodeRegion(spec, index, read, Region::Full(spec.shape),
                                         {decoded.data(), spec.shape, origin}, "shard"));
  return decoded;
}

std::size_t ShardingCodec::MaxEncodedSize(const ChunkSpec& spec) const {
  if (!CheckShardShape(spec.shape).ok()) return spec.num_bytes();  // Decode refuses it anyway.
  const auto n = static_cast<std::size_t>(InnerGrid(spec.shape).num_chunks());
  return n * inner_codecs_.MaxEncodedSize(InnerSpec(spec)) + ShardIndex::EncodedSize(n);
}

namespace {

// Registers sharding_indexed for chains `depth` shards deep.
Status RegisterShardingCodecAtDepth(codec::CodecRegistry& registry,
                                    const codec::CodecBuildOptions& build, int depth) {
  return registry.Register(
      std::string(kShardingCodecName),
      [build,
       depth](const nlohmann::json& configuration) -> Result<std::shared_ptr<const codec::Codec>> {
        if (depth >= kMaxShardingDepth) {
          return Status::InvalidArgument("sharding_indexed nested more than " +
                                         std::to_string(kMaxShardingDepth) + " deep");
        }
        const codec::CodecRegistry inner = ZarrCodecRegistryAtDepth(build, depth + 1);
        Result<std::shared_ptr<const ShardingCodec>> codec =
            ShardingCodec::FromJson(configuration, inner);
        if (!codec.ok()) return codec.status();
        return std::shared_ptr<const codec::Codec>(std::move(codec).value());
      });
}

codec::CodecRegistry ZarrCodecRegistryAtDepth(const codec::CodecBuildOptions& build, int depth) {
  codec::CodecRegistry registry = codec::CodecRegistry::WithBuiltins(build);
  const Status status = RegisterShardingCodecAtDepth(registry, build, depth);
  CHUNKWISE_CHECK(status.ok());
  return registry;
}

}  // namespace

codec::CodecRegistry ZarrCodecRegistry(const codec::CodecBuildOptions& build) {
  return ZarrCodecRegistryAtDepth(build, 0);
}

}  // namespace chunkwise::formats::zarr
