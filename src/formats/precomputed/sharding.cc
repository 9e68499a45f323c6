#include "formats/precomputed/sharding.h"

#include <algorithm>
#include <cstdio>
#include <map>

#include "codec/gzip_codec.h"
#include "core/murmurhash3.h"
#include "formats/precomputed/shard_prefixes.h"

namespace chunkwise::formats::precomputed {
namespace {

using nlohmann::json;

constexpr std::string_view kShardingType = "neuroglancer_uint64_sharded_v1";
constexpr std::uint64_t kEntryBytes = 24;  // id, offset, size: three uint64le.
// A shard index of 2^32 minishards is already 64 GiB.
constexpr int kMaxMinishardBits = 32;
// Level 6, as zlib's default: the minishard indexes are small.
constexpr int kMinishardGzipLevel = 6;

Status Invalid(std::string_view where, const std::string& what) {
  return Status::InvalidArgument(std::string(where) + ": sharding: " + what);
}

Result<int> GetBits(const json& object, const char* field, std::string_view where, bool required) {
  const auto it = object.find(field);
  if (it == object.end()) {
    if (!required) return 0;
    return Invalid(where, std::string(field) + " is missing");
  }
  if (!it->is_number_integer() || it->get<std::int64_t>() < 0 || it->get<std::int64_t>() > 64) {
    return Invalid(where, std::string(field) + " must be an integer in 0..64, not " + it->dump());
  }
  return static_cast<int>(it->get<std::int64_t>());
}

Result<ShardEncoding> GetEncoding(const json& object, const char* field, std::string_view where) {
  const auto it = object.find(field);
  if (it == object.end()) return ShardEncoding::kRaw;
  if (!it->is_string()) return Invalid(where, std::string(field) + " must be a string");
  const std::string& name = it->get_ref<const std::string&>();
  if (name == "raw") return ShardEncoding::kRaw;
  if (name == "gzip") return ShardEncoding::kGzip;
  return Status::Unsupported(std::string(where) + ": sharding: " + field + " \"" + name +
                             "\" (raw or gzip)");
}

std::string EncodingName(ShardEncoding encoding) {
  return encoding == ShardEncoding::kGzip ? "gzip" : "raw";
}

std::string Range(std::uint64_t start, std::uint64_t end) {
  std::string text(1, '[');  // Appends: GCC 12 warns falsely on "[" + std::string.
  text += std::to_string(start) + ", " + std::to_string(end) + ")";
  return text;
}

}  // namespace

Result<ShardingSpec> ParseShardingSpec(const json& object, std::string_view where) {
  if (!object.is_object()) return Invalid(where, "must be an object, not " + object.dump());
  const auto type = object.find("@type");
  if (type == object.end() || !type->is_string()) return Invalid(where, "@type is missing");
  if (type->get_ref<const std::string&>() != kShardingType) {
    return Status::Unsupported(std::string(where) + ": sharding @type " + type->dump() +
                               " (only neuroglancer_uint64_sharded_v1)");
  }
  ShardingSpec spec;
  CHUNKWISE_ASSIGN_OR_RETURN(spec.preshift_bits, GetBits(object, "preshift_bits", where, true));
  CHUNKWISE_ASSIGN_OR_RETURN(spec.minishard_bits, GetBits(object, "minishard_bits", where, true));
  CHUNKWISE_ASSIGN_OR_RETURN(spec.shard_bits, GetBits(object, "shard_bits", where, true));
  if (spec.minishard_bits > kMaxMinishardBits) {
    return Invalid(where, "minishard_bits " + std::to_string(spec.minishard_bits) +
                              " makes a shard index larger than 64 GiB");
  }
  if (spec.minishard_bits + spec.shard_bits > 64) {
    return Invalid(where, "minishard_bits + shard_bits exceed 64");
  }
  const auto hash = object.find("hash");
  if (hash == object.end() || !hash->is_string()) return Invalid(where, "hash is missing");
  if (*hash == "identity") {
    spec.hash = ShardHash::kIdentity;
  } else if (*hash == "murmurhash3_x86_128") {
    spec.hash = ShardHash::kMurmurHash3X86_128;
  } else {
    return Status::Unsupported(std::string(where) + ": sharding hash " + hash->dump() +
                               " (identity or murmurhash3_x86_128)");
  }
  CHUNKWISE_ASSIGN_OR_RETURN(spec.minishard_index_encoding,
                             GetEncoding(object, "minishard_index_encoding", where));
  CHUNKWISE_ASSIGN_OR_RETURN(spec.data_encoding, GetEncoding(object, "data_encoding", where));
  return spec;
}

json ShardingSpecToJson(const ShardingSpec& spec) {
  return {{"@type", kShardingType},
          {"preshift_bits", spec.preshift_bits},
          {"hash", spec.hash == ShardHash::kIdentity ? "identity" : "murmurhash3_x86_128"},
          {"minishard_bits", spec.minishard_bits},
          {"shard_bits", spec.shard_bits},
          {"minishard_index_encoding", EncodingName(spec.minishard_index_encoding)},
          {"data_encoding", EncodingName(spec.data_encoding)}};
}

std::uint64_t HashedChunkId(const ShardingSpec& spec, std::uint64_t chunk_id) {
  const std::uint64_t shifted = spec.preshift_bits >= 64 ? 0 : chunk_id >> spec.preshift_bits;
  return spec.hash == ShardHash::kIdentity ? shifted : core::MurmurHash3X86_128Uint64(shifted);
}

ChunkShard LocateChunk(const ShardingSpec& spec, std::uint64_t chunk_id) {
  const std::uint64_t hashed = HashedChunkId(spec, chunk_id);
  const auto low_bits = [](std::uint64_t value, int bits) {
    return bits >= 64 ? value : value & ((std::uint64_t{1} << bits) - 1);
  };
  const std::uint64_t above_minishard =
      spec.minishard_bits >= 64 ? 0 : hashed >> spec.minishard_bits;
  return {low_bits(above_minishard, spec.shard_bits), low_bits(hashed, spec.minishard_bits)};
}

std::string ShardFileName(const ShardingSpec& spec, std::uint64_t shard) {
  char hex[32];
  const int digits = (spec.shard_bits + 3) / 4;
  std::snprintf(hex, sizeof(hex), "%0*llx", digits, static_cast<unsigned long long>(shard));
  return std::string(hex) + ".shard";
}

Result<std::vector<MinishardSpan>> ParseShardIndex(ByteView index, const ShardingSpec& spec,
                                                   std::uint64_t shard_size,
                                                   std::string_view name) {
  const std::uint64_t index_size = spec.shard_index_size();
  if (index.size() != index_size || shard_size < index_size) {
    return Status::Corruption(std::string(name) + ": the shard is truncated: its " +
                              std::to_string(shard_size) + " bytes cannot hold the " +
                              std::to_string(index_size) + "-byte shard index");
  }
  std::vector<MinishardSpan> spans(spec.num_minishards());
  for (std::uint64_t m = 0; m < spans.size(); ++m) {
    const std::uint64_t start = LoadLittleEndian<std::uint64_t>(index.data() + 16 * m);
    const std::uint64_t end = LoadLittleEndian<std::uint64_t>(index.data() + 16 * m + 8);
    if (start > end || end > shard_size - index_size) {
      return Status::Corruption(std::string(name) + ": minishard " + std::to_string(m) +
                                "'s index at " + Range(start, end) +
                                " (after the shard index) lies past the end of the " +
                                std::to_string(shard_size) + "-byte shard");
    }
    spans[m] = {index_size + start, index_size + end};
  }
  return spans;
}

Result<std::vector<MinishardEntry>> ParseMinishardIndex(ByteView decoded, const ShardingSpec& spec,
                                                        std::uint64_t shard_size,
                                                        std::uint64_t minishard,
                                                        std::string_view name) {
  const std::string where = std::string(name) + ": minishard " + std::to_string(minishard);
  if (decoded.size() % kEntryBytes != 0) {
    return Status::Corruption(where + ": its index has " + std::to_string(decoded.size()) +
                              " bytes, not a multiple of 24");
  }
  const std::uint64_t n = decoded.size() / kEntryBytes;
  const auto value = [&](std::uint64_t row, std::uint64_t i) {
    return LoadLittleEndian<std::uint64_t>(decoded.data() + 8 * (row * n + i));
  };
  std::vector<MinishardEntry> entries(n);
  std::uint64_t id = 0;
  std::uint64_t end = spec.shard_index_size();  // Offsets count from the end of the shard index.
  for (std::uint64_t i = 0; i < n; ++i) {
    const std::uint64_t id_delta = value(0, i);
    const std::uint64_t offset_delta = value(1, i);
    const std::uint64_t size = value(2, i);
    if (i > 0 && id_delta > ~std::uint64_t{0} - id) {
      return Status::Corruption(where + ": chunk id " + std::to_string(i) + " overflows");
    }
    id += id_delta;
    if (offset_delta > shard_size || end > shard_size - offset_delta ||
        size > shard_size - (end + offset_delta)) {
      return Status::Corruption(where + ": chunk " + std::to_string(id) + " at offset delta " +
                                std::to_string(offset_delta) + ", " + std::to_string(size) +
                                " bytes, lies past the end of the " + std::to_string(shard_size) +
                                "-byte shard");
    }
    // A reader looks a chunk up in the minishard its id hashes to: an entry
    // filed under another is never found, and the chunk it stands for reads as fill.
    if (const std::uint64_t home = LocateChunk(spec, id).minishard; home != minishard) {
      return Status::Corruption(where + ": chunk " + std::to_string(id) + " belongs to minishard " +
                                std::to_string(home));
    }
    const std::uint64_t start = end + offset_delta;
    entries[i] = {id, start, size};
    end = start + size;
  }
  return entries;
}

Result<std::vector<MinishardEntry>> DecodeMinishardIndex(ByteView stored, const ShardingSpec& spec,
                                                         std::uint64_t shard_size,
                                                         std::uint64_t minishard,
                                                         std::string_view name) {
  if (spec.minishard_index_encoding == ShardEncoding::kRaw) {
    return ParseMinishardIndex(stored, spec, shard_size, minishard, name);
  }
  CHUNKWISE_ASSIGN_OR_RETURN(auto gzip, codec::GzipCodec::Create(kMinishardGzipLevel));
  // Every chunk takes at least one byte of the shard, so an index of more
  // than shard_size entries cannot be valid.
  const std::uint64_t limit = std::min<std::uint64_t>(kEntryBytes * (shard_size + 1), 1ULL << 32);
  Result<Bytes> decoded = gzip->Decode(stored, limit);
  if (!decoded.ok()) {
    return Status::Corruption(
        std::string(name) + ": minishard " + std::to_string(minishard) +
        ": its gzip index does not decode: " + std::string(decoded.status().message()));
  }
  return ParseMinishardIndex(*decoded, spec, shard_size, minishard, name);
}

Result<ShardImage> BuildShard(std::vector<ShardChunk> chunks, const ShardingSpec& spec) {
  return BuildShardWithPrefixes(std::move(chunks), {}, spec);
}

Result<ShardImage> BuildShardWithPrefixes(std::vector<ShardChunk> chunks,
                                          const std::vector<ByteView>& prefixes,
                                          const ShardingSpec& spec) {
  ShardImage image;
  if (chunks.empty()) return Status::InvalidArgument("precomputed: a shard needs a chunk");
  const std::uint64_t shard = LocateChunk(spec, chunks.front().chunk_id).shard;
  // (minishard, id) order: each minishard's chunks lie together, in id order.
  std::vector<std::pair<std::uint64_t, std::size_t>> order(chunks.size());
  for (std::size_t i = 0; i < chunks.size(); ++i) {
    const ChunkShard where = LocateChunk(spec, chunks[i].chunk_id);
    if (where.shard != shard) {
      return Status::InvalidArgument("precomputed: chunk " + std::to_string(chunks[i].chunk_id) +
                                     " belongs to shard " + std::to_string(where.shard) + ", not " +
                                     std::to_string(shard));
    }
    order[i] = {where.minishard, i};
  }
  std::sort(order.begin(), order.end(), [&](const auto& a, const auto& b) {
    return a.first != b.first ? a.first < b.first
                              : chunks[a.second].chunk_id < chunks[b.second].chunk_id;
  });
  std::shared_ptr<const codec::GzipCodec> gzip;
  if (spec.minishard_index_encoding == ShardEncoding::kGzip) {
    CHUNKWISE_ASSIGN_OR_RETURN(gzip, codec::GzipCodec::Create(kMinishardGzipLevel));
  }
  // The parts view the buffers, which stay put when `owned` grows; the
  // shard index is reached through owned[0] for the same reason.
  image.owned.emplace_back(spec.shard_index_size(), 0);
  image.parts.push_back(image.owned[0]);
  image.size = spec.shard_index_size();
  const std::uint64_t index_end = spec.shard_index_size();
  for (std::size_t begin = 0; begin < order.size();) {
    const std::uint64_t minishard = order[begin].first;
    std::size_t end = begin;
    while (end < order.size() && order[end].first == minishard) ++end;
    const std::uint64_t n = end - begin;
    Bytes index(kEntryBytes * n);
    std::uint64_t previous_id = 0;
    std::uint64_t previous_end = index_end;
    for (std::uint64_t i = 0; i < n; ++i) {
      const std::size_t at = order[begin + i].second;
      const ShardChunk& chunk = chunks[at];
      if (i > 0 && chunk.chunk_id == previous_id) {
        return Status::InvalidArgument("precomputed: chunk " + std::to_string(chunk.chunk_id) +
                                       " is given twice for one shard");
      }
      if (at < prefixes.size() && !prefixes[at].empty()) {
        image.parts.push_back(prefixes[at]);
        image.size += prefixes[at].size();
      }
      StoreLittleEndian(chunk.chunk_id - previous_id, index.data() + 8 * i);
      StoreLittleEndian(image.size - previous_end, index.data() + 8 * (n + i));
      StoreLittleEndian<std::uint64_t>(chunk.data.size(), index.data() + 8 * (2 * n + i));
      image.parts.push_back(chunk.data);
      previous_id = chunk.chunk_id;
      image.size += chunk.data.size();
      previous_end = image.size;
    }
    if (gzip != nullptr) {
      CHUNKWISE_ASSIGN_OR_RETURN(index, gzip->Encode(index));
    }
    StoreLittleEndian(image.size - index_end, image.owned[0].data() + 16 * minishard);
    image.size += index.size();
    StoreLittleEndian(image.size - index_end, image.owned[0].data() + 16 * minishard + 8);
    image.owned.push_back(std::move(index));
    image.parts.push_back(image.owned.back());
    begin = end;
  }
  return image;
}

}  // namespace chunkwise::formats::precomputed
