// DataType: the element types of zarr arrays, with their zarr v3 names and
// NumPy type strings.
//
// Spec: docs/formats/zarr.md, "Data types and fill values" (v3 names) and "Zarr
// v2 metadata" (NumPy typestr). Beside the numeric set every codec handles, it
// holds the fixed-size NumPy types zarr-python 3 writes: datetime64 and
// timedelta64 (8-byte counts of a unit, stored as int64), 'S<n>' byte strings
// and '<U<n>' UTF-32 strings. Structured dtypes of .npy files are described by
// core/npy_dtype.h instead.
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
  // NumPy datetime64 / timedelta64: a signed 8-byte count of unit() times
  // scale_factor(); INT64_MIN is NaT. Stored as int64 is.
  kDateTime64,
  kTimeDelta64,
  // NumPy 'S<n>': n bytes, trailing NULs dropped by NumPy on reading.
  kFixedBytes,
  // NumPy '<U<n>': n UTF-32 code units (4 bytes each, swapped as a unit).
  kFixedUnicode,
};

enum class Endian { kLittle, kBig };

class DataType {
 public:
  constexpr DataType() = default;
  explicit constexpr DataType(DataTypeId id) : id_(id) {}

  // Parses a zarr v3 `data_type` name of the numeric set such as "uint16";
  // InvalidArgument otherwise (the parameterized types are JSON objects).
  static Result<DataType> FromZarrName(std::string_view name);
  // Parses a NumPy typestr such as "<u2", "|b1", "<M8[10s]", "|S5" or "<U3"
  // and reports its byte order in `*endian` ("|" and "=" give little).
  // InvalidArgument for any other kind, a datetime without a unit, or a
  // zero-length string.
  static Result<DataType> FromNumpyTypestr(std::string_view typestr, Endian* endian);
  // datetime64 (`id` kDateTime64) or timedelta64 (kTimeDelta64) counting
  // `scale_factor` x `unit` ("Y", "M", "W", "D", "h", "m", "s", "ms", "us",
  // "ns", "ps", "fs", "as"). InvalidArgument naming the unit or the factor
  // (1 to 2^31-1) otherwise.
  static Result<DataType> DateTime(DataTypeId id, std::string_view unit, std::int64_t scale_factor);
  // 'S<length>' (kFixedBytes) or '<U<length>' (kFixedUnicode), length in
  // characters. InvalidArgument for 0 or past NumPy's itemsize limit.
  static Result<DataType> FixedString(DataTypeId id, std::int64_t length);
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
  // The bool, integer, float and complex types: those arithmetic filters,
  // downsampling and the viewers take.
  bool is_numeric() const;
  bool is_datetime() const;  // datetime64 or timedelta64.
  // The datetime unit ("ns"); "" unless is_datetime().
  std::string_view datetime_unit() const;
  // The datetime unit's multiplier (10 in '<M8[10s]'); 0 unless is_datetime().
  std::uint32_t scale_factor() const;
  // Characters of a fixed-length string type; 0 for the others.
  std::uint32_t length() const;

  bool operator==(const DataType&) const = default;

 private:
  DataTypeId id_ = DataTypeId::kUInt8;
  std::uint8_t unit_ = 0;    // Index of the datetime unit.
  std::uint32_t param_ = 0;  // scale_factor() or length().
};

// Reverses the byte order of each `unit`-byte element of `data` in place.
// REQUIRES: data.size() is a multiple of unit; unit is 1, 2, 4 or 8.
void SwapByteOrder(std::size_t unit, std::span<std::uint8_t> data);

}  // namespace chunkwise::core

#endif  // CHUNKWISE_CORE_DATA_TYPE_H_
