#include "formats/precomputed/segment_shards.h"

#include <algorithm>
#include <bit>
#include <map>
#include <utility>

#include "codec/gzip_codec.h"
#include "formats/precomputed/shard_prefixes.h"

namespace chunkwise::formats::precomputed {
namespace {

constexpr int kDataGzipLevel = 6;
// gzip inflates by at most about 1032:1; a larger claim is corrupt.
constexpr std::uint64_t kMaxInflation = 1032;

}  // namespace

ShardingSpec SegmentSharding(std::uint64_t segments) {
  const int bits = segments <= 1 ? 0 : std::bit_width(segments - 1);  // ceil(log2(segments)).
  ShardingSpec spec;
  spec.hash = ShardHash::kMurmurHash3X86_128;
  spec.shard_bits = std::max(0, bits - 12);
  spec.minishard_bits = std::clamp(bits - spec.shard_bits - 3, 0, 10);
  spec.minishard_index_encoding = ShardEncoding::kGzip;
  spec.data_encoding = ShardEncoding::kRaw;
  return spec;
}

Result<WrittenShards> WriteSegmentShards(store::Store& store, const std::string& folder,
                                         const ShardingSpec& spec,
                                         const std::vector<SegmentObject>& objects) {
  std::shared_ptr<const codec::GzipCodec> gzip;
  if (spec.data_encoding == ShardEncoding::kGzip) {
    CHUNKWISE_ASSIGN_OR_RETURN(gzip, codec::GzipCodec::Create(kDataGzipLevel));
  }
  // The gzipped chunks live here until their shard is written.
  std::vector<Bytes> encoded(gzip != nullptr ? objects.size() : 0);
  std::map<std::uint64_t, std::pair<std::vector<ShardChunk>, std::vector<ByteView>>> shards;
  for (std::size_t i = 0; i < objects.size(); ++i) {
    ByteView chunk = objects[i].chunk;
    if (gzip != nullptr) {
      CHUNKWISE_ASSIGN_OR_RETURN(encoded[i], gzip->Encode(chunk));
      chunk = encoded[i];
    }
    auto& [chunks, prefixes] = shards[LocateChunk(spec, objects[i].id).shard];
    chunks.push_back({objects[i].id, chunk});
    prefixes.push_back(objects[i].prefix);
  }
  WrittenShards written;
  for (auto& [shard, parts] : shards) {
    CHUNKWISE_ASSIGN_OR_RETURN(const ShardImage image,
                               BuildShardWithPrefixes(std::move(parts.first), parts.second, spec));
    const std::string key = folder + ShardFileName(spec, shard);
    CHUNKWISE_RETURN_IF_ERROR(store.SetParts(key, image.parts));
    written.keys.push_back(key);
    written.bytes += image.size;
  }
  return written;
}

Result<std::optional<Bytes>> ReadSegmentChunk(const store::Store& store, const std::string& folder,
                                              const ShardingSpec& spec, std::uint64_t id) {
  const ChunkShard where = LocateChunk(spec, id);
  const std::string key = folder + ShardFileName(spec, where.shard);
  const std::string name = store.Describe(key);
  CHUNKWISE_ASSIGN_OR_RETURN(const std::optional<std::uint64_t> size, store.Size(key));
  if (!size) return std::optional<Bytes>();
  Bytes index;
  if (*size >= spec.shard_index_size()) {
    CHUNKWISE_ASSIGN_OR_RETURN(
        std::optional<Bytes> read,
        store.GetRange(key, store::ByteRange::Span(0, spec.shard_index_size())));
    if (read) index = std::move(*read);
  }
  CHUNKWISE_ASSIGN_OR_RETURN(const std::vector<MinishardSpan> spans,
                             ParseShardIndex(index, spec, *size, name));
  const MinishardSpan span = spans.at(where.minishard);
  if (span.empty()) return std::optional<Bytes>();
  CHUNKWISE_ASSIGN_OR_RETURN(
      const std::optional<Bytes> stored,
      store.GetRange(key, store::ByteRange::Span(span.start, span.end - span.start)));
  if (!stored) return Status::Corruption(name + ": the shard vanished while being read");
  CHUNKWISE_ASSIGN_OR_RETURN(const std::vector<MinishardEntry> entries,
                             DecodeMinishardIndex(*stored, spec, *size, where.minishard, name));
  const auto entry = std::find_if(entries.begin(), entries.end(),
                                  [&](const MinishardEntry& e) { return e.chunk_id == id; });
  if (entry == entries.end()) return std::optional<Bytes>();
  CHUNKWISE_ASSIGN_OR_RETURN(
      std::optional<Bytes> data,
      store.GetRange(key, store::ByteRange::Span(entry->offset, entry->size)));
  if (!data) return Status::Corruption(name + ": the shard vanished while being read");
  if (spec.data_encoding == ShardEncoding::kRaw) return data;
  CHUNKWISE_ASSIGN_OR_RETURN(auto gzip, codec::GzipCodec::Create(kDataGzipLevel));
  Result<Bytes> decoded =
      gzip->Decode(*data, std::max<std::uint64_t>(entry->size, 64) * kMaxInflation);
  if (!decoded.ok()) {
    return Status::Corruption(
        name + ": segment " + std::to_string(id) +
        ": gzip data does not decode: " + std::string(decoded.status().message()));
  }
  return std::optional<Bytes>(std::move(*decoded));
}

}  // namespace chunkwise::formats::precomputed
