#include "chunkwise/core/data_type.h"

#include <array>
#include <cstdint>
#include <span>

#include "chunkwise/core/bytes.h"

namespace chunkwise::core {
namespace {

struct TypeInfo {
  DataTypeId id;
  std::string_view zarr_name;
  char numpy_kind;
  std::size_t size;
};

constexpr std::array<TypeInfo, 14> kTypes = {{
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
}};

const TypeInfo& Info(DataTypeId id) { return kTypes[static_cast<std::size_t>(id)]; }

}  // namespace

Result<DataType> DataType::FromZarrName(std::string_view name) {
  for (const TypeInfo& info : kTypes) {
    if (info.zarr_name == name) return DataType(info.id);
  }
  return Status::InvalidArgument("unknown zarr data_type \"" + std::string(name) + "\"");
}

Result<DataType> DataType::FromNumpyTypestr(std::string_view typestr, Endian* endian) {
  auto invalid = [&] {
    return Status::InvalidArgument("unsupported NumPy dtype \"" + std::string(typestr) +
                                   "\" (expected a numeric type such as \"<u2\")");
  };
  if (typestr.size() < 3) return invalid();
  const char order = typestr[0];
  if (order != '<' && order != '>' && order != '|' && order != '=') return invalid();
  const char kind = typestr[1];
  std::size_t size = 0;
  for (char c : typestr.substr(2)) {
    if (c < '0' || c > '9' || size > 64) return invalid();
    size = size * 10 + static_cast<std::size_t>(c - '0');
  }
  for (const TypeInfo& info : kTypes) {
    if (info.numpy_kind == kind && info.size == size) {
      if (endian != nullptr) *endian = order == '>' ? Endian::kBig : Endian::kLittle;
      return DataType(info.id);
    }
  }
  return invalid();
}

std::vector<DataType> DataType::All() {
  std::vector<DataType> all;
  all.reserve(kTypes.size());
  for (const TypeInfo& info : kTypes) all.emplace_back(info.id);
  return all;
}

std::size_t DataType::size() const { return Info(id_).size; }
std::string_view DataType::zarr_name() const { return Info(id_).zarr_name; }

std::string DataType::numpy_typestr(Endian endian) const {
  const TypeInfo& info = Info(id_);
  std::string typestr;
  typestr += info.size == 1 ? '|' : (endian == Endian::kBig ? '>' : '<');
  typestr += info.numpy_kind;
  typestr += std::to_string(info.size);
  return typestr;
}

std::size_t DataType::swap_unit() const { return is_complex() ? size() / 2 : size(); }
bool DataType::is_float() const { return Info(id_).numpy_kind == 'f'; }
bool DataType::is_complex() const { return Info(id_).numpy_kind == 'c'; }
bool DataType::is_integer() const {
  const char kind = Info(id_).numpy_kind;
  return kind == 'i' || kind == 'u';
}
bool DataType::is_signed() const { return Info(id_).numpy_kind == 'i'; }

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
