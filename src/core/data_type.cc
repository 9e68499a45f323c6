#include "chunkwise/core/data_type.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <iterator>
#include <span>

#include "chunkwise/core/bytes.h"

namespace chunkwise::core {
namespace {

struct TypeInfo {
  DataTypeId id;
  std::string_view zarr_name;
  char numpy_kind;
  std::size_t size;  // 0: per instance (the string types).
};

// The v3 names of the parameterized types are those zarr-python 3 writes as
// {"name": ..., "configuration": ...} (docs/formats/zarr.md).
constexpr std::array<TypeInfo, 18> kTypes = {{
    {DataTypeId::kBool, "bool", 'b', 1},
    {DataTypeId::kInt8, "int8", 'i', 1},
    {DataTypeId::kInt16, "int16", 'i', 2},
    {DataTypeId::kInt32, "int32", 'i', 4},
    {DataTypeId::kInt64, "int64", 'i', 8},
    {DataTypeId::kUInt8, "uint8", 'u', 1},
    {DataTypeId::kUInt16, "uint16", 'u', 2},
    {DataTypeId::kUInt32, "uint32", 'u', 4},
    {DataTypeId::kUInt64, "uint64", 'u', 8},
    {DataTypeId::kFloat16, "float16", 'f', 2},
    {DataTypeId::kFloat32, "float32", 'f', 4},
    {DataTypeId::kFloat64, "float64", 'f', 8},
    {DataTypeId::kComplex64, "complex64", 'c', 8},
    {DataTypeId::kComplex128, "complex128", 'c', 16},
    {DataTypeId::kDateTime64, "numpy.datetime64", 'M', 8},
    {DataTypeId::kTimeDelta64, "numpy.timedelta64", 'm', 8},
    {DataTypeId::kFixedBytes, "null_terminated_bytes", 'S', 0},
    {DataTypeId::kFixedUnicode, "fixed_length_utf32", 'U', 0},
}};
constexpr std::size_t kNumericTypes = 14;

const TypeInfo& Info(DataTypeId id) { return kTypes[static_cast<std::size_t>(id)]; }

// NumPy's datetime units, in its own order.
constexpr std::string_view kUnits[] = {"Y",  "M",  "W",  "D",  "h",  "m", "s",
                                       "ms", "us", "ns", "ps", "fs", "as"};
// NumPy keeps an itemsize in a C int.
constexpr std::int64_t kMaxItemsize = 0x7fffffff;

bool ParseDigits(std::string_view digits, std::int64_t* value) {
  if (digits.empty() || digits.size() > 10) return false;
  *value = 0;
  for (char c : digits) {
    if (c < '0' || c > '9') return false;
    *value = *value * 10 + (c - '0');
  }
  return true;
}

// "[ns]" or "[10s]" after a datetime typestr's "M8".
Result<DataType> ParseDatetimeSuffix(DataTypeId id, std::string_view bracket) {
  if (bracket.size() < 3 || bracket.front() != '[' || bracket.back() != ']') {
    return Status::InvalidArgument("no unit in brackets (a generic datetime has no fixed meaning)");
  }
  const std::string_view inside = bracket.substr(1, bracket.size() - 2);
  const std::size_t digits = std::min(inside.find_first_not_of("0123456789"), inside.size());
  std::int64_t scale = 1;
  if (digits > 0 && !ParseDigits(inside.substr(0, digits), &scale)) {
    return Status::InvalidArgument("bad unit multiplier");
  }
  return DataType::DateTime(id, inside.substr(digits), scale);
}

}  // namespace

Result<DataType> DataType::DateTime(DataTypeId id, std::string_view unit,
                                    std::int64_t scale_factor) {
  CHUNKWISE_CHECK(id == DataTypeId::kDateTime64 || id == DataTypeId::kTimeDelta64);
  const auto* found = std::find(std::begin(kUnits), std::end(kUnits), unit);
  if (found == std::end(kUnits)) {
    return Status::InvalidArgument("unknown datetime unit \"" + std::string(unit) +
                                   "\" (expected Y, M, W, D, h, m, s, ms, us, ns, ps, fs or as)");
  }
  if (scale_factor < 1 || scale_factor > kMaxItemsize) {
    return Status::InvalidArgument("datetime scale_factor " + std::to_string(scale_factor) +
                                   " is not between 1 and 2^31-1");
  }
  DataType type(id);
  type.unit_ = static_cast<std::uint8_t>(found - std::begin(kUnits));
  type.param_ = static_cast<std::uint32_t>(scale_factor);
  return type;
}

Result<DataType> DataType::FixedString(DataTypeId id, std::int64_t length) {
  CHUNKWISE_CHECK(id == DataTypeId::kFixedBytes || id == DataTypeId::kFixedUnicode);
  const std::int64_t limit = id == DataTypeId::kFixedUnicode ? kMaxItemsize / 4 : kMaxItemsize;
  if (length < 1 || length > limit) {
    return Status::InvalidArgument("string length " + std::to_string(length) +
                                   " is not between 1 and " + std::to_string(limit));
  }
  DataType type(id);
  type.param_ = static_cast<std::uint32_t>(length);
  return type;
}

Result<DataType> DataType::FromZarrName(std::string_view name) {
  for (std::size_t i = 0; i < kNumericTypes; ++i) {
    if (kTypes[i].zarr_name == name) return DataType(kTypes[i].id);
  }
  return Status::InvalidArgument("unknown zarr data_type \"" + std::string(name) + "\"");
}

Result<DataType> DataType::FromNumpyTypestr(std::string_view typestr, Endian* endian) {
  auto invalid = [&](std::string_view why) {
    return Status::InvalidArgument("unsupported NumPy dtype \"" + std::string(typestr) + "\" (" +
                                   std::string(why) + ")");
  };
  if (typestr.size() < 3) return invalid("expected a type such as \"<u2\"");
  const char order = typestr[0];
  if (order != '<' && order != '>' && order != '|' && order != '=') {
    return invalid("no byte order character");
  }
  const char kind = typestr[1];
  const std::string_view rest = typestr.substr(2);
  const std::size_t digits_end = std::min(rest.find('['), rest.size());
  std::int64_t size = 0;
  if (!ParseDigits(rest.substr(0, digits_end), &size)) return invalid("bad item size");
  const std::string_view suffix = rest.substr(digits_end);
  Result<DataType> type = invalid("expected a numeric, datetime or fixed-length string type");
  if ((kind == 'M' || kind == 'm') && size == 8) {
    type = ParseDatetimeSuffix(kind == 'M' ? DataTypeId::kDateTime64 : DataTypeId::kTimeDelta64,
                               suffix);
    if (!type.ok()) return invalid(type.status().message());
  } else if ((kind == 'S' || kind == 'U') && suffix.empty()) {
    type = FixedString(kind == 'S' ? DataTypeId::kFixedBytes : DataTypeId::kFixedUnicode, size);
    if (!type.ok()) return invalid(type.status().message());
  } else if (suffix.empty()) {
    for (std::size_t i = 0; i < kNumericTypes; ++i) {
      const TypeInfo& info = kTypes[i];
      if (info.numpy_kind == kind && static_cast<std::int64_t>(info.size) == size) {
        type = DataType(info.id);
      }
    }
  }
  if (type.ok() && endian != nullptr) *endian = order == '>' ? Endian::kBig : Endian::kLittle;
  return type;
}

std::vector<DataType> DataType::All() {
  std::vector<DataType> all;
  all.reserve(kNumericTypes);
  for (std::size_t i = 0; i < kNumericTypes; ++i) all.emplace_back(kTypes[i].id);
  return all;
}

std::size_t DataType::size() const {
  if (id_ == DataTypeId::kFixedBytes) return param_;
  if (id_ == DataTypeId::kFixedUnicode) return std::size_t{4} * param_;
  return Info(id_).size;
}
std::string_view DataType::zarr_name() const { return Info(id_).zarr_name; }

std::string DataType::numpy_typestr(Endian endian) const {
  const TypeInfo& info = Info(id_);
  std::string typestr;
  typestr += swap_unit() == 1 ? '|' : (endian == Endian::kBig ? '>' : '<');
  typestr += info.numpy_kind;
  typestr += std::to_string(length() != 0 ? length() : size());
  if (is_datetime()) {
    typestr += '[';
    if (param_ != 1) typestr += std::to_string(param_);
    typestr += datetime_unit();
    typestr += ']';
  }
  return typestr;
}

std::size_t DataType::swap_unit() const {
  if (id_ == DataTypeId::kFixedBytes) return 1;
  if (id_ == DataTypeId::kFixedUnicode) return 4;
  return is_complex() ? size() / 2 : size();
}
bool DataType::is_float() const { return Info(id_).numpy_kind == 'f'; }
bool DataType::is_complex() const { return Info(id_).numpy_kind == 'c'; }
bool DataType::is_integer() const {
  const char kind = Info(id_).numpy_kind;
  return kind == 'i' || kind == 'u';
}
bool DataType::is_signed() const { return Info(id_).numpy_kind == 'i'; }
bool DataType::is_numeric() const { return static_cast<std::size_t>(id_) < kNumericTypes; }
bool DataType::is_datetime() const {
  return id_ == DataTypeId::kDateTime64 || id_ == DataTypeId::kTimeDelta64;
}
std::string_view DataType::datetime_unit() const {
  return is_datetime() ? kUnits[unit_] : std::string_view();
}
std::uint32_t DataType::scale_factor() const { return is_datetime() ? param_ : 0; }
std::uint32_t DataType::length() const {
  return id_ == DataTypeId::kFixedBytes || id_ == DataTypeId::kFixedUnicode ? param_ : 0;
}

void SwapByteOrder(std::size_t unit, std::span<std::uint8_t> data) {
  CHUNKWISE_CHECK(unit != 0 && data.size() % unit == 0);
  std::uint8_t* p = data.data();
  const std::size_t n = data.size() / unit;
  switch (unit) {
    case 1:
      return;
    case 2:
      for (std::size_t i = 0; i < n; ++i, p += 2) {
        StoreLittleEndian(ByteSwap(LoadLittleEndian<std::uint16_t>(p)), p);
      }
      return;
    case 4:
      for (std::size_t i = 0; i < n; ++i, p += 4) {
        StoreLittleEndian(ByteSwap(LoadLittleEndian<std::uint32_t>(p)), p);
      }
      return;
    case 8:
      for (std::size_t i = 0; i < n; ++i, p += 8) {
        StoreLittleEndian(ByteSwap(LoadLittleEndian<std::uint64_t>(p)), p);
      }
      return;
    default:
      CHUNKWISE_CHECK(false && "swap unit must be 1, 2, 4 or 8");
  }
}

}  // namespace chunkwise::core
