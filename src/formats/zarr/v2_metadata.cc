// zarr v2 `.zarray`/`.zattrs`, translated to and from the v3 codec list
// (docs/formats/zarr.md, "Zarr v2 metadata").
#include <string>

#include "formats/zarr/array_metadata.h"
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

// numcodecs filters that take and give arrays (the rest work on bytes).
bool IsArrayFilter(std::string_view id) {
  return id == "delta" || id == "fixedscaleoffset" || id == "quantize" || id == "packbits" ||
         id == "astype";
}

// numcodecs ids that work on bytes: v3's own blosc, zstd and gzip, and the
// numcodecs codecs this library has.
bool IsBytesCodecId(std::string_view id) {
  return id == "blosc" || id == "zstd" || id == "gzip" || id == "zlib" || id == "lz4" ||
         id == "bz2" || id == "lzma" || id == "shuffle";
}

Result<std::string> CodecId(const nlohmann::json& codec, std::string_view what) {
  if (!codec.is_object() || !codec.contains("id") || !codec["id"].is_string()) {
    return Status::InvalidArgument(std::string(what) + " " + codec.dump() + " has no \"id\"");
  }
  return codec["id"].get<std::string>();
}

// A numcodecs configuration as zarr-python 3 writes it in a v3 array:
// {"name": "numcodecs.<id>", "configuration": {the rest}}. An id this
// library lacks translates all the same, so that the metadata still parses
// (`zarr info` shows it) and building the codecs names it as Unsupported.
nlohmann::json NumcodecsFromV2(const std::string& id, const nlohmann::json& codec) {
  nlohmann::json configuration = codec;
  configuration.erase("id");
  return {{"name", "numcodecs." + id}, {"configuration", configuration}};
}

Result<nlohmann::json> CodecFromV2(const nlohmann::json& codec, std::size_t itemsize,
                                   std::string_view what) {
  CHUNKWISE_ASSIGN_OR_RETURN(const std::string id, CodecId(codec, what));
  if (id == "blosc") return BloscFromV2(codec, itemsize);
  if (id == "zstd") {
    return nlohmann::json{
        {"name", "zstd"},
        {"configuration",
         {{"level", codec.value("level", 1)}, {"checksum", codec.value("checksum", false)}}}};
  }
  if (id == "gzip") {
    return nlohmann::json{{"name", "gzip"},
                          {"configuration", {{"level", codec.value("level", 1)}}}};
  }
  return NumcodecsFromV2(id, codec);
}

// The typestr an array filter takes (`input`) or gives; empty when it names none.
std::string FilterType(const std::string& id, const nlohmann::json& filter, bool input) {
  if (id == "packbits") return input ? "|b1" : "|u1";
  if (id == "astype") return filter.value(input ? "decode_dtype" : "encode_dtype", std::string());
  const std::string dtype = filter.value("dtype", std::string());
  return input ? dtype : filter.value("astype", dtype);
}

// The byte order a typestr spells: '<', '>' or none ('|', or not a typestr).
char ByteOrderOf(std::string_view typestr) {
  return !typestr.empty() && (typestr[0] == '<' || typestr[0] == '>') ? typestr[0] : '\0';
}

// v2 applies `filters` in order, then the compressor. Array filters come
// first in the v3 list, then `bytes`, then the byte filters and the
// compressor. numcodecs views each filter's input with the filter's own
// dtype, so one that names another byte order than the data it is given
// reinterprets the bytes: that is refused.
Status FiltersFromV2(const nlohmann::json& filters, core::DataType& type, core::Endian& endian,
                     std::string typestr, nlohmann::json& array_side, nlohmann::json& bytes_side) {
  for (const nlohmann::json& filter : filters) {
    CHUNKWISE_ASSIGN_OR_RETURN(const std::string id, CodecId(filter, "filter"));
    if (IsBytesCodecId(id)) {
      CHUNKWISE_ASSIGN_OR_RETURN(nlohmann::json codec, CodecFromV2(filter, type.size(), "filter"));
      bytes_side.push_back(std::move(codec));
      continue;
    }
    if (!bytes_side.empty()) {
      return Status::Unsupported("filter \"" + id + "\" after the byte filter " +
                                 bytes_side.back()["name"].dump() +
                                 " (array filters must come first)");
    }
    array_side.push_back(NumcodecsFromV2(id, filter));
    if (!IsArrayFilter(id)) continue;  // Unknown: building the codecs refuses it.
    const std::string input = FilterType(id, filter, true);
    if (type.size() > 1 && ByteOrderOf(input) != '\0' && ByteOrderOf(typestr) != '\0' &&
        ByteOrderOf(input) != ByteOrderOf(typestr)) {
      return Status::Unsupported("filter \"" + id + "\" reads its input as \"" + input +
                                 "\" but is given \"" + typestr + "\"");
    }
    typestr = FilterType(id, filter, false);
    core::Endian filter_endian;
    Result<core::DataType> output = core::DataType::FromNumpyTypestr(typestr, &filter_endian);
    if (output.ok()) {  // Else the codec itself reports the type it cannot take.
      type = *output;
      endian = filter_endian;
    }
  }
  return Status::Ok();
}

Result<nlohmann::json> CodecsFromV2(const nlohmann::json& root, std::size_t rank,
                                    core::DataType dtype, core::Endian endian,
                                    const std::string& typestr) {
  nlohmann::json codecs = nlohmann::json::array();
  const std::string order = root.value("order", std::string("C"));
  if (order == "F") {
    nlohmann::json reversed = nlohmann::json::array();
    for (std::size_t d = rank; d-- > 0;) reversed.push_back(d);
    codecs.push_back({{"name", "transpose"}, {"configuration", {{"order", reversed}}}});
  } else if (order != "C") {
    return Status::InvalidArgument("\"order\" must be \"C\" or \"F\"");
  }
  nlohmann::json array_side = nlohmann::json::array(), bytes_side = nlohmann::json::array();
  if (root.contains("filters") && !root["filters"].is_null()) {
    if (!root["filters"].is_array()) {
      return Status::InvalidArgument("\"filters\" must be a list or null");
    }
    CHUNKWISE_RETURN_IF_ERROR(
        FiltersFromV2(root["filters"], dtype, endian, typestr, array_side, bytes_side));
  }
  for (const nlohmann::json& codec : array_side) codecs.push_back(codec);
  codecs.push_back(internal::BytesCodecJson(dtype, endian));
  for (const nlohmann::json& codec : bytes_side) codecs.push_back(codec);
  if (root.contains("compressor") && !root["compressor"].is_null()) {
    CHUNKWISE_ASSIGN_OR_RETURN(nlohmann::json compressor,
                               CodecFromV2(root["compressor"], dtype.size(), "compressor"));
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
  core::Endian endian = core::Endian::kLittle;
  const nlohmann::json dtype = root.value("dtype", nlohmann::json());
  Result<core::DataType> data_type =
      dtype.is_string() ? core::DataType::FromNumpyTypestr(dtype.get<std::string>(), &endian)
                        : Result<core::DataType>(Status::Unsupported("structured dtype"));
  std::string typestr = dtype.is_string() ? dtype.get<std::string>() : std::string();
  if (!data_type.ok()) {
    // Strings, objects, datetimes, structured dtypes: described, never read.
    if (dtype.is_null()) return Status::InvalidArgument("missing \"dtype\"");
    metadata.unsupported_data_type = dtype.is_string() ? typestr : dtype.dump();
    typestr = "|u1";
  }
  metadata.data_type = data_type.ok() ? *data_type : core::DataType(core::DataTypeId::kUInt8);
  CHUNKWISE_ASSIGN_OR_RETURN(metadata.codecs, CodecsFromV2(root, metadata.shape.size(),
                                                           metadata.data_type, endian, typestr));
  const nlohmann::json fill = root.value("fill_value", nlohmann::json());
  if (fill.is_null() || !metadata.unsupported_data_type.empty()) {
    metadata.fill_value_null = fill.is_null();
    metadata.fill_value.assign(metadata.data_type.size(), 0);
  } else {
    CHUNKWISE_ASSIGN_OR_RETURN(metadata.fill_value, ParseFillValue(fill, metadata.data_type));
  }
  CHUNKWISE_RETURN_IF_ERROR(ParseV2Separator(root, metadata));
  CHUNKWISE_RETURN_IF_ERROR(ParseV2Attributes(zattrs_text, metadata));
  CHUNKWISE_RETURN_IF_ERROR(metadata.Validate());
  return metadata;
}

Result<nlohmann::json> CodecToV2(const nlohmann::json& codec) {
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
  constexpr std::string_view kNumcodecs = "numcodecs.";
  if (name.starts_with(kNumcodecs) && configuration.is_object()) {
    nlohmann::json v2 = {{"id", name.substr(kNumcodecs.size())}};
    for (const auto& [key, value] : configuration.items()) v2[key] = value;
    return v2;
  }
  return Status::InvalidArgument("codec \"" + name + "\" has no zarr v2 form (v2 takes " +
                                 "blosc, zstd, gzip and numcodecs' codecs; sharding and crc32c " +
                                 "need v3)");
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

// The typestr an array filter's v3 JSON reads its input as; empty if none.
std::string FilterInputType(const nlohmann::json& codec) {
  const nlohmann::json configuration = codec.value("configuration", nlohmann::json::object());
  const std::string name = codec.value("name", std::string());
  if (name == "numcodecs.astype") return configuration.value("decode_dtype", std::string());
  return configuration.value("dtype", std::string());
}

// Fills order, dtype (with its byte order), filters and compressor from the
// v3 codec list: [transpose F,] array filters, bytes, byte filters,
// compressor (the last codec after bytes).
Status CodecsToV2(const ArrayMetadata& metadata, nlohmann::ordered_json& zarray,
                  nlohmann::json& filters) {
  nlohmann::json codecs = nlohmann::json::array();
  for (const nlohmann::json& codec : metadata.codecs) codecs.push_back(AsCodecObject(codec));
  std::size_t i = 0;
  zarray["order"] = "C";
  if (i < codecs.size() && IsReversedTranspose(codecs[i], metadata.shape.size())) {
    zarray["order"] = "F";
    ++i;
  }
  filters = nlohmann::json::array();
  std::string first_input;  // What the first array filter reads the array as.
  for (; i < codecs.size() && codecs[i].value("name", std::string()) != "bytes"; ++i) {
    if (filters.empty()) first_input = FilterInputType(codecs[i]);
    CHUNKWISE_ASSIGN_OR_RETURN(nlohmann::json filter, CodecToV2(codecs[i]));
    filters.push_back(std::move(filter));
  }
  if (i >= codecs.size()) {
    return Status::InvalidArgument("codecs " + codecs.dump() +
                                   " have no zarr v2 form (v2 needs [transpose F,] filters, "
                                   "bytes, then filters and a compressor)");
  }
  const bool big = codecs[i]
                       .value("configuration", nlohmann::json::object())
                       .value("endian", std::string("little")) == "big";
  core::Endian endian = big ? core::Endian::kBig : core::Endian::kLittle;
  if (!filters.empty() && !first_input.empty() && first_input[0] == '>') {
    endian = core::Endian::kBig;  // The array's bytes are what the first filter reads.
  } else if (!filters.empty() && !first_input.empty() && first_input[0] == '<') {
    endian = core::Endian::kLittle;
  }
  zarray["dtype"] = metadata.data_type.numpy_typestr(endian);
  ++i;
  zarray["compressor"] = nullptr;
  for (; i < codecs.size(); ++i) {
    CHUNKWISE_ASSIGN_OR_RETURN(nlohmann::json codec, CodecToV2(codecs[i]));
    if (i + 1 == codecs.size()) {
      zarray["compressor"] = std::move(codec);
    } else {
      filters.push_back(std::move(codec));
    }
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
  nlohmann::json filters;
  CHUNKWISE_RETURN_IF_ERROR(
      internal::CatchJsonErrors([&] { return CodecsToV2(metadata, zarray, filters); }));
  zarray["fill_value"] = metadata.fill_value_null
                             ? nlohmann::json(nullptr)
                             : FillValueToJson(metadata.fill_value, metadata.data_type);
  zarray["filters"] = filters.empty() ? nlohmann::json(nullptr) : filters;
  zarray["dimension_separator"] = std::string(1, metadata.chunk_key_encoding.separator);
  return zarray.dump(4) + "\n";
}

std::string FormatV2Zattrs(const ArrayMetadata& metadata) {
  nlohmann::ordered_json attributes = metadata.attributes;
  if (metadata.dimension_names) attributes["_ARRAY_DIMENSIONS"] = *metadata.dimension_names;
  return attributes.dump(4) + "\n";
}

}  // namespace chunkwise::formats::zarr
