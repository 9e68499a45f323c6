#include "formats/zarr/fill_value.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <optional>
#include <string>

#include "chunkwise/core/check.h"
#include "chunkwise/core/index.h"
#include "chunkwise/core/npy_dtype.h"
#include "core/base64.h"
#include "core/json.h"

namespace chunkwise::formats::zarr {
namespace {

using core::DataType;
using core::DataTypeId;

Status BadFill(const nlohmann::json& json, DataType dtype, std::string_view why) {
  return Status::InvalidArgument("fill_value " + json.dump() + " is not a valid " +
                                 std::string(dtype.zarr_name()) + ": " + std::string(why));
}

template <typename T>
FillValue ElementBytes(T value) {
  FillValue bytes(sizeof(T));
  std::memcpy(bytes.data(), &value, sizeof(T));
  return bytes;
}

// The raw bits of a "0x…" string, checked against the element size.
Result<std::uint64_t> ParseHexBits(const std::string& text, std::size_t size,
                                   const nlohmann::json& json, DataType dtype) {
  const std::size_t digits = text.size() - 2;
  if (digits == 0 || digits > 2 * size) return BadFill(json, dtype, "wrong number of hex digits");
  std::uint64_t bits = 0;
  for (std::size_t i = 2; i < text.size(); ++i) {
    const char c = text[i];
    int digit = -1;
    if (c >= '0' && c <= '9') digit = c - '0';
    if (c >= 'a' && c <= 'f') digit = c - 'a' + 10;
    if (c >= 'A' && c <= 'F') digit = c - 'A' + 10;
    if (digit < 0) return BadFill(json, dtype, "not a hex digit");
    bits = (bits << 4) | static_cast<std::uint64_t>(digit);
  }
  return bits;
}

// One float component (of a float or complex type) of `size` bytes.
Result<FillValue> ParseFloat(const nlohmann::json& json, std::size_t size, DataType dtype) {
  double value = 0;
  if (json.is_number()) {
    value = json.get<double>();
  } else if (json.is_string()) {
    const std::string text = json.get<std::string>();
    if (text == "NaN") {
      value = std::numeric_limits<double>::quiet_NaN();
    } else if (text == "Infinity") {
      value = std::numeric_limits<double>::infinity();
    } else if (text == "-Infinity") {
      value = -std::numeric_limits<double>::infinity();
    } else if (text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) {
      CHUNKWISE_ASSIGN_OR_RETURN(std::uint64_t bits, ParseHexBits(text, size, json, dtype));
      if (size == 2) return ElementBytes(static_cast<std::uint16_t>(bits));
      if (size == 4) return ElementBytes(static_cast<std::uint32_t>(bits));
      return ElementBytes(bits);
    } else {
      return BadFill(json, dtype, "expected a number, \"NaN\", \"Infinity\", \"-Infinity\" or 0x…");
    }
  } else {
    return BadFill(json, dtype, "expected a number");
  }
  if (size == 2) return ElementBytes(DoubleToHalf(value));
  if (size == 4) return ElementBytes(static_cast<float>(value));
  return ElementBytes(value);
}

template <typename T>
Result<FillValue> ParseInteger(const nlohmann::json& json, DataType dtype) {
  if (json.is_number_float()) {
    const double value = json.get<double>();
    if (value != std::floor(value)) return BadFill(json, dtype, "not an integer");
    // max() + 1 = 2^digits is exact as a double; max() itself may round up
    // to it (int64, uint64), which would let an out-of-range value through.
    if (!(value >= static_cast<double>(std::numeric_limits<T>::min()) &&
          value < std::ldexp(1.0, std::numeric_limits<T>::digits))) {
      return BadFill(json, dtype, "out of range");
    }
    return ElementBytes(static_cast<T>(value));
  }
  if (json.is_number_unsigned()) {
    const std::uint64_t value = json.get<std::uint64_t>();
    if (value > static_cast<std::uint64_t>(std::numeric_limits<T>::max())) {
      return BadFill(json, dtype, "out of range");
    }
    return ElementBytes(static_cast<T>(value));
  }
  if (json.is_number_integer()) {
    const std::int64_t value = json.get<std::int64_t>();
    if (value < static_cast<std::int64_t>(std::numeric_limits<T>::min()) ||
        (value > 0 && static_cast<std::uint64_t>(value) >
                          static_cast<std::uint64_t>(std::numeric_limits<T>::max()))) {
      return BadFill(json, dtype, "out of range");
    }
    return ElementBytes(static_cast<T>(value));
  }
  return BadFill(json, dtype, "expected an integer");
}

nlohmann::json FloatToJson(double value, std::uint64_t bits, std::uint64_t canonical_nan,
                           std::size_t size) {
  if (std::isnan(value)) {
    if (bits == canonical_nan) return "NaN";
    char text[24];
    std::snprintf(text, sizeof(text), "0x%0*llx", static_cast<int>(2 * size),
                  static_cast<unsigned long long>(bits));
    return text;
  }
  if (std::isinf(value)) return value > 0 ? "Infinity" : "-Infinity";
  return value;
}

// One float component of `size` bytes at `bytes`.
nlohmann::json FloatComponentToJson(const std::uint8_t* bytes, std::size_t size) {
  if (size == 2) {
    std::uint16_t bits;
    std::memcpy(&bits, bytes, 2);
    return FloatToJson(HalfToDouble(bits), bits, 0x7e00, 2);
  }
  if (size == 4) {
    std::uint32_t bits;
    std::memcpy(&bits, bytes, 4);
    return FloatToJson(std::bit_cast<float>(bits), bits, 0x7fc00000, 4);
  }
  std::uint64_t bits;
  std::memcpy(&bits, bytes, 8);
  return FloatToJson(std::bit_cast<double>(bits), bits, 0x7ff8000000000000, 8);
}

template <typename T>
nlohmann::json IntegerToJson(std::span<const std::uint8_t> element) {
  T value;
  std::memcpy(&value, element.data(), sizeof(T));
  return value;
}

// datetime64/timedelta64: the int64 count, or "NaT" (INT64_MIN).
Result<FillValue> ParseDatetime(const nlohmann::json& json, DataType dtype) {
  if (json == "NaT") return ElementBytes(std::numeric_limits<std::int64_t>::min());
  if (!json.is_number_integer()) return BadFill(json, dtype, "expected an integer or \"NaT\"");
  return ParseInteger<std::int64_t>(json, dtype);
}

// 'S<n>': base64 of at most n bytes, padded with NULs.
Result<FillValue> ParseFixedBytes(const nlohmann::json& json, DataType dtype) {
  if (!json.is_string()) return BadFill(json, dtype, "expected a base64 string");
  // zarr-python's JSON for a byte string fill value is its base64.
  Result<Bytes> decoded = core::DecodeBase64(json.get<std::string>());
  if (!decoded.ok()) return BadFill(json, dtype, "not base64");
  if (decoded->size() > dtype.size()) return BadFill(json, dtype, "longer than the type");
  FillValue bytes(decoded->begin(), decoded->end());
  bytes.resize(dtype.size(), 0);
  return bytes;
}

// '<U<n>': a string of at most n characters, as UTF-32 (host order) padded with NULs.
Result<FillValue> ParseFixedUnicode(const nlohmann::json& json, DataType dtype) {
  if (!json.is_string()) return BadFill(json, dtype, "expected a string");
  const std::string text = json.get<std::string>();
  FillValue bytes;
  for (std::size_t pos = 0; pos < text.size();) {
    const std::int32_t c = core::detail::DecodeUtf8(text, &pos);
    if (c < 0) return BadFill(json, dtype, "not UTF-8");
    const auto code = static_cast<std::uint32_t>(c);
    const FillValue unit = ElementBytes(code);
    bytes.insert(bytes.end(), unit.begin(), unit.end());
  }
  if (bytes.size() > dtype.size()) return BadFill(json, dtype, "longer than the type");
  bytes.resize(dtype.size(), 0);
  return bytes;
}

// A 'U' element as UTF-8, trailing NULs dropped (as NumPy reads it).
nlohmann::json FixedUnicodeToJson(std::span<const std::uint8_t> element) {
  std::vector<std::uint32_t> units(element.size() / 4);
  std::memcpy(units.data(), element.data(), element.size());
  while (!units.empty() && units.back() == 0) units.pop_back();
  std::string text;
  for (std::uint32_t c : units) {
    core::detail::AppendUtf8(c <= 0x10FFFF ? c : 0xFFFD, text);
  }
  return text;
}

// An 'S' element as base64, trailing NULs dropped (as zarr-python writes it).
nlohmann::json FixedBytesToJson(std::span<const std::uint8_t> element) {
  std::size_t size = element.size();
  while (size > 0 && element[size - 1] == 0) --size;
  return core::EncodeBase64(element.first(size));
}

}  // namespace

Result<FillValue> ParseFillValue(const nlohmann::json& json, DataType dtype) {
  switch (dtype.id()) {
    case DataTypeId::kBool:
      if (json.is_boolean()) return FillValue{static_cast<std::uint8_t>(json.get<bool>())};
      if (json.is_number_integer() && (json == 0 || json == 1)) {
        return FillValue{static_cast<std::uint8_t>(json.get<int>())};
      }
      return BadFill(json, dtype, "expected true or false");
    case DataTypeId::kInt8:
      return ParseInteger<std::int8_t>(json, dtype);
    case DataTypeId::kInt16:
      return ParseInteger<std::int16_t>(json, dtype);
    case DataTypeId::kInt32:
      return ParseInteger<std::int32_t>(json, dtype);
    case DataTypeId::kInt64:
      return ParseInteger<std::int64_t>(json, dtype);
    case DataTypeId::kUInt8:
      return ParseInteger<std::uint8_t>(json, dtype);
    case DataTypeId::kUInt16:
      return ParseInteger<std::uint16_t>(json, dtype);
    case DataTypeId::kUInt32:
      return ParseInteger<std::uint32_t>(json, dtype);
    case DataTypeId::kUInt64:
      return ParseInteger<std::uint64_t>(json, dtype);
    case DataTypeId::kFloat16:
    case DataTypeId::kFloat32:
    case DataTypeId::kFloat64:
      return ParseFloat(json, dtype.size(), dtype);
    case DataTypeId::kComplex64:
    case DataTypeId::kComplex128: {
      if (!json.is_array() || json.size() != 2) return BadFill(json, dtype, "expected [re, im]");
      CHUNKWISE_ASSIGN_OR_RETURN(FillValue real, ParseFloat(json[0], dtype.size() / 2, dtype));
      CHUNKWISE_ASSIGN_OR_RETURN(FillValue imag, ParseFloat(json[1], dtype.size() / 2, dtype));
      real.insert(real.end(), imag.begin(), imag.end());
      return real;
    }
    case DataTypeId::kDateTime64:
    case DataTypeId::kTimeDelta64:
      return ParseDatetime(json, dtype);
    case DataTypeId::kFixedBytes:
      return ParseFixedBytes(json, dtype);
    case DataTypeId::kFixedUnicode:
      return ParseFixedUnicode(json, dtype);
  }
  return BadFill(json, dtype, "unknown data type");
}

Result<FillValue> ParseFillValueText(std::string_view text, DataType dtype) {
  if (dtype.id() == DataTypeId::kFixedUnicode) return ParseFillValue(std::string(text), dtype);
  if (dtype.id() == DataTypeId::kFixedBytes) {
    if (text.size() > dtype.size()) {
      return Status::InvalidArgument("the fill value \"" + std::string(text) +
                                     "\" is longer than " + dtype.numpy_typestr() + " holds");
    }
    FillValue bytes(text.begin(), text.end());
    bytes.resize(dtype.size(), 0);
    return bytes;
  }
  const std::string trimmed(core::TrimSpaces(text));
  if (dtype.is_datetime() && trimmed == "NaT") return ParseFillValue("NaT", dtype);
  if (trimmed == "nan" || trimmed == "NaN") return ParseFillValue("NaN", dtype);
  if (trimmed == "inf" || trimmed == "+inf" || trimmed == "Infinity") {
    return ParseFillValue("Infinity", dtype);
  }
  if (trimmed == "-inf" || trimmed == "-Infinity") return ParseFillValue("-Infinity", dtype);
  if (trimmed.starts_with("0x") || trimmed.starts_with("0X")) return ParseFillValue(trimmed, dtype);
  Result<nlohmann::json> parsed = core::ParseJson(trimmed, "fill value");
  const nlohmann::json json = parsed.ok() ? std::move(parsed).value() : nlohmann::json();
  if (!(json.is_number() || json.is_boolean())) {
    return Status::InvalidArgument("the fill value \"" + trimmed +
                                   "\" is not a number, true/false, nan, inf, -inf or 0x…");
  }
  return ParseFillValue(json, dtype);
}

nlohmann::json FillValueToJson(std::span<const std::uint8_t> element, DataType dtype) {
  CHUNKWISE_CHECK(element.size() == dtype.size());
  switch (dtype.id()) {
    case DataTypeId::kBool:
      return element[0] != 0;
    case DataTypeId::kInt8:
      return IntegerToJson<std::int8_t>(element);
    case DataTypeId::kInt16:
      return IntegerToJson<std::int16_t>(element);
    case DataTypeId::kInt32:
      return IntegerToJson<std::int32_t>(element);
    case DataTypeId::kInt64:
      return IntegerToJson<std::int64_t>(element);
    case DataTypeId::kUInt8:
      return IntegerToJson<std::uint8_t>(element);
    case DataTypeId::kUInt16:
      return IntegerToJson<std::uint16_t>(element);
    case DataTypeId::kUInt32:
      return IntegerToJson<std::uint32_t>(element);
    case DataTypeId::kUInt64:
      return IntegerToJson<std::uint64_t>(element);
    case DataTypeId::kFloat16:
    case DataTypeId::kFloat32:
    case DataTypeId::kFloat64:
      return FloatComponentToJson(element.data(), element.size());
    case DataTypeId::kComplex64:
    case DataTypeId::kComplex128: {
      const std::size_t half = element.size() / 2;
      return nlohmann::json::array({FloatComponentToJson(element.data(), half),
                                    FloatComponentToJson(element.data() + half, half)});
    }
    case DataTypeId::kDateTime64:
    case DataTypeId::kTimeDelta64:
      return IntegerToJson<std::int64_t>(element);
    case DataTypeId::kFixedBytes:
      return FixedBytesToJson(element);
    case DataTypeId::kFixedUnicode:
      return FixedUnicodeToJson(element);
  }
  return nullptr;
}

bool IsFilledWith(ByteView data, std::span<const std::uint8_t> element) {
  if (data.empty()) return true;
  if (element.empty()) {
    return data[0] == 0 && std::memcmp(data.data(), data.data() + 1, data.size() - 1) == 0;
  }
  const std::size_t size = element.size();
  CHUNKWISE_CHECK(data.size() % size == 0);
  // The data is periodic with period `size` exactly when it equals itself shifted by one element.
  return std::memcmp(data.data(), element.data(), size) == 0 &&
         std::memcmp(data.data(), data.data() + size, data.size() - size) == 0;
}

double HalfToDouble(std::uint16_t bits) {
  const int sign = bits >> 15;
  const int exponent = (bits >> 10) & 0x1f;
  const int mantissa = bits & 0x3ff;
  double value;
  if (exponent == 0) {
    value = std::ldexp(mantissa, -24);
  } else if (exponent == 31) {
    value = mantissa == 0 ? std::numeric_limits<double>::infinity()
                          : std::numeric_limits<double>::quiet_NaN();
  } else {
    value = std::ldexp(mantissa + 1024, exponent - 25);
  }
  return sign ? -value : value;
}

std::uint16_t DoubleToHalf(double value) {
  const std::uint16_t sign = std::signbit(value) ? 0x8000 : 0;
  if (std::isnan(value)) return sign | 0x7e00;
  const double magnitude = std::fabs(value);
  if (magnitude >= 65520.0) return sign | 0x7c00;  // Rounds past the largest half, 65504.
  if (magnitude < std::ldexp(1.0, -14)) {
    // Subnormal: units of 2^-24, rounded to nearest even by nearbyint.
    return sign | static_cast<std::uint16_t>(std::nearbyint(std::ldexp(magnitude, 24)));
  }
  int exponent;
  const double fraction = std::frexp(magnitude, &exponent);  // magnitude = fraction·2^exponent.
  // 11 significant bits; a carry out of the mantissa correctly bumps the exponent.
  const auto significand = static_cast<std::uint32_t>(std::nearbyint(std::ldexp(fraction, 11)));
  const std::uint32_t biased = static_cast<std::uint32_t>(exponent + 14);
  return sign | static_cast<std::uint16_t>((biased << 10) + (significand - 1024));
}

}  // namespace chunkwise::formats::zarr
