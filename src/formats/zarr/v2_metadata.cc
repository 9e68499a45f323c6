// zarr v2 `.zarray`/`.zattrs`, translated to and from the v3 codec list
// (docs/formats/zarr.md, "Zarr v2 metadata").
#include <string>

#include "chunkwise/formats/zarr/array_metadata.h"
#include "metadata_json.h"

namespace chunkwise::formats::zarr {
namespace {

using internal::GetShape;

constexpr const char* kShuffleNames[] = {"noshuffle", "shuffle", "bitshuffle"};

// numcodecs' blosc config → v3 blosc; typesize is implicit in v2 (the itemsize).
Result<nlohmann::json> BloscFromV2(const nlohmann::json& compressor, std::size_t itemsize) {
  int shuffle = compressor.value("shuffle", 1);
  if (shuffle == -1) shuffle = itemsize == 1 ? 2 : 1;  // numcodecs AUTOSHUFFLE.
  if (shuffle < 0 || shuffle > 2) {
    return Status::InvalidArgument("blosc shuffle " + std::to_string(shuffle));
  }
  return nlohmann::json{{"name", "blosc"},
                        {"configuration",
                         {{"cname", compressor.value("cname", std::string("lz4"))},
                          {"clevel", compressor.value("clevel", 5)},
                          {"shuffle", kShuffleNames[shuffle]},
                          {"typesize", itemsize},
                          {"blocksize", compressor.value("blocksize", 0)}}}};
}

Result<nlohmann::json> CompressorFromV2(const nlohmann::json& compressor, std::size_t itemsize) {
  if (!compressor.is_object() || !compressor.contains("id") || !compressor["id"].is_string()) {
    return Status::InvalidArgument("compressor " + compressor.dump() + " has no \"id\"");
  }
  const std::string id = compressor["id"].get<std::string>();
  if (id == "blosc") return BloscFromV2(compressor, itemsize);
  if (id == "zstd") {
    return nlohmann::json{{"name", "zstd"},
                          {"configuration",
                           {{"level", compressor.value("level", 1)},
                            {"checksum", compressor.value("checksum", false)}}}};
  }
  if (id == "gzip") {
    return nlohmann::json{{"name", "gzip"},
                          {"configuration", {{"level", compressor.value("level", 1)}}}};
  }
  return Status::Unsupported("compressor \"" + id + "\" (known: blosc, zstd, gzip)");
}

Result<nlohmann::json> CodecsFromV2(const nlohmann::json& root, std::size_t rank,
                                    core::DataType dtype, core::Endian endian) {
  nlohmann::json codecs = nlohmann::json::array();
  const std::string order = root.value("order", std::string("C"));
  if (order == "F") {
    nlohmann::json reversed = nlohmann::json::array();
    for (std::size_t d = rank; d-- > 0;) reversed.push_back(d);
    codecs.push_back({{"name", "transpose"}, {"configuration", {{"order", reversed}}}});
  } else if (order != "C") {
    return Status::InvalidArgument("\"order\" must be \"C\" or \"F\"");
  }
  if (root.contains("filters") && !root["filters"].is_null() &&
      !(root["filters"].is_array() && root["filters"].empty())) {
    return Status::Unsupported("filters " + root["filters"].dump());
  }
  codecs.push_back(internal::BytesCodecJson(dtype, endian));
  if (root.contains("compressor") && !root["compressor"].is_null()) {
    CHUNKWISE_ASSIGN_OR_RETURN(nlohmann::json compressor,
                               CompressorFromV2(root["compressor"], dtype.size()));
    codecs.push_back(compressor);
  }
  return codecs;
}

Status ParseV2Separator(const nlohmann::json& root, ArrayMetadata& metadata) {
  metadata.chunk_key_encoding = ChunkKeyEncoding::V2('.');  // Absent means "." (errata 8).
  if (!root.contains("dimension_separator") || root["dimension_separator"].is_null()) {
    return Status::Ok();
  }
  const nlohmann::json& separator = root["dimension_separator"];
  if (separator != "." && separator != "/") {
    return Status::InvalidArgument("dimension_separator " + separator.dump());
  }
  metadata.chunk_key_encoding.separator = separator.get<std::string>()[0];
  return Status::Ok();
}

Status ParseV2Attributes(std::optional<std::string_view> zattrs_text, ArrayMetadata& metadata) {
  if (!zattrs_text) return Status::Ok();
  CHUNKWISE_ASSIGN_OR_RETURN(nlohmann::json attributes,
                             ParseJsonDocument(*zattrs_text, kZattrsKey));
  if (!attributes.is_object()) return Status::InvalidArgument(".zattrs is not a JSON object");
  if (attributes.contains("_ARRAY_DIMENSIONS")) {
    metadata.dimension_names = attributes["_ARRAY_DIMENSIONS"];
    attributes.erase("_ARRAY_DIMENSIONS");
  }
  metadata.attributes = std::move(attributes);
  return Status::Ok();
}

Result<ArrayMetadata> ParseV2Root(const nlohmann::json& root,
                                  std::optional<std::string_view> zattrs_text) {
  if (!root.is_object()) return Status::InvalidArgument("metadata is not a JSON object");
  if (root.value("zarr_format", nlohmann::json()) != 2) {
    return Status::InvalidArgument("\"zarr_format\" is not 2");
  }
  ArrayMetadata metadata;
  metadata.zarr_format = 2;
  CHUNKWISE_ASSIGN_OR_RETURN(metadata.shape, GetShape(root, "shape"));
  CHUNKWISE_ASSIGN_OR_RETURN(metadata.chunk_shape, GetShape(root, "chunks"));
  if (!root.contains("dtype") || !root["dtype"].is_string()) {
    return Status::Unsupported("dtype " + root.value("dtype", nlohmann::json()).dump() +
                               " (structured dtypes are not supported)");
  }
  core::Endian endian;
  CHUNKWISE_ASSIGN_OR_RETURN(metadata.data_type, core::DataType::FromNumpyTypestr(
                                                     root["dtype"].get<std::string>(), &endian));
  CHUNKWISE_ASSIGN_OR_RETURN(metadata.codecs,
                             CodecsFromV2(root, metadata.shape.size(), metadata.data_type, endian));
  const nlohmann::json fill = root.value("fill_value", nlohmann::json());
  if (fill.is_null()) {
    metadata.fill_value_null = true;
    metadata.fill_value.assign(metadata.data_type.size(), 0);
  } else {
    CHUNKWISE_ASSIGN_OR_RETURN(metadata.fill_value, ParseFillValue(fill, metadata.data_type));
  }
  CHUNKWISE_RETURN_IF_ERROR(ParseV2Separator(root, metadata));
  CHUNKWISE_RETURN_IF_ERROR(ParseV2Attributes(zattrs_text, metadata));
  CHUNKWISE_RETURN_IF_ERROR(metadata.Validate());
  return metadata;
}

Result<nlohmann::json> CompressorToV2(const nlohmann::json& codec) {
  const std::string name = codec.value("name", std::string());
  const nlohmann::json configuration = codec.value("configuration", nlohmann::json::object());
  if (name == "zstd") {
    nlohmann::json compressor = {{"id", "zstd"}, {"level", configuration.value("level", 0)}};
    if (configuration.value("checksum", false)) compressor["checksum"] = true;
    return compressor;
  }
  if (name == "gzip") {
    return nlohmann::json{{"id", "gzip"}, {"level", configuration.value("level", 6)}};
  }
  if (name == "blosc") {
    const std::string shuffle = configuration.value("shuffle", std::string("noshuffle"));
    const int code = shuffle == "shuffle" ? 1 : shuffle == "bitshuffle" ? 2 : 0;
    return nlohmann::json{{"id", "blosc"},
                          {"cname", configuration.value("cname", std::string("lz4"))},
                          {"clevel", configuration.value("clevel", 5)},
                          {"shuffle", code},
                          {"blocksize", configuration.value("blocksize", 0)}};
  }
  return Status::InvalidArgument("codec \"" + name + "\" has no zarr v2 form (v2 takes one of " +
                                 "blosc, zstd, gzip; sharding and crc32c need v3)");
}

bool IsReversedTranspose(const nlohmann::json& codec, std::size_t rank) {
  if (codec.value("name", std::string()) != "transpose") return false;
  const nlohmann::json order = codec.value("configuration", nlohmann::json::object())
                                   .value("order", nlohmann::json::array());
  if (order.size() != rank) return false;
  for (std::size_t d = 0; d < rank; ++d) {
    if (order[d] != rank - 1 - d) return false;
  }
  return true;
}

// A codec written as its bare name (the registry's shorthand, e.g. "bytes") as an object.
nlohmann::json AsCodecObject(const nlohmann::json& codec) {
  if (codec.is_string()) return {{"name", codec}};
  return codec;
}

// Fills order, dtype byte order and compressor from the v3 codec list.
Status CodecsToV2(const ArrayMetadata& metadata, nlohmann::ordered_json& zarray) {
  nlohmann::json codecs = nlohmann::json::array();
  for (const nlohmann::json& codec : metadata.codecs) codecs.push_back(AsCodecObject(codec));
  std::size_t i = 0;
  zarray["order"] = "C";
  if (i < codecs.size() && IsReversedTranspose(codecs[i], metadata.shape.size())) {
    zarray["order"] = "F";
    ++i;
  }
  if (i >= codecs.size() || codecs[i].value("name", std::string()) != "bytes") {
    return Status::InvalidArgument("codecs " + codecs.dump() +
                                   " have no zarr v2 form (v2 needs [transpose F,] bytes, "
                                   "then at most one compressor)");
  }
  const bool big = codecs[i]
                       .value("configuration", nlohmann::json::object())
                       .value("endian", std::string("little")) == "big";
  zarray["dtype"] =
      metadata.data_type.numpy_typestr(big ? core::Endian::kBig : core::Endian::kLittle);
  ++i;
  zarray["compressor"] = nullptr;
  if (i < codecs.size()) {
    CHUNKWISE_ASSIGN_OR_RETURN(zarray["compressor"], CompressorToV2(codecs[i]));
    ++i;
  }
  if (i < codecs.size()) {
    return Status::InvalidArgument("codecs " + codecs.dump() +
                                   " have no zarr v2 form (more than one compressor)");
  }
  return Status::Ok();
}

}  // namespace

Result<ArrayMetadata> ParseV2ArrayMetadata(std::string_view zarray_text,
                                           std::optional<std::string_view> zattrs_text,
                                           std::string_view key) {
  CHUNKWISE_ASSIGN_OR_RETURN(nlohmann::json root, ParseJsonDocument(zarray_text, key));
  Result<ArrayMetadata> metadata =
      internal::CatchJsonErrors([&] { return ParseV2Root(root, zattrs_text); });
  if (!metadata.ok()) return metadata.status().WithContext(key);
  return metadata;
}

Result<std::string> FormatV2Zarray(const ArrayMetadata& metadata) {
  nlohmann::ordered_json zarray;
  zarray["zarr_format"] = 2;
  zarray["shape"] = metadata.shape;
  zarray["chunks"] = metadata.chunk_shape;
  CHUNKWISE_RETURN_IF_ERROR(
      internal::CatchJsonErrors([&] { return CodecsToV2(metadata, zarray); }));
  zarray["fill_value"] = metadata.fill_value_null
                             ? nlohmann::json(nullptr)
                             : FillValueToJson(metadata.fill_value, metadata.data_type);
  zarray["filters"] = nullptr;
  zarray["dimension_separator"] = std::string(1, metadata.chunk_key_encoding.separator);
  return zarray.dump(4) + "\n";
}

std::string FormatV2Zattrs(const ArrayMetadata& metadata) {
  nlohmann::ordered_json attributes = metadata.attributes;
  if (metadata.dimension_names) attributes["_ARRAY_DIMENSIONS"] = *metadata.dimension_names;
  return attributes.dump(4) + "\n";
}

}  // namespace chunkwise::formats::zarr
