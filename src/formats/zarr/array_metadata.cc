#include "formats/zarr/array_metadata.h"

#include <algorithm>
#include <set>
#include <string>

#include "core/json.h"
#include "metadata_json.h"

namespace chunkwise::formats::zarr {
namespace {

using internal::GetShape;

// Extension points a reader must refuse unless marked "must_understand": false.
Status CheckUnknownKeys(const nlohmann::json& root) {
  static const std::set<std::string> kKnown = {
      "zarr_format",        "node_type",  "shape",  "data_type",  "chunk_grid",
      "chunk_key_encoding", "fill_value", "codecs", "attributes", "storage_transformers",
      "dimension_names"};
  for (const auto& [name, value] : root.items()) {
    if (kKnown.contains(name)) continue;
    if (value.is_object() && value.contains("must_understand") &&
        value["must_understand"] == false) {
      continue;
    }
    return Status::Unsupported("unknown metadata key \"" + name +
                               "\" (an extension this library does not understand)");
  }
  return Status::Ok();
}

Result<core::Shape> ParseChunkGrid(const nlohmann::json& grid) {
  if (!grid.is_object() || grid.value("name", nlohmann::json()) != "regular") {
    return Status::Unsupported("chunk_grid " + grid.dump() + " (only \"regular\" is known)");
  }
  if (!grid.contains("configuration") || !grid["configuration"].is_object()) {
    return Status::InvalidArgument("chunk_grid has no configuration");
  }
  return GetShape(grid["configuration"], "chunk_shape");
}

// The configuration field `name` of a parameterized data_type, as an integer.
Result<std::int64_t> ConfigurationInteger(const nlohmann::json& data_type, const char* name) {
  const nlohmann::json configuration = data_type.value("configuration", nlohmann::json());
  if (!configuration.is_object() || !configuration.contains(name) ||
      !configuration[name].is_number_integer()) {
    return Status::InvalidArgument("data_type " + data_type.dump() + " needs an integer \"" + name +
                                   "\" in its configuration");
  }
  return configuration[name].get<std::int64_t>();
}

// A data_type given as {"name": ..., "configuration": ...}: the NumPy types
// zarr-python 3 writes (docs/formats/zarr.md, "Data types and fill values").
// Unsupported for any other name (described by `zarr info`, never read).
Result<core::DataType> DataTypeFromObject(const nlohmann::json& data_type) {
  const nlohmann::json name = data_type.value("name", nlohmann::json());
  if (name == "numpy.datetime64" || name == "numpy.timedelta64") {
    const nlohmann::json configuration = data_type.value("configuration", nlohmann::json());
    if (!configuration.is_object() || !configuration.value("unit", nlohmann::json()).is_string()) {
      return Status::InvalidArgument("data_type " + data_type.dump() +
                                     " needs a \"unit\" in its configuration");
    }
    CHUNKWISE_ASSIGN_OR_RETURN(const std::int64_t scale,
                               ConfigurationInteger(data_type, "scale_factor"));
    return core::DataType::DateTime(
        name == "numpy.datetime64" ? core::DataTypeId::kDateTime64 : core::DataTypeId::kTimeDelta64,
        configuration["unit"].get<std::string>(), scale);
  }
  if (name == "null_terminated_bytes" || name == "fixed_length_utf32") {
    CHUNKWISE_ASSIGN_OR_RETURN(const std::int64_t bytes,
                               ConfigurationInteger(data_type, "length_bytes"));
    if (name == "null_terminated_bytes") {
      return core::DataType::FixedString(core::DataTypeId::kFixedBytes, bytes);
    }
    if (bytes % 4 != 0) {
      return Status::InvalidArgument("data_type " + data_type.dump() +
                                     ": length_bytes is not a multiple of 4");
    }
    return core::DataType::FixedString(core::DataTypeId::kFixedUnicode, bytes / 4);
  }
  return Status::Unsupported("extension data type");
}

// The data_type JSON of `type`: its name, or the object of a parameterized type.
nlohmann::ordered_json DataTypeToJson(core::DataType type) {
  if (type.is_numeric()) return type.zarr_name();
  nlohmann::ordered_json configuration;
  if (type.is_datetime()) {
    configuration["unit"] = type.datetime_unit();
    configuration["scale_factor"] = type.scale_factor();
  } else {
    configuration["length_bytes"] = type.size();
  }
  nlohmann::ordered_json json;
  json["name"] = type.zarr_name();
  json["configuration"] = std::move(configuration);
  return json;
}

Status ParseOptionalFields(const nlohmann::json& root, ArrayMetadata& metadata) {
  if (root.contains("attributes")) {
    if (!root["attributes"].is_object()) {
      return Status::InvalidArgument("\"attributes\" must be an object");
    }
    metadata.attributes = root["attributes"];
  }
  if (root.contains("storage_transformers")) {
    const nlohmann::json& transformers = root["storage_transformers"];
    if (!transformers.is_array()) {
      return Status::InvalidArgument("\"storage_transformers\" must be a list");
    }
    if (!transformers.empty()) {
      return Status::Unsupported("storage_transformers " + transformers.dump());
    }
  }
  if (root.contains("dimension_names") && !root["dimension_names"].is_null()) {
    metadata.dimension_names = root["dimension_names"];
  }
  return Status::Ok();
}

Result<ArrayMetadata> ParseV3Root(const nlohmann::json& root) {
  if (!root.is_object()) return Status::InvalidArgument("metadata is not a JSON object");
  if (root.value("zarr_format", nlohmann::json()) != 3) {
    return Status::InvalidArgument("\"zarr_format\" is not 3");
  }
  if (root.value("node_type", nlohmann::json()) != "array") {
    return Status::Unsupported("the node is not an array (node_type " +
                               root.value("node_type", nlohmann::json()).dump() + ")");
  }
  CHUNKWISE_RETURN_IF_ERROR(CheckUnknownKeys(root));
  for (const char* required :
       {"shape", "data_type", "chunk_grid", "chunk_key_encoding", "fill_value", "codecs"}) {
    if (!root.contains(required)) {
      return Status::InvalidArgument(std::string("missing \"") + required + "\"");
    }
  }
  ArrayMetadata metadata;
  CHUNKWISE_ASSIGN_OR_RETURN(metadata.shape, GetShape(root, "shape"));
  const nlohmann::json& data_type = root["data_type"];
  if (!data_type.is_string() && !data_type.is_object()) {
    return Status::InvalidArgument("\"data_type\" must be a name or an object, got " +
                                   data_type.dump());
  }
  Result<core::DataType> type = data_type.is_string()
                                    ? core::DataType::FromZarrName(data_type.get<std::string>())
                                    : DataTypeFromObject(data_type);
  if (!type.ok() && type.status().code() == StatusCode::kInvalidArgument && data_type.is_object()) {
    return type.status();  // A known type with a malformed configuration.
  }
  if (type.ok()) {
    metadata.data_type = *type;
  } else {  // "string", "bytes", extensions: described, never read.
    metadata.unsupported_data_type =
        data_type.is_string() ? data_type.get<std::string>() : data_type.dump();
  }
  CHUNKWISE_ASSIGN_OR_RETURN(metadata.chunk_shape, ParseChunkGrid(root["chunk_grid"]));
  CHUNKWISE_ASSIGN_OR_RETURN(metadata.chunk_key_encoding,
                             ChunkKeyEncoding::FromJson(root["chunk_key_encoding"]));
  if (metadata.unsupported_data_type.empty()) {
    CHUNKWISE_ASSIGN_OR_RETURN(metadata.fill_value,
                               ParseFillValue(root["fill_value"], metadata.data_type));
  } else {
    metadata.fill_value.assign(metadata.data_type.size(), 0);
  }
  if (!root["codecs"].is_array() || root["codecs"].empty()) {
    return Status::InvalidArgument("\"codecs\" must be a non-empty list");
  }
  metadata.codecs = root["codecs"];
  CHUNKWISE_RETURN_IF_ERROR(ParseOptionalFields(root, metadata));
  CHUNKWISE_RETURN_IF_ERROR(metadata.Validate());
  return metadata;
}

}  // namespace

std::string ArrayMetadata::data_type_name() const {
  if (!unsupported_data_type.empty()) return unsupported_data_type;
  // A parameterized type's v3 name alone hides its unit or length.
  if (!data_type.is_numeric()) return data_type.numpy_typestr();
  return std::string(data_type.zarr_name());
}

Status ArrayMetadata::Validate() const {
  if (chunk_shape.size() != shape.size()) {
    return Status::InvalidArgument("chunk shape [" + core::FormatShape(chunk_shape) +
                                   "] has a different rank from shape [" +
                                   core::FormatShape(shape) + "]");
  }
  for (core::Index extent : chunk_shape) {
    if (extent <= 0) {
      return Status::InvalidArgument("chunk shape [" + core::FormatShape(chunk_shape) +
                                     "] has an extent that is not positive");
    }
  }
  CHUNKWISE_RETURN_IF_ERROR(core::NumElements(shape).status());
  CHUNKWISE_RETURN_IF_ERROR(core::NumElements(chunk_shape).status());
  if (fill_value.size() != data_type.size()) {
    return Status::InvalidArgument("fill value has " + std::to_string(fill_value.size()) +
                                   " bytes, the data type needs " +
                                   std::to_string(data_type.size()));
  }
  if (dimension_names) {
    if (!dimension_names->is_array() || dimension_names->size() != shape.size()) {
      return Status::InvalidArgument("dimension_names " + dimension_names->dump() +
                                     " must list one name per dimension (" +
                                     std::to_string(shape.size()) + ")");
    }
    for (const auto& name : *dimension_names) {
      if (!name.is_string() && !name.is_null()) {
        return Status::InvalidArgument("dimension_names entries must be strings or null");
      }
    }
  }
  return Status::Ok();
}

Result<nlohmann::json> ParseJsonDocument(std::string_view text, std::string_view key) {
  // Stored bytes that are not JSON are damage, as group.cc and `zarr info`
  // have always said: one code for the same fault from every door (#38).
  return core::ParseJson(text, key, StatusCode::kCorruption);
}

Result<bool> HoldsZarrNode(const store::Store& store, std::string_view prefix) {
  for (const std::string_view name : {kZarrJsonKey, kZarrayKey, kZgroupKey}) {
    CHUNKWISE_ASSIGN_OR_RETURN(const bool exists,
                               store.Exists(std::string(prefix) + std::string(name)));
    if (exists) return true;
  }
  return false;
}

std::string DescribePrefix(const store::Store& store, std::string_view prefix) {
  std::string where = store.Describe(std::string(prefix) + std::string(kZarrJsonKey));
  where.resize(where.size() - kZarrJsonKey.size());
  if (where.size() > 1 && where.back() == '/') where.pop_back();
  return where;
}

Status ClearForOverwrite(store::Store& store, std::string_view prefix, bool overwrite,
                         std::string_view where) {
  CHUNKWISE_ASSIGN_OR_RETURN(std::vector<std::string> keys, store.List(prefix));
  if (keys.empty()) return Status::Ok();
  const std::string count = std::to_string(keys.size()) + " keys";
  const std::string marker = std::string(prefix) + std::string(kIncompleteMarkerKey);
  if (!overwrite) {
    // A marker holding metadata is an array begun by CreateUnpublished whose
    // writer stopped before Publish: say so, for it can be finished.
    CHUNKWISE_ASSIGN_OR_RETURN(const std::optional<Bytes> begun, store.Get(marker));
    if (begun.has_value() && !begun->empty()) {
      return Status::InvalidArgument(
                 std::string(where) + " already holds " + count + " of an unfinished array (" +
                 store.Describe(marker) +
                 "): a write that stopped before it published the metadata; resume it with the "
                 "same "
                 "input and layout (resume not requested) or replace it (overwrite not requested)")
          .WithField("resume");
    }
    return Status::InvalidArgument(std::string(where) + " already holds " + count +
                                   " (overwrite not requested)")
        .WithField("overwrite");
  }
  // The incomplete marker says the keys are ours though no metadata is there:
  // an array not yet published (CreateUnpublished), or a replacement killed
  // while erasing, which sets it first.
  CHUNKWISE_ASSIGN_OR_RETURN(const bool zarr, HoldsZarrNode(store, prefix));
  CHUNKWISE_ASSIGN_OR_RETURN(const bool incomplete, store.Exists(marker));
  if (!zarr && !incomplete) {
    return Status::InvalidArgument(std::string(where) + " holds " + count +
                                   " but no zarr.json, .zarray or .zgroup: it is not a zarr "
                                   "array or group, so it is not replaced");
  }
  CHUNKWISE_RETURN_IF_ERROR(store.Set(marker, ByteView()));
  // The metadata goes first (zarr.json sorts after c/...), shallowest first,
  // so that a writer killed while erasing never leaves a node whose chunks
  // or members are gone: the root's metadata is the first key erased.
  const auto depth = [](const std::string& key) { return std::count(key.begin(), key.end(), '/'); };
  std::stable_sort(keys.begin(), keys.end(),
                   [&](const std::string& a, const std::string& b) { return depth(a) < depth(b); });
  for (const bool metadata : {true, false}) {
    for (const std::string& key : keys) {
      const std::string_view name = std::string_view(key).substr(key.rfind('/') + 1);
      const bool is_metadata = name == kZarrJsonKey || name == kZarrayKey || name == kZgroupKey;
      if (key != marker && is_metadata == metadata) CHUNKWISE_RETURN_IF_ERROR(store.Erase(key));
    }
  }
  return store.Erase(marker);
}

Result<ArrayMetadata> ParseV3ArrayMetadata(std::string_view text, std::string_view key) {
  CHUNKWISE_ASSIGN_OR_RETURN(nlohmann::json root, ParseJsonDocument(text, key));
  Result<ArrayMetadata> metadata = internal::CatchJsonErrors([&] { return ParseV3Root(root); });
  if (!metadata.ok()) return metadata.status().WithContext(key);
  return metadata;
}

std::string FormatV3ArrayMetadata(const ArrayMetadata& metadata) {
  nlohmann::ordered_json root;
  root["zarr_format"] = 3;
  root["node_type"] = "array";
  root["shape"] = metadata.shape;
  root["data_type"] = DataTypeToJson(metadata.data_type);
  root["chunk_grid"] = {{"name", "regular"},
                        {"configuration", {{"chunk_shape", metadata.chunk_shape}}}};
  root["chunk_key_encoding"] = metadata.chunk_key_encoding.ToJson();
  root["fill_value"] = FillValueToJson(metadata.fill_value, metadata.data_type);
  root["codecs"] = metadata.codecs;
  root["attributes"] = metadata.attributes;
  root["storage_transformers"] = nlohmann::json::array();
  if (metadata.dimension_names) root["dimension_names"] = *metadata.dimension_names;
  return root.dump(2) + "\n";
}

std::string FormatV3Group(const nlohmann::json& attributes) {
  nlohmann::ordered_json root;
  root["zarr_format"] = 3;
  root["node_type"] = "group";
  root["attributes"] = attributes.is_object() ? attributes : nlohmann::json::object();
  return root.dump(2) + "\n";
}

std::string FormatV2Group() { return "{\n  \"zarr_format\": 2\n}\n"; }

}  // namespace chunkwise::formats::zarr
