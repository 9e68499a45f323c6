#include "pipelines/export_spec.h"

#include <algorithm>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "core/json.h"
#include "core/murmurhash3.h"

namespace chunkwise::pipelines {
namespace {

using nlohmann::json;

constexpr std::string_view kShardingType = "neuroglancer_uint64_sharded_v1";

struct Context {
  std::string_view name;  // The file, for messages.
  Status Error(const std::string& where, const std::string& what) const {
    return Status::InvalidArgument(std::string(name) + ": " + where + ": " + what);
  }
};

Result<std::int64_t> GetInt(const json& object, const char* field, const std::string& where,
                            const Context& context) {
  const auto it = object.find(field);
  if (it == object.end()) return context.Error(where + "." + field, "missing");
  if (!it->is_number_integer()) return context.Error(where + "." + field, "must be an integer");
  return it->get<std::int64_t>();
}

// A field of three integers, e.g. "size" or one entry of "chunk_sizes".
Result<core::GridCoord3> GetTriple(const json& value, const std::string& where,
                                   const Context& context) {
  if (!value.is_array() || value.size() != 3) {
    return context.Error(where, "must be an array of three integers, not " + value.dump());
  }
  core::GridCoord3 out{};
  for (int d = 0; d < 3; ++d) {
    if (!value[d].is_number_integer()) {
      return context.Error(where, "must be an array of three integers, not " + value.dump());
    }
    out[d] = value[d].get<core::Index>();
  }
  return out;
}

Result<ShardingSpec> ParseSharding(const json& scale, const std::string& where,
                                   const Context& context) {
  const auto it = scale.find("sharding");
  if (it == scale.end() || !it->is_object()) {
    return context.Error(where + ".sharding", "missing: export-shards writes sharded scales only");
  }
  const json& sharding = *it;
  const auto type = sharding.find("@type");
  if (type == sharding.end() || !type->is_string() || type->get<std::string>() != kShardingType) {
    return Status::Unsupported(std::string(context.name) + ": " + where + ".sharding.@type: " +
                               (type == sharding.end() ? "missing" : type->dump()) +
                               " is not supported (only \"" + std::string(kShardingType) + "\")");
  }
  ShardingSpec spec;
  const auto hash = sharding.find("hash");
  const std::string hash_name =
      hash != sharding.end() && hash->is_string() ? hash->get<std::string>() : "";
  if (hash_name == "identity") {
    spec.hash = ShardHash::kIdentity;
  } else if (hash_name == "murmurhash3_x86_128") {
    spec.hash = ShardHash::kMurmurHash3X86_128;
  } else {
    return Status::Unsupported(std::string(context.name) + ": " + where + ".sharding.hash: " +
                               (hash == sharding.end() ? std::string("missing") : hash->dump()) +
                               " is not supported (identity or murmurhash3_x86_128)");
  }
  int* const targets[3] = {&spec.preshift_bits, &spec.minishard_bits, &spec.shard_bits};
  const char* const names[3] = {"preshift_bits", "minishard_bits", "shard_bits"};
  for (int i = 0; i < 3; ++i) {
    CHUNKWISE_ASSIGN_OR_RETURN(const std::int64_t bits,
                               GetInt(sharding, names[i], where + ".sharding", context));
    if (bits < 0 || bits > 64) {
      return context.Error(where + ".sharding." + names[i],
                           "must be 0..64, not " + std::to_string(bits));
    }
    *targets[i] = static_cast<int>(bits);
  }
  if (spec.preshift_bits + spec.minishard_bits + spec.shard_bits > 64) {
    return context.Error(where + ".sharding",
                         "preshift_bits + minishard_bits + shard_bits must not pass 64");
  }
  return spec;
}

Status CheckChunkSizes(const json& scale, const std::string& where, const Context& context) {
  const auto it = scale.find("chunk_sizes");
  if (it == scale.end() || !it->is_array() || it->empty()) {
    return context.Error(where + ".chunk_sizes", "missing; must be [[64,64,64]]");
  }
  for (const json& entry : *it) {
    CHUNKWISE_ASSIGN_OR_RETURN(const core::GridCoord3 chunk,
                               GetTriple(entry, where + ".chunk_sizes", context));
    if (chunk != core::GridCoord3{kExportChunkEdge, kExportChunkEdge, kExportChunkEdge}) {
      return context.Error(where + ".chunk_sizes",
                           entry.dump() +
                               " is not supported: export-shards writes DVID's "
                               "64x64x64 blocks, so chunk_sizes must be [[64,64,64]]");
    }
  }
  return Status::Ok();
}

Result<ExportScaleSpec> ParseScale(const json& scale, int index, const Context& context) {
  std::string where = "scales[";
  where += std::to_string(index);
  where += ']';
  if (!scale.is_object()) return context.Error(where, "must be an object");
  ExportScaleSpec spec;
  const auto key = scale.find("key");
  if (key != scale.end() && key->is_string()) {
    spec.key = key->get<std::string>();
  } else {
    spec.key = std::to_string(index);
    spec.key.insert(spec.key.begin(), 's');
  }
  const auto size = scale.find("size");
  if (size == scale.end()) return context.Error(where + ".size", "missing");
  CHUNKWISE_ASSIGN_OR_RETURN(spec.size, GetTriple(*size, where + ".size", context));
  for (const core::Index extent : spec.size) {
    if (extent <= 0 || extent > (core::Index{1} << 40)) {
      return context.Error(where + ".size", "extents must be 1..2^40, not " + size->dump());
    }
  }
  CHUNKWISE_RETURN_IF_ERROR(CheckChunkSizes(scale, where, context));
  const auto offset = scale.find("voxel_offset");
  if (offset != scale.end()) {
    CHUNKWISE_ASSIGN_OR_RETURN(const core::GridCoord3 voxel_offset,
                               GetTriple(*offset, where + ".voxel_offset", context));
    if (voxel_offset != core::GridCoord3{0, 0, 0}) {
      return context.Error(where + ".voxel_offset", "must be [0,0,0] (DVID volumes start at 0)");
    }
  }
  CHUNKWISE_ASSIGN_OR_RETURN(spec.sharding, ParseSharding(scale, where, context));
  core::GridCoord3 grid{};
  for (int d = 0; d < 3; ++d) grid[d] = (spec.size[d] + kExportChunkEdge - 1) / kExportChunkEdge;
  CHUNKWISE_ASSIGN_OR_RETURN(spec.bits, core::MortonBits::FromGrid(grid));
  const ShardingSpec& s = spec.sharding;
  spec.shards_are_boxes =
      s.hash == ShardHash::kIdentity &&
      spec.bits.total_bits() <= s.preshift_bits + s.minishard_bits + s.shard_bits;
  if (spec.shards_are_boxes) {
    spec.shard_chunks = core::ShardChunkExtent(spec.bits, s.preshift_bits + s.minishard_bits);
  }
  return spec;
}

}  // namespace

std::uint64_t ExportScaleSpec::ShardOf(const core::GridCoord3& xyz) const {
  const std::uint64_t morton = core::CompressedMortonCode(xyz, bits);
  const std::uint64_t key = sharding.preshift_bits >= 64 ? 0 : morton >> sharding.preshift_bits;
  const std::uint64_t hash =
      sharding.hash == ShardHash::kIdentity ? key : core::MurmurHash3X86_128Uint64(key);
  const std::uint64_t shifted = sharding.minishard_bits >= 64 ? 0 : hash >> sharding.minishard_bits;
  const std::uint64_t mask =
      sharding.shard_bits >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << sharding.shard_bits) - 1;
  return shifted & mask;
}

std::string ExportScaleSpec::ShardStem(const core::GridCoord3& xyz) const {
  if (shards_are_boxes) {
    std::string stem;
    for (int d = 0; d < 3; ++d) {
      const core::Index origin = xyz[d] / shard_chunks[d] * shard_chunks[d] * kExportChunkEdge;
      if (d != 0) stem += '_';
      stem += std::to_string(origin);
    }
    return stem;
  }
  char hex[17];
  std::snprintf(hex, sizeof(hex), "%llx", static_cast<unsigned long long>(ShardOf(xyz)));
  const std::size_t width = static_cast<std::size_t>((sharding.shard_bits + 3) / 4);
  std::string stem(hex);
  if (stem.size() < width) stem.insert(0, width - stem.size(), '0');
  return stem;
}

std::int64_t ExportScaleSpec::ShardZEnd(const core::GridCoord3& xyz) const {
  if (!shards_are_boxes) return std::numeric_limits<std::int64_t>::max();
  return (xyz[2] / shard_chunks[2] + 1) * shard_chunks[2];
}

bool ExportScaleSpec::InGrid(const core::GridCoord3& xyz) const {
  for (int d = 0; d < 3; ++d) {
    if (xyz[d] < 0 || xyz[d] >= bits.grid[d]) return false;
  }
  return true;
}

Result<ExportSpec> ParseExportSpec(std::string_view text, std::string_view name) {
  const Context context{name};
  CHUNKWISE_ASSIGN_OR_RETURN(const json root, core::ParseJson(text, name));
  if (!root.is_object()) {
    return Status::InvalidArgument(std::string(name) + ": not a JSON object");
  }
  const auto data_type = root.find("data_type");
  if (data_type != root.end() && (!data_type->is_string() || *data_type != "uint64")) {
    return context.Error("data_type", data_type->dump() + " is not supported (uint64 labels)");
  }
  const auto scales = root.find("scales");
  if (scales == root.end() || !scales->is_array() || scales->empty()) {
    return context.Error("scales", "missing or empty");
  }
  ExportSpec spec;
  for (std::size_t i = 0; i < scales->size(); ++i) {
    CHUNKWISE_ASSIGN_OR_RETURN(ExportScaleSpec scale,
                               ParseScale((*scales)[i], static_cast<int>(i), context));
    spec.scales.push_back(std::move(scale));
  }
  spec.info_json = root.dump();
  return spec;
}

Result<std::string> InfoForScales(const ExportSpec& spec, int num_scales) {
  CHUNKWISE_ASSIGN_OR_RETURN(json root, core::ParseJson(spec.info_json, "export spec"));
  if (!root.is_object() || !root.contains("scales") || !root["scales"].is_array()) {
    return Status::InvalidArgument("export spec: info_json is not a spec");
  }
  json& scales = root["scales"];
  const std::size_t keep = static_cast<std::size_t>(std::max(num_scales, 0));
  if (scales.size() > keep)
    scales.erase(scales.begin() + static_cast<std::ptrdiff_t>(keep), scales.end());
  return root.dump(2) + "\n";
}

}  // namespace chunkwise::pipelines
