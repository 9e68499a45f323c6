#include "formats/precomputed/info.h"

#include <algorithm>

#include "core/json.h"

namespace chunkwise::formats::precomputed {
namespace {

using nlohmann::json;

constexpr std::string_view kVolumeType = "neuroglancer_multiscale_volume";
constexpr core::Index kMaxExtent = core::Index{1} << 40;
// Each scale costs a listing and a walk of its own wherever scales are
// visited (info, export, conversion); real volumes have a few dozen. A list
// longer than this is refused before a scale of it is parsed.
constexpr std::size_t kMaxScales = 1024;

struct Context {
  std::string_view name;
  Status Error(const std::string& where, const std::string& what) const {
    return Status::InvalidArgument(std::string(name) + ": " + where + ": " + what);
  }
};

Result<GridCoord3> GetTriple(const json& value, const std::string& where, const Context& context) {
  if (!value.is_array() || value.size() != 3) {
    return context.Error(where, "must be an array of three integers, not " + value.dump());
  }
  GridCoord3 out{};
  for (int d = 0; d < 3; ++d) {
    if (!value[d].is_number_integer()) {
      return context.Error(where, "must be an array of three integers, not " + value.dump());
    }
    out[d] = value[d].get<core::Index>();
  }
  return out;
}

Result<GridCoord3> GetPositiveTriple(const json& value, const std::string& where,
                                     const Context& context) {
  CHUNKWISE_ASSIGN_OR_RETURN(const GridCoord3 out, GetTriple(value, where, context));
  for (const core::Index extent : out) {
    if (extent <= 0 || extent > kMaxExtent) {
      return context.Error(where, "extents must be 1..2^40, not " + value.dump());
    }
  }
  return out;
}

// A key neuroglancer resolves below the info's directory, and the store can hold.
Status CheckScaleKey(const std::string& key, const std::string& where, const Context& context) {
  if (key.empty() || key.front() == '/' || key.back() == '/') {
    return context.Error(where, "\"" + key + "\" must be a relative path");
  }
  std::size_t start = 0;
  while (start <= key.size()) {
    const std::size_t end = std::min(key.find('/', start), key.size());
    const std::string_view segment(key.data() + start, end - start);
    if (segment.empty() || segment == "." || segment == "..") {
      std::string message(context.name);
      message += ": " + where + ": \"" + key + "\" has an empty, \".\" or \"..\" segment";
      return Status::Unsupported(message);
    }
    start = end + 1;
  }
  return Status::Ok();
}

Result<ChunkEncoding> ParseEncoding(const json& scale, const std::string& where,
                                    const Context& context) {
  const auto it = scale.find("encoding");
  if (it == scale.end() || !it->is_string()) return context.Error(where, "missing");
  std::string name = it->get<std::string>();
  std::transform(name.begin(), name.end(), name.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (name == "raw") return ChunkEncoding::kRaw;
  if (name == "compressed_segmentation") return ChunkEncoding::kCompressedSegmentation;
  return Status::Unsupported(std::string(context.name) + ": " + where + ": \"" + name +
                             "\" (chunkwise reads raw and compressed_segmentation)");
}

Result<ScaleInfo> ParseScale(const json& scale, const VolumeInfo& volume, std::size_t index,
                             const Context& context) {
  const std::string where = "scales[" + std::to_string(index) + "]";
  if (!scale.is_object()) return context.Error(where, "must be an object");
  ScaleInfo out;
  const auto key = scale.find("key");
  if (key == scale.end() || !key->is_string()) return context.Error(where + ".key", "missing");
  out.key = key->get<std::string>();
  CHUNKWISE_RETURN_IF_ERROR(CheckScaleKey(out.key, where + ".key", context));
  const auto size = scale.find("size");
  if (size == scale.end()) return context.Error(where + ".size", "missing");
  CHUNKWISE_ASSIGN_OR_RETURN(out.size, GetPositiveTriple(*size, where + ".size", context));
  if (const auto offset = scale.find("voxel_offset"); offset != scale.end()) {
    CHUNKWISE_ASSIGN_OR_RETURN(out.voxel_offset,
                               GetTriple(*offset, where + ".voxel_offset", context));
    for (const core::Index o : out.voxel_offset) {
      if (o < -kMaxExtent || o > kMaxExtent) {
        return context.Error(where + ".voxel_offset", "must lie within ±2^40");
      }
    }
  }
  const auto resolution = scale.find("resolution");
  if (resolution == scale.end() || !resolution->is_array() || resolution->size() != 3 ||
      !std::all_of(resolution->begin(), resolution->end(),
                   [](const json& v) { return v.is_number(); })) {
    return context.Error(where + ".resolution", "must be an array of three numbers");
  }
  for (int d = 0; d < 3; ++d) out.resolution[d] = (*resolution)[d].get<double>();
  const auto chunk_sizes = scale.find("chunk_sizes");
  if (chunk_sizes == scale.end() || !chunk_sizes->is_array() || chunk_sizes->empty()) {
    return context.Error(where + ".chunk_sizes", "missing or empty");
  }
  CHUNKWISE_ASSIGN_OR_RETURN(
      out.chunk_size, GetPositiveTriple((*chunk_sizes)[0], where + ".chunk_sizes[0]", context));
  CHUNKWISE_ASSIGN_OR_RETURN(out.encoding, ParseEncoding(scale, where + ".encoding", context));
  if (out.encoding == ChunkEncoding::kCompressedSegmentation) {
    const auto id = volume.data_type.id();
    if (id != core::DataTypeId::kUInt32 && id != core::DataTypeId::kUInt64) {
      return context.Error(where + ".encoding",
                           "compressed_segmentation needs data_type uint32 or uint64");
    }
    const auto block = scale.find("compressed_segmentation_block_size");
    if (block == scale.end()) {
      return context.Error(where + ".compressed_segmentation_block_size", "missing");
    }
    CHUNKWISE_ASSIGN_OR_RETURN(
        out.compressed_segmentation_block_size,
        GetPositiveTriple(*block, where + ".compressed_segmentation_block_size", context));
  }
  if (const auto sharding = scale.find("sharding");
      sharding != scale.end() && !sharding->is_null()) {
    if (chunk_sizes->size() != 1) {
      return context.Error(where + ".chunk_sizes", "a sharded scale has exactly one chunk size");
    }
    CHUNKWISE_ASSIGN_OR_RETURN(
        out.sharding,
        ParseShardingSpec(*sharding, std::string(context.name) + ": " + where + ".sharding"));
    CHUNKWISE_RETURN_IF_ERROR(core::MortonBits::FromGrid(out.grid()).status());
  }
  return out;
}

std::string Range(core::Index begin, core::Index end) {
  return std::to_string(begin) + "-" + std::to_string(end);
}

json Triple(const GridCoord3& v) { return json::array({v[0], v[1], v[2]}); }

}  // namespace

GridCoord3 ScaleInfo::grid() const {
  GridCoord3 g{};
  for (int d = 0; d < 3; ++d) g[d] = (size[d] + chunk_size[d] - 1) / chunk_size[d];
  return g;
}

GridCoord3 ScaleInfo::ChunkExtent(const GridCoord3& g) const {
  GridCoord3 e{};
  for (int d = 0; d < 3; ++d) e[d] = std::min(chunk_size[d], size[d] - g[d] * chunk_size[d]);
  return e;
}

core::MortonBits ScaleInfo::morton_bits() const {
  Result<core::MortonBits> bits = core::MortonBits::FromGrid(grid());
  return bits.ok() ? *bits : core::MortonBits{};
}

std::uint64_t ScaleInfo::ChunkId(const GridCoord3& g) const {
  return core::CompressedMortonCode(g, morton_bits());
}

std::string ScaleInfo::UnshardedChunkKey(const GridCoord3& g) const {
  std::string key = this->key + "/";
  for (int d = 0; d < 3; ++d) {
    const core::Index begin = voxel_offset[d] + g[d] * chunk_size[d];
    if (d > 0) key += '_';
    key += Range(begin, begin + ChunkExtent(g)[d]);
  }
  return key;
}

std::string ScaleInfo::ShardKey(std::uint64_t shard) const {
  return key + "/" + ShardFileName(*sharding, shard);
}

Result<VolumeInfo> ParseVolumeInfo(std::string_view text, std::string_view name) {
  const Context context{name};
  Result<json> parsed = core::ParseJson(text, name);
  if (!parsed.ok() || !parsed->is_object()) {
    return parsed.ok() ? Status::InvalidArgument(std::string(name) + ": not a JSON object")
                       : parsed.status();
  }
  json root = std::move(parsed).value();
  VolumeInfo info;
  if (const auto type = root.find("@type"); type != root.end() && *type != kVolumeType) {
    return Status::Unsupported(std::string(name) + ": @type " + type->dump() +
                               " (a volume's info has \"neuroglancer_multiscale_volume\")");
  }
  const auto type = root.find("type");
  if (type == root.end() || (*type != "image" && *type != "segmentation")) {
    return context.Error("type", "must be \"image\" or \"segmentation\"");
  }
  info.type = *type == "image" ? VolumeType::kImage : VolumeType::kSegmentation;
  const auto data_type = root.find("data_type");
  if (data_type == root.end() || !data_type->is_string()) {
    return context.Error("data_type", "missing");
  }
  Result<core::DataType> dtype = core::DataType::FromZarrName(data_type->get<std::string>());
  if (!dtype.ok() || dtype->id() == core::DataTypeId::kBool ||
      dtype->id() == core::DataTypeId::kFloat16 || dtype->id() == core::DataTypeId::kComplex64 ||
      dtype->id() == core::DataTypeId::kComplex128) {
    return Status::Unsupported(std::string(name) + ": data_type " + data_type->dump());
  }
  info.data_type = *dtype;
  const auto channels = root.find("num_channels");
  if (channels == root.end() || !channels->is_number_integer() || *channels < 1 ||
      *channels > 1 << 16) {
    return context.Error("num_channels", "must be an integer in 1..65536");
  }
  info.num_channels = channels->get<int>();
  const auto scales = root.find("scales");
  if (scales == root.end() || !scales->is_array() || scales->empty()) {
    return context.Error("scales", "missing or empty");
  }
  if (scales->size() > kMaxScales) {
    return Status::Corruption(std::string(name) + ": scales: " + std::to_string(scales->size()) +
                              " scales (at most " + std::to_string(kMaxScales) + ")");
  }
  for (std::size_t i = 0; i < scales->size(); ++i) {
    CHUNKWISE_ASSIGN_OR_RETURN(ScaleInfo scale, ParseScale((*scales)[i], info, i, context));
    info.scales.push_back(std::move(scale));
  }
  for (const char* modelled : {"@type", "type", "data_type", "num_channels", "scales"}) {
    root.erase(modelled);
  }
  info.extra = std::move(root);
  return info;
}

json VolumeInfoToJson(const VolumeInfo& info) {
  json scales = json::array();
  for (const ScaleInfo& scale : info.scales) {
    json s = {{"key", scale.key},
              {"size", Triple(scale.size)},
              {"voxel_offset", Triple(scale.voxel_offset)},
              {"resolution",
               json::array({scale.resolution[0], scale.resolution[1], scale.resolution[2]})},
              {"chunk_sizes", json::array({Triple(scale.chunk_size)})},
              {"encoding", ChunkEncodingName(scale.encoding)}};
    if (scale.encoding == ChunkEncoding::kCompressedSegmentation) {
      s["compressed_segmentation_block_size"] = Triple(scale.compressed_segmentation_block_size);
    }
    if (scale.sharding.has_value()) s["sharding"] = ShardingSpecToJson(*scale.sharding);
    scales.push_back(std::move(s));
  }
  json root = {{"@type", kVolumeType},
               {"type", VolumeTypeName(info.type)},
               {"data_type", info.data_type.zarr_name()},
               {"num_channels", info.num_channels},
               {"scales", std::move(scales)}};
  for (const auto& [key, value] : info.extra.items()) root[key] = value;
  return root;
}

std::string_view VolumeTypeName(VolumeType type) {
  return type == VolumeType::kImage ? "image" : "segmentation";
}

std::string_view ChunkEncodingName(ChunkEncoding encoding) {
  return encoding == ChunkEncoding::kRaw ? "raw" : "compressed_segmentation";
}

}  // namespace chunkwise::formats::precomputed
