#include "formats/bcolz/meta.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <set>

#include "core/json.h"

namespace chunkwise::formats::bcolz {
namespace {

using core::NpyDtype;

// NumPy's names for native-order (little-endian here) scalar types.
const std::map<std::string, std::string, std::less<>>& NameToTypestr() {
  static const std::map<std::string, std::string, std::less<>> names = {
      {"bool", "|b1"},       {"int8", "|i1"},        {"int16", "<i2"},       {"int32", "<i4"},
      {"int64", "<i8"},      {"uint8", "|u1"},       {"uint16", "<u2"},      {"uint32", "<u4"},
      {"uint64", "<u8"},     {"float16", "<f2"},     {"float32", "<f4"},     {"float64", "<f8"},
      {"float128", "<f16"},  {"complex64", "<c8"},   {"complex128", "<c16"}, {"complex256", "<c32"},
      {"datetime64", "<M8"}, {"timedelta64", "<m8"},
  };
  return names;
}

Status BadMeta(std::string_view file_name, const std::string& what) {
  return Status::Corruption(std::string(file_name) + ": " + what);
}

Result<nlohmann::json> ParseObject(std::string_view text, std::string_view file_name) {
  Result<nlohmann::json> parsed = core::ParseJson(text, file_name, StatusCode::kCorruption);
  if (!parsed.ok()) return parsed.status();
  nlohmann::json json = std::move(parsed).value();
  if (!json.is_object()) return BadMeta(file_name, "is not a JSON object");
  return json;
}

// An integer field in [minimum, maximum]; Corruption naming the field otherwise.
Result<std::int64_t> GetInt(const nlohmann::json& object, const char* key,
                            std::string_view file_name, std::int64_t minimum,
                            std::int64_t maximum = std::numeric_limits<std::int64_t>::max()) {
  const auto it = object.find(key);
  if (it == object.end()) return BadMeta(file_name, std::string("has no \"") + key + "\"");
  if (!it->is_number_integer()) {
    return BadMeta(file_name, std::string("\"") + key + "\" is not an integer");
  }
  if (it->is_number_unsigned() && it->get<std::uint64_t>() > std::uint64_t(maximum)) {
    return BadMeta(file_name, std::string("\"") + key + "\" is out of range");
  }
  const auto value = it->get<std::int64_t>();
  if (value < minimum || value > maximum) {
    return BadMeta(file_name,
                   std::string("\"") + key + "\" = " + std::to_string(value) + " is out of range");
  }
  return value;
}

Result<Cparams> ParseCparams(const nlohmann::json& storage, std::string_view file_name) {
  const auto it = storage.find("cparams");
  if (it == storage.end() || !it->is_object()) {
    return BadMeta(file_name, "has no \"cparams\" object");
  }
  Cparams cparams;
  CHUNKWISE_ASSIGN_OR_RETURN(std::int64_t clevel, GetInt(*it, "clevel", file_name, 0, 9));
  cparams.clevel = static_cast<int>(clevel);
  const auto shuffle = it->find("shuffle");
  if (shuffle == it->end()) return BadMeta(file_name, "cparams has no \"shuffle\"");
  if (shuffle->is_boolean()) {  // Old bcolz files (docs/formats/bcolz.md).
    cparams.shuffle = shuffle->get<bool>() ? 1 : 0;
  } else {
    CHUNKWISE_ASSIGN_OR_RETURN(std::int64_t value, GetInt(*it, "shuffle", file_name, 0, 2));
    cparams.shuffle = static_cast<int>(value);
  }
  cparams.cname = "blosclz";
  if (const auto cname = it->find("cname"); cname != it->end()) {
    if (!cname->is_string()) return BadMeta(file_name, "cparams \"cname\" is not a string");
    cparams.cname = cname->get<std::string>();
  }
  if (const auto quantize = it->find("quantize"); quantize != it->end()) {
    if (!quantize->is_number_integer()) return BadMeta(file_name, "\"quantize\" is not an integer");
    cparams.quantize = quantize->get<int>();
  }
  return cparams;
}

template <typename T>
void StoreAs(T value, core::NpyDtype::ByteOrder order, std::uint8_t* out) {
  std::memcpy(out, &value, sizeof(T));
  if (order == NpyDtype::ByteOrder::kBig) std::reverse(out, out + sizeof(T));
}

// Writes the JSON number `value` as one scalar of kinds b i u f c M m.
Status StoreNumber(const nlohmann::json& value, const NpyDtype& dtype, std::uint8_t* out) {
  const bool is_bool = value.is_boolean();
  if (!is_bool && !value.is_number()) {
    return Status::InvalidArgument("dflt " + value.dump() + " is not a number for dtype " +
                                   DtypeToString(dtype));
  }
  const double real = is_bool ? (value.get<bool>() ? 1.0 : 0.0) : value.get<double>();
  const auto order = dtype.byte_order();
  const std::size_t size = dtype.itemsize();
  switch (dtype.kind()) {
    case 'b':
      out[0] = real != 0 ? 1 : 0;
      return Status::Ok();
    case 'i':
    case 'u':
    case 'M':
    case 'm': {
      const std::int64_t integer =
          value.is_number_integer() ? value.get<std::int64_t>() : static_cast<std::int64_t>(real);
      std::uint8_t bytes[8];
      StoreAs<std::int64_t>(integer, NpyDtype::ByteOrder::kLittle, bytes);
      for (std::size_t i = 0; i < size; ++i) {
        out[order == NpyDtype::ByteOrder::kBig ? size - 1 - i : i] = bytes[i];
      }
      return Status::Ok();
    }
    case 'f':
    case 'c': {
      const std::size_t part = dtype.kind() == 'c' ? size / 2 : size;
      std::memset(out, 0, size);
      if (part == 4)
        StoreAs(static_cast<float>(real), order, out);
      else if (part == 8)
        StoreAs(real, order, out);
      else if (real != 0) {
        return Status::Unsupported("dflt " + value.dump() + " for dtype " + DtypeToString(dtype));
      }
      return Status::Ok();
    }
    default:
      return Status::InvalidArgument("dflt " + value.dump() + " does not fit dtype " +
                                     DtypeToString(dtype));
  }
}

Status StoreDflt(const nlohmann::json& value, const NpyDtype& dtype, std::uint8_t* out);

Status StoreStructured(const nlohmann::json& value, const NpyDtype& dtype, std::uint8_t* out) {
  if (!value.is_array() || value.size() != dtype.fields().size()) {
    return Status::InvalidArgument("dflt " + value.dump() + " is not a list of " +
                                   std::to_string(dtype.fields().size()) + " field values");
  }
  for (std::size_t i = 0; i < dtype.fields().size(); ++i) {
    const core::NpyField& field = dtype.fields()[i];
    const std::size_t count = field.size() / std::max<std::size_t>(field.dtype.itemsize(), 1);
    for (std::size_t k = 0; k < count; ++k) {
      const std::size_t at = field.offset + k * field.dtype.itemsize();
      // A sub-array field holds one value for every element, or a list of them.
      const nlohmann::json& element =
          value[i].is_array() && !field.dtype.is_structured() && value[i].size() == count
              ? value[i][k]
              : value[i];
      CHUNKWISE_RETURN_IF_ERROR(StoreDflt(element, field.dtype, out + at));
    }
  }
  return Status::Ok();
}

Status StoreDflt(const nlohmann::json& value, const NpyDtype& dtype, std::uint8_t* out) {
  if (value.is_null()) return Status::Ok();  // Zeros, already there.
  if (dtype.is_structured()) return StoreStructured(value, dtype, out);
  if (dtype.kind() == 'S' || dtype.kind() == 'U' || dtype.kind() == 'V') {
    if (value.is_number() && value.get<double>() == 0) return Status::Ok();
    if (!value.is_string()) {
      return Status::InvalidArgument("dflt " + value.dump() + " is not a string");
    }
    const std::string text = value.get<std::string>();
    if (dtype.kind() != 'U') {
      std::memcpy(out, text.data(), std::min(text.size(), dtype.itemsize()));
      return Status::Ok();
    }
    std::size_t pos = 0, slot = 0;
    while (pos < text.size() && slot < dtype.itemsize() / 4) {
      const std::int32_t code = core::detail::DecodeUtf8(text, &pos);
      if (code < 0) return Status::InvalidArgument("dflt is not valid UTF-8");
      StoreAs<std::uint32_t>(static_cast<std::uint32_t>(code), dtype.byte_order(), out + 4 * slot);
      ++slot;
    }
    return Status::Ok();
  }
  return StoreNumber(value, dtype, out);
}

}  // namespace

Result<NpyDtype> DtypeFromString(std::string_view text) {
  if (!text.empty() && text.front() == '[') {
    auto dtype = NpyDtype::FromDescr(text);
    if (!dtype.ok()) {
      return Status::InvalidArgument("dtype \"" + std::string(text) +
                                     "\": " + std::string(dtype.status().message()));
    }
    return dtype;
  }
  std::string_view name = text;
  std::string unit;
  if (const std::size_t bracket = text.find('['); bracket != std::string_view::npos) {
    name = text.substr(0, bracket);
    unit = std::string(text.substr(bracket));
  }
  const auto& names = NameToTypestr();
  if (const auto it = names.find(name); it != names.end()) {
    if (!unit.empty() && it->second.find('8') == std::string::npos) {
      return Status::InvalidArgument("dtype \"" + std::string(text) + "\" cannot be mapped");
    }
    auto dtype = NpyDtype::FromTypestr(it->second + unit);
    if (dtype.ok()) return dtype;
  } else if (!text.empty() && std::string_view("<>|=").find(text[0]) != std::string_view::npos) {
    auto dtype = NpyDtype::FromTypestr(text);
    if (dtype.ok()) return dtype;
    return Status::InvalidArgument("dtype \"" + std::string(text) +
                                   "\": " + std::string(dtype.status().message()));
  }
  return Status::InvalidArgument("dtype \"" + std::string(text) +
                                 "\" is not a fixed-size NumPy dtype chunkwise can map");
}

std::string DtypeToString(const NpyDtype& dtype) {
  if (dtype.is_structured()) return dtype.ToDescr();
  const std::string typestr = dtype.typestr();
  if (dtype.byte_order() == NpyDtype::ByteOrder::kBig) return typestr;
  const std::string plain = typestr.substr(0, typestr.find('['));
  for (const auto& [name, candidate] : NameToTypestr()) {
    if (candidate == plain) {
      return dtype.datetime_unit().empty() ? name : name + "[" + dtype.datetime_unit() + "]";
    }
  }
  return typestr;
}

int BloscTypesize(const NpyDtype& dtype) {
  if (dtype.kind() == 'S') return 1;
  if (dtype.kind() == 'U') return 4;
  if (dtype.itemsize() > 255 || dtype.itemsize() == 0) return 1;
  return static_cast<int>(dtype.itemsize());
}

std::int64_t ChunklenForExpectedlen(std::int64_t expectedlen, std::uint64_t atomsize) {
  constexpr double kMegabyte = 1024.0 * 1024.0;
  double expected_mb = static_cast<double>(std::max<std::int64_t>(expectedlen, 0)) *
                       static_cast<double>(atomsize) / kMegabyte;
  expected_mb = std::clamp(expected_mb, 1e-4, 1e4);
  // int() in Python truncates toward zero, as the cast does.
  const int zone = static_cast<int>(std::log10(expected_mb));
  const std::int64_t chunksize = std::int64_t{4096} << (zone + 6);  // 4 KB * 2^(zone + 6).
  const auto chunklen = static_cast<std::int64_t>(static_cast<std::uint64_t>(chunksize) / atomsize);
  return std::max<std::int64_t>(chunklen, 1);
}

Result<StorageMeta> ParseStorageMeta(std::string_view text, std::string_view file_name) {
  CHUNKWISE_ASSIGN_OR_RETURN(nlohmann::json json, ParseObject(text, file_name));
  StorageMeta storage;
  const auto dtype = json.find("dtype");
  if (dtype == json.end() || !dtype->is_string()) {
    return BadMeta(file_name, "has no \"dtype\" string");
  }
  auto parsed = DtypeFromString(dtype->get<std::string>());
  if (!parsed.ok()) return parsed.status().WithContext(file_name);
  storage.dtype = std::move(parsed).value();
  CHUNKWISE_ASSIGN_OR_RETURN(storage.cparams, ParseCparams(json, file_name));
  CHUNKWISE_ASSIGN_OR_RETURN(storage.chunklen, GetInt(json, "chunklen", file_name, 1, INT32_MAX));
  CHUNKWISE_ASSIGN_OR_RETURN(storage.expectedlen, GetInt(json, "expectedlen", file_name, 0));
  const auto dflt = json.find("dflt");
  storage.dflt = dflt == json.end() ? nlohmann::json(nullptr) : *dflt;
  return storage;
}

std::string SerializeStorageMeta(const StorageMeta& storage) {
  nlohmann::ordered_json json;
  json["dtype"] = DtypeToString(storage.dtype);
  json["cparams"] = {{"clevel", storage.cparams.clevel},
                     {"shuffle", storage.cparams.shuffle},
                     {"cname", storage.cparams.cname},
                     {"quantize", storage.cparams.quantize}};
  json["chunklen"] = storage.chunklen;
  json["expectedlen"] = storage.expectedlen;
  json["dflt"] = storage.dflt;
  return json.dump() + "\n";
}

Result<SizesMeta> ParseSizesMeta(std::string_view text, std::string_view file_name,
                                 std::size_t itemsize) {
  CHUNKWISE_ASSIGN_OR_RETURN(nlohmann::json json, ParseObject(text, file_name));
  SizesMeta sizes;
  const auto shape = json.find("shape");
  if (shape == json.end() || !shape->is_array() || shape->empty()) {
    return BadMeta(file_name, "has no non-empty \"shape\" list");
  }
  // Products are checked against 2^62 so that byte counts never overflow.
  constexpr std::uint64_t kLimit = std::uint64_t{1} << 62;
  std::uint64_t elements = 1;
  for (const nlohmann::json& dim : *shape) {
    if (!dim.is_number_integer() || dim.get<std::int64_t>() < 0 ||
        (dim.is_number_unsigned() && dim.get<std::uint64_t>() >= kLimit)) {
      return BadMeta(file_name, "\"shape\" holds " + dim.dump() + ", not a size");
    }
    const auto value = dim.get<std::uint64_t>();
    if (value != 0 && elements > kLimit / value) return BadMeta(file_name, "shape is too large");
    elements *= value;
    sizes.shape.push_back(static_cast<std::int64_t>(value));
  }
  if (itemsize != 0 && elements > kLimit / itemsize) return BadMeta(file_name, "shape too large");
  CHUNKWISE_ASSIGN_OR_RETURN(sizes.nbytes, GetInt(json, "nbytes", file_name, 0));
  if (static_cast<std::uint64_t>(sizes.nbytes) != elements * itemsize) {
    return BadMeta(file_name, "nbytes " + std::to_string(sizes.nbytes) +
                                  " disagrees with the shape (" + std::to_string(elements) +
                                  " elements of " + std::to_string(itemsize) + " bytes)");
  }
  if (const auto cbytes = json.find("cbytes"); cbytes != json.end() && cbytes->is_number()) {
    sizes.cbytes = cbytes->get<std::int64_t>();
  }
  return sizes;
}

std::string SerializeSizesMeta(const SizesMeta& sizes) {
  nlohmann::ordered_json json;
  json["shape"] = sizes.shape;
  json["nbytes"] = sizes.nbytes;
  json["cbytes"] = sizes.cbytes;
  return json.dump() + "\n";
}

Status CheckColumnName(std::string_view name) {
  if (name.empty() || name == "." || name == ".." || name.starts_with("__") ||
      name.starts_with(".") || name.find_first_of(std::string_view("/\\\0", 3)) != name.npos) {
    std::string message = "\"";  // Appended: GCC 12 warns falsely on "x" + string.
    message.append(name).append("\" cannot name a ctable column directory");
    return Status::InvalidArgument(std::move(message));
  }
  return Status::Ok();
}

Result<std::vector<std::string>> ParseRootdirs(std::string_view text, std::string_view file_name) {
  CHUNKWISE_ASSIGN_OR_RETURN(nlohmann::json json, ParseObject(text, file_name));
  const auto names = json.find("names");
  if (names == json.end() || !names->is_array()) {
    return BadMeta(file_name, "has no \"names\" list");
  }
  std::vector<std::string> result;
  std::set<std::string> seen;
  for (const nlohmann::json& name : *names) {
    if (!name.is_string()) return BadMeta(file_name, "a column name is not a string");
    std::string text_name = name.get<std::string>();
    if (!CheckColumnName(text_name).ok() || !seen.insert(text_name).second) {
      return BadMeta(file_name, "column name \"" + text_name + "\" is invalid or repeated");
    }
    result.push_back(std::move(text_name));
  }
  return result;
}

std::string SerializeRootdirs(const std::vector<std::string>& names) {
  return nlohmann::json({{"names", names}}).dump() + "\n";
}

Result<nlohmann::json> ParseAttrs(std::string_view text, std::string_view file_name) {
  return ParseObject(text, file_name);
}

std::string SerializeAttrs(const nlohmann::json& attrs) { return attrs.dump() + "\n"; }

Result<Bytes> DfltToBytes(const nlohmann::json& dflt, const NpyDtype& dtype) {
  Bytes bytes(dtype.itemsize(), 0);
  CHUNKWISE_RETURN_IF_ERROR(StoreDflt(dflt, dtype, bytes.data()));
  return bytes;
}

nlohmann::json ZeroDflt(const NpyDtype& dtype) {
  if (dtype.is_structured()) {
    nlohmann::json fields = nlohmann::json::array();
    for (const core::NpyField& field : dtype.fields()) fields.push_back(ZeroDflt(field.dtype));
    return fields;
  }
  switch (dtype.kind()) {
    case 'b':
      return false;
    case 'f':
      return 0.0;
    case 'S':
    case 'U':
    case 'V':
      return "";
    default:
      return 0;
  }
}

}  // namespace chunkwise::formats::bcolz
