// DataType: the element types of zarr arrays, with their zarr v3 names and
// NumPy type strings.
//
// Spec: docs/formats/zarr.md, "Data types and fill values" (v3 names) and "Zarr
// v2 metadata" (NumPy typestr). Structured and string dtypes of .npy files are
// described by core/npy.h instead; this type covers the numeric set every codec
// handles.
#ifndef CHUNKWISE_CORE_DATA_TYPE_H_
#define CHUNKWISE_CORE_DATA_TYPE_H_

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "chunkwise/core/result.h"

namespace chunkwise::core {

enum class DataTypeId {
  kBool,
  kInt8,
  kInt16,
  kInt32,
  kInt64,
  kUInt8,
  kUInt16,
  kUInt32,
  kUInt64,
  kFloat16,
  kFloat32,
  kFloat64,
  kComplex64,
  kComplex128,
};

enum class Endian { kLittle, kBig };

class DataType {
 public:
  constexpr DataType() = default;
  explicit constexpr DataType(DataTypeId id) : id_(id) {}

  // Parses a zarr v3 `data_type` name such as "uint16"; InvalidArgument otherwise.
  static Result<DataType> FromZarrName(std::string_view name);
  // Parses a NumPy typestr such as "<u2" or "|b1" and reports its byte order in
  // `*endian` ("|" and "=" give little). InvalidArgument for any other kind.
  static Result<DataType> FromNumpyTypestr(std::string_view typestr, Endian* endian);
  // Every numeric type, for tests that sweep them.
  static std::vector<DataType> All();

  DataTypeId id() const { return id_; }
  // Bytes per element.
  std::size_t size() const;
  // The zarr v3 name, e.g. "float32".
  std::string_view zarr_name() const;
  // The NumPy typestr in the given byte order, e.g. "<f4" (one-byte types use "|").
  std::string numpy_typestr(Endian endian = Endian::kLittle) const;
  // Bytes swapped as a unit when changing endianness (half the size for complex).
  std::size_t swap_unit() const;
  bool is_float() const;
  bool is_complex() const;
  bool is_integer() const;
  bool is_signed() const;

  bool operator==(const DataType&) const = default;

 private:
  DataTypeId id_ = DataTypeId::kUInt8;
};

// Reverses the byte order of each `unit`-byte element of `data` in place.
// REQUIRES: data.size() is a multiple of unit; unit is 1, 2, 4 or 8.
void SwapByteOrder(std::size_t unit, std::span<std::uint8_t> data);

}  // namespace chunkwise::core

#endif  // CHUNKWISE_CORE_DATA_TYPE_H_
