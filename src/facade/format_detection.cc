#include "chunkwise/facade/format_detection.h"

#include <optional>

#include "core/json.h"

namespace chunkwise {
namespace {

// The value at `key` parsed as JSON, or nullopt when absent.
Result<std::optional<nlohmann::json>> ReadJson(const store::Store& store, const std::string& key) {
  CHUNKWISE_ASSIGN_OR_RETURN(const std::optional<Bytes> bytes, store.Get(key));
  if (!bytes) return std::optional<nlohmann::json>();
  CHUNKWISE_ASSIGN_OR_RETURN(
      nlohmann::json json,
      core::ParseJson(AsChars(*bytes), store.Describe(key), StatusCode::kCorruption));
  return std::optional<nlohmann::json>(std::move(json));
}

Result<std::optional<FormatKind>> DetectZarrV3(const store::Store& store, const std::string& key) {
  CHUNKWISE_ASSIGN_OR_RETURN(const std::optional<nlohmann::json> json, ReadJson(store, key));
  if (!json) return std::optional<FormatKind>();
  const std::string node_type =
      json->is_object() ? json->value("node_type", std::string()) : std::string();
  if (node_type == "array") return std::optional(FormatKind::kZarrV3Array);
  if (node_type != "group") {
    return Status::Corruption(store.Describe(key) +
                              ": node_type is neither \"array\" nor \"group\"");
  }
  const nlohmann::json attributes = json->value("attributes", nlohmann::json::object());
  if (attributes.is_object() && attributes.contains("zarr_vectors")) {
    return std::optional(FormatKind::kZarrVectors);
  }
  return std::optional(FormatKind::kZarrV3Group);
}

// An info value: a DVID export (export.log, or .arrow shards under its first
// scale) or a neuroglancer precomputed volume.
Result<std::optional<FormatKind>> DetectInfo(const store::Store& store, const std::string& prefix) {
  CHUNKWISE_ASSIGN_OR_RETURN(const std::optional<nlohmann::json> info,
                             ReadJson(store, prefix + "info"));
  if (!info) return std::optional<FormatKind>();
  const bool volume = info->is_object() &&
                      (info->value("@type", std::string()) == "neuroglancer_multiscale_volume" ||
                       (info->contains("scales") && (*info)["scales"].is_array()));
  if (!volume) return std::optional<FormatKind>();
  CHUNKWISE_ASSIGN_OR_RETURN(const bool log, store.Exists(prefix + "export.log"));
  if (log) return std::optional(FormatKind::kDvidExport);
  const nlohmann::json& scales = (*info)["scales"];
  if (!scales.empty() && scales[0].is_object() && scales[0].contains("key") &&
      scales[0]["key"].is_string()) {
    CHUNKWISE_ASSIGN_OR_RETURN(const std::vector<std::string> keys,
                               store.List(prefix + scales[0]["key"].get<std::string>() + "/"));
    for (const std::string& key : keys) {
      if (key.ends_with(".arrow")) return std::optional(FormatKind::kDvidExport);
    }
  }
  return std::optional(FormatKind::kPrecomputed);
}

// A JSON value that is a reference set: {"version": 1, "refs": {…}}, or v0's
// flat object whose metadata keys hold JSON text.
bool IsReferenceJson(const nlohmann::json& json) {
  if (!json.is_object()) return false;
  if (json.contains("refs") && json["refs"].is_object()) return true;
  for (const char* key : {".zgroup", ".zarray", ".zattrs"}) {
    if (json.contains(key) && (json[key].is_string() || json[key].is_array())) return true;
  }
  return false;
}

// The format of the single value `key` (the prefix named a value).
Result<std::optional<DetectedFormat>> DetectValue(const store::Store& store,
                                                  const std::string& key) {
  // A directory where a value would be reads as absent or as an error naming
  // it, depending on the store: either way the prefix is not a value.
  const Result<bool> exists = store.Exists(key);
  if (!exists.ok() || !*exists) return std::optional<DetectedFormat>();
  if (key.ends_with(".arrow")) return std::optional(DetectedFormat{FormatKind::kArrowShard, key});
  // A value that is not JSON is no reference set either: say so below.
  const Result<std::optional<nlohmann::json>> json = ReadJson(store, key);
  if (json.ok() && *json && IsReferenceJson(**json)) {
    return std::optional(DetectedFormat{FormatKind::kReferencesJson, key});
  }
  return Status::InvalidArgument(store.Describe(key) +
                                 ": a value that is neither an Arrow shard nor a reference set");
}

}  // namespace

std::string_view FormatName(FormatKind kind) {
  switch (kind) {
    case FormatKind::kZarrV3Array:
      return "zarr v3 array";
    case FormatKind::kZarrV3Group:
      return "zarr v3 group";
    case FormatKind::kZarrVectors:
      return "zarr-vectors store";
    case FormatKind::kZarrV2Array:
      return "zarr v2 array";
    case FormatKind::kZarrV2Group:
      return "zarr v2 group";
    case FormatKind::kPrecomputed:
      return "neuroglancer precomputed volume";
    case FormatKind::kDvidExport:
      return "DVID export shards";
    case FormatKind::kArrowShard:
      return "Arrow export shard";
    case FormatKind::kReferencesJson:
      return "kerchunk JSON reference set";
    case FormatKind::kReferencesParquet:
      return "kerchunk Parquet reference set";
    case FormatKind::kBcolzCarray:
      return "bcolz carray";
    case FormatKind::kBcolzCtable:
      return "bcolz ctable";
  }
  return "unknown";
}

Result<DetectedFormat> DetectFormat(const store::Store& store, std::string_view prefix_view) {
  std::string prefix(prefix_view);
  if (!prefix.empty() && !prefix.ends_with('/')) {
    CHUNKWISE_ASSIGN_OR_RETURN(const std::optional<DetectedFormat> value,
                               DetectValue(store, prefix));
    if (value) return *value;
    prefix += '/';
  }
  const std::string v3_key = prefix + "zarr.json";
  CHUNKWISE_ASSIGN_OR_RETURN(const std::optional<FormatKind> v3, DetectZarrV3(store, v3_key));
  if (v3) return DetectedFormat{*v3, v3_key};
  // A Parquet reference set's .zmetadata carries record_size; a consolidated
  // zarr v2 group's does not (and has a .zgroup beside it).
  const std::string consolidated_key = prefix + ".zmetadata";
  CHUNKWISE_ASSIGN_OR_RETURN(const std::optional<nlohmann::json> consolidated,
                             ReadJson(store, consolidated_key));
  if (consolidated && consolidated->is_object() && consolidated->contains("record_size")) {
    return DetectedFormat{FormatKind::kReferencesParquet, consolidated_key};
  }
  for (const auto& [name, kind] : {std::pair{".zarray", FormatKind::kZarrV2Array},
                                   std::pair{".zgroup", FormatKind::kZarrV2Group},
                                   std::pair{".zmetadata", FormatKind::kZarrV2Group},
                                   std::pair{"meta/storage", FormatKind::kBcolzCarray},
                                   std::pair{"__rootdirs__", FormatKind::kBcolzCtable}}) {
    CHUNKWISE_ASSIGN_OR_RETURN(const bool exists, store.Exists(prefix + name));
    if (exists) return DetectedFormat{kind, prefix + name};
  }
  CHUNKWISE_ASSIGN_OR_RETURN(const std::optional<FormatKind> info, DetectInfo(store, prefix));
  if (info) return DetectedFormat{*info, prefix + "info"};
  CHUNKWISE_ASSIGN_OR_RETURN(const std::vector<std::string> keys, store.List(prefix));
  if (keys.empty()) {
    return Status::NotFound(store.Describe(prefix) + ": nothing is stored there");
  }
  // Arrow shards without an info (a directory of shards copied out of an export).
  for (const std::string& key : keys) {
    if (key.ends_with(".arrow")) return DetectedFormat{FormatKind::kDvidExport, key};
  }
  return Status::InvalidArgument(
      store.Describe(prefix) +
      ": holds keys but no zarr, precomputed, export, reference or bcolz metadata");
}

}  // namespace chunkwise
