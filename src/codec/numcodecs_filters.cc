#include "codec/numcodecs_filters.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>

#include "config_json.h"

namespace chunkwise::codec {
namespace {

using core::DataType;
using core::DataTypeId;

bool IsFloatType(DataType type) {
  return type.id() == DataTypeId::kFloat32 || type.id() == DataTypeId::kFloat64;
}

// Calls f(T{}) with the C++ type of `type`. REQUIRES: not float16 or complex.
template <typename F>
void VisitType(DataType type, F&& f) {
  switch (type.id()) {
    case DataTypeId::kBool:
      return f(bool{});
    case DataTypeId::kInt8:
      return f(std::int8_t{});
    case DataTypeId::kInt16:
      return f(std::int16_t{});
    case DataTypeId::kInt32:
      return f(std::int32_t{});
    case DataTypeId::kInt64:
      return f(std::int64_t{});
    case DataTypeId::kUInt8:
      return f(std::uint8_t{});
    case DataTypeId::kUInt16:
      return f(std::uint16_t{});
    case DataTypeId::kUInt32:
      return f(std::uint32_t{});
    case DataTypeId::kUInt64:
      return f(std::uint64_t{});
    case DataTypeId::kFloat32:
      return f(float{});
    case DataTypeId::kFloat64:
      return f(double{});
    default:
      CHUNKWISE_CHECK(false && "numcodecs filters take no float16 or complex");
  }
}

template <typename T>
T Load(const std::uint8_t* data, std::size_t i) {
  T value;
  std::memcpy(&value, data + i * sizeof(T), sizeof(T));
  return value;
}

template <typename T>
void Store(std::uint8_t* data, std::size_t i, T value) {
  std::memcpy(data + i * sizeof(T), &value, sizeof(T));
}

// A float, truncated, into an integer type as numpy's casts do on x86-64:
// types narrower than 4 bytes and int32 go through a 32-bit conversion, the
// others through a 64-bit one (uint64 directly when it fits); a value out of
// that conversion's range (or NaN) becomes its minimum, and the result wraps
// into the type. C++ leaves such casts undefined; numpy leaves them
// unspecified, but arrays written on x86 hold these values.
template <typename To>
To FloatToInteger(double whole) {
  using Via = std::conditional_t<(sizeof(To) < 4 || std::is_same_v<To, std::int32_t>), std::int32_t,
                                 std::int64_t>;
  if constexpr (std::is_same_v<To, std::uint64_t>) {
    if (whole >= 0 && whole < 18446744073709551616.0) return static_cast<To>(whole);
  }
  constexpr double kLow = static_cast<double>(std::numeric_limits<Via>::min());
  if (!(whole >= kLow && whole < -kLow)) {
    return static_cast<To>(std::numeric_limits<Via>::min());
  }
  return static_cast<To>(static_cast<Via>(whole));
}

// One element cast as numpy's astype casts it (see CastElements).
template <typename To, typename From>
To CastValue(From value) {
  if constexpr (std::is_same_v<To, bool>) {
    return value != From(0);
  } else if constexpr (std::is_floating_point_v<From> && std::is_integral_v<To>) {
    return FloatToInteger<To>(std::trunc(static_cast<double>(value)));
  } else {
    return static_cast<To>(value);  // Integers wrap (C++20); floats round to nearest.
  }
}

// The element types these filters compute with.
Status CheckFilterType(std::string_view codec, std::string_view key, DataType type) {
  if (!type.is_numeric() || type.id() == DataTypeId::kFloat16 || type.is_complex()) {
    return Status::Unsupported("codec '" + std::string(codec) + "': " + std::string(key) + " " +
                               type.numpy_typestr() + " is not supported");
  }
  return Status::Ok();
}

// The typestr at `key`: required unless `fallback` is given.
Result<NumpyType> GetNumpyType(std::string_view codec, const nlohmann::json& configuration,
                               std::string_view key, const NumpyType* fallback) {
  CHUNKWISE_ASSIGN_OR_RETURN(auto text, internal::GetString(codec, configuration, key));
  if (!text) {
    if (fallback != nullptr) return *fallback;
    return internal::BadField(codec, key, "is required");
  }
  core::Endian endian;
  Result<DataType> type = DataType::FromNumpyTypestr(*text, &endian);
  if (!type.ok()) {
    return Status::Unsupported("codec '" + std::string(codec) + "': " + std::string(key) + " \"" +
                               *text + "\" is not a numeric type");
  }
  CHUNKWISE_RETURN_IF_ERROR(CheckFilterType(codec, key, *type));
  return NumpyType{*text, *type};
}

// dtype (required) and astype (defaults to dtype).
Status GetTypes(std::string_view codec, const nlohmann::json& configuration, NumpyType& dtype,
                NumpyType& astype) {
  CHUNKWISE_ASSIGN_OR_RETURN(dtype, GetNumpyType(codec, configuration, "dtype", nullptr));
  CHUNKWISE_ASSIGN_OR_RETURN(astype, GetNumpyType(codec, configuration, "astype", &dtype));
  return Status::Ok();
}

// A JSON number, as numpy would take the Python number.
Result<double> GetNumber(std::string_view codec, const nlohmann::json& configuration,
                         std::string_view key) {
  if (!configuration.is_object() || !configuration.contains(key)) {
    return internal::BadField(codec, key, "is required");
  }
  const nlohmann::json& value = configuration[std::string(key)];
  if (!value.is_number()) {
    return internal::BadField(codec, key, "must be a number, got " + internal::ShowJson(value));
  }
  return value.get<double>();
}

}  // namespace

void CastElements(DataType from, const std::uint8_t* in, DataType to, std::uint8_t* out,
                  std::size_t n) {
  VisitType(from, [&](auto from_tag) {
    using From = decltype(from_tag);
    VisitType(to, [&](auto to_tag) {
      using To = decltype(to_tag);
      for (std::size_t i = 0; i < n; ++i) Store(out, i, CastValue<To>(Load<From>(in, i)));
    });
  });
}

// --- shared ------------------------------------------------------------------

Status NumcodecsFilter::CheckDecoded(const ChunkSpec& spec) const {
  if (spec.dtype != dtype_.type) {
    return Status::InvalidArgument("codec '" + std::string(name()) + "': its dtype \"" +
                                   dtype_.typestr + "\" is not the chunk's type " +
                                   std::string(spec.dtype.zarr_name()));
  }
  return Status::Ok();
}

Status NumcodecsFilter::CheckEncoded(const ChunkSpec& decoded, ByteView encoded) const {
  const std::size_t expected = decoded.num_elements() * astype_.type.size();
  if (encoded.size() != expected) {
    return Status::Corruption(std::string(name()) + ": " + std::to_string(encoded.size()) +
                              " encoded bytes, expected " + std::to_string(expected));
  }
  return Status::Ok();
}

Result<ChunkSpec> NumcodecsFilter::EncodedSpec(const ChunkSpec& decoded) const {
  CHUNKWISE_RETURN_IF_ERROR(CheckDecoded(decoded));
  return ChunkSpec{astype_.type, decoded.shape, {}};
}

// --- numcodecs.delta ---------------------------------------------------------

Result<std::shared_ptr<const DeltaCodec>> DeltaCodec::FromJson(
    const nlohmann::json& configuration) {
  constexpr std::string_view kName = "numcodecs.delta";
  CHUNKWISE_RETURN_IF_ERROR(internal::CheckConfigKeys(kName, configuration, {"dtype", "astype"}));
  NumpyType dtype, astype;
  CHUNKWISE_RETURN_IF_ERROR(GetTypes(kName, configuration, dtype, astype));
  const bool integers = dtype.type.is_integer() && astype.type.is_integer();
  const bool same_float = IsFloatType(dtype.type) && dtype.type == astype.type;
  if (!integers && !same_float) {
    return Status::Unsupported("codec 'numcodecs.delta': dtype \"" + dtype.typestr +
                               "\" with astype \"" + astype.typestr +
                               "\" is not supported (integers, or one float type)");
  }
  return std::shared_ptr<const DeltaCodec>(new DeltaCodec(std::move(dtype), std::move(astype)));
}

nlohmann::json DeltaCodec::ToJson() const {
  return {{"name", name()},
          {"configuration", {{"dtype", dtype_.typestr}, {"astype", astype_.typestr}}}};
}

Result<Bytes> DeltaCodec::Encode(const ChunkSpec& decoded, ByteView data) const {
  CHUNKWISE_RETURN_IF_ERROR(CheckDecoded(decoded));
  const std::size_t n = decoded.num_elements();
  Bytes out(n * astype_.type.size());
  VisitType(dtype_.type, [&](auto dtype_tag) {
    using T = decltype(dtype_tag);
    VisitType(astype_.type, [&](auto astype_tag) {
      using A = decltype(astype_tag);
      if constexpr (std::is_floating_point_v<T> && std::is_same_v<T, A>) {
        for (std::size_t i = 0; i < n; ++i) {
          const T previous = i == 0 ? T(0) : Load<T>(data.data(), i - 1);
          Store(out.data(), i,
                i == 0 ? Load<T>(data.data(), 0) : Load<T>(data.data(), i) - previous);
        }
      } else if constexpr (std::is_integral_v<T> && std::is_integral_v<A> &&
                           !std::is_same_v<T, bool> && !std::is_same_v<A, bool>) {
        std::uint64_t previous = 0;  // Differences wrap in T, as numpy's diff does.
        for (std::size_t i = 0; i < n; ++i) {
          const auto value = static_cast<std::uint64_t>(Load<T>(data.data(), i));
          Store(out.data(), i, static_cast<A>(static_cast<T>(value - previous)));
          previous = value;
        }
      }
    });
  });
  return out;
}

Result<Bytes> DeltaCodec::Decode(const ChunkSpec& decoded, ByteView encoded) const {
  CHUNKWISE_RETURN_IF_ERROR(CheckDecoded(decoded));
  CHUNKWISE_RETURN_IF_ERROR(CheckEncoded(decoded, encoded));
  const std::size_t n = decoded.num_elements();
  Bytes out(n * dtype_.type.size());
  VisitType(dtype_.type, [&](auto dtype_tag) {
    using T = decltype(dtype_tag);
    VisitType(astype_.type, [&](auto astype_tag) {
      using A = decltype(astype_tag);
      if constexpr (std::is_floating_point_v<T> && std::is_same_v<T, A>) {
        T sum = 0;
        for (std::size_t i = 0; i < n; ++i) {
          sum = i == 0 ? Load<T>(encoded.data(), 0) : sum + Load<T>(encoded.data(), i);
          Store(out.data(), i, sum);
        }
      } else if constexpr (std::is_integral_v<T> && std::is_integral_v<A> &&
                           !std::is_same_v<T, bool> && !std::is_same_v<A, bool>) {
        // numpy sums in 64 bits, extending each value by its own sign; wrapping
        // there and then in T gives the same bits.
        std::uint64_t sum = 0;
        for (std::size_t i = 0; i < n; ++i) {
          sum += static_cast<std::uint64_t>(Load<A>(encoded.data(), i));
          Store(out.data(), i, static_cast<T>(sum));
        }
      }
    });
  });
  return out;
}

// --- numcodecs.fixedscaleoffset ----------------------------------------------

Result<std::shared_ptr<const FixedScaleOffsetCodec>> FixedScaleOffsetCodec::FromJson(
    const nlohmann::json& configuration) {
  constexpr std::string_view kName = "numcodecs.fixedscaleoffset";
  CHUNKWISE_RETURN_IF_ERROR(
      internal::CheckConfigKeys(kName, configuration, {"offset", "scale", "dtype", "astype"}));
  NumpyType dtype, astype;
  CHUNKWISE_RETURN_IF_ERROR(GetTypes(kName, configuration, dtype, astype));
  CHUNKWISE_RETURN_IF_ERROR(GetNumber(kName, configuration, "offset").status());
  CHUNKWISE_RETURN_IF_ERROR(GetNumber(kName, configuration, "scale").status());
  const nlohmann::json& offset = configuration["offset"];
  const nlohmann::json& scale = configuration["scale"];
  // numpy keeps integer data integer when offset or scale is a Python int:
  // that arithmetic (and its overflow) is not implemented here.
  if (!IsFloatType(dtype.type) && (offset.is_number_integer() || scale.is_number_integer())) {
    return Status::Unsupported(
        "codec 'numcodecs.fixedscaleoffset': integer offset or scale on integer dtype \"" +
        dtype.typestr + "\" is not supported (write them as floats, e.g. 10.0)");
  }
  return std::shared_ptr<const FixedScaleOffsetCodec>(
      new FixedScaleOffsetCodec(std::move(dtype), std::move(astype), offset, scale));
}

nlohmann::json FixedScaleOffsetCodec::ToJson() const {
  return {{"name", name()},
          {"configuration",
           {{"offset", offset_json_},
            {"scale", scale_json_},
            {"dtype", dtype_.typestr},
            {"astype", astype_.typestr}}}};
}

Result<Bytes> FixedScaleOffsetCodec::Encode(const ChunkSpec& decoded, ByteView data) const {
  CHUNKWISE_RETURN_IF_ERROR(CheckDecoded(decoded));
  const std::size_t n = decoded.num_elements();
  Bytes out(n * astype_.type.size());
  const double offset = offset_json_.get<double>(), scale = scale_json_.get<double>();
  VisitType(dtype_.type, [&](auto dtype_tag) {
    using T = decltype(dtype_tag);
    // numpy computes in float32 for float32 data, else in float64.
    using C = std::conditional_t<std::is_same_v<T, float>, float, double>;
    VisitType(astype_.type, [&](auto astype_tag) {
      using A = decltype(astype_tag);
      for (std::size_t i = 0; i < n; ++i) {
        const C shifted = static_cast<C>(Load<T>(data.data(), i)) - static_cast<C>(offset);
        const C scaled = shifted * static_cast<C>(scale);
        Store(out.data(), i, CastValue<A>(std::nearbyint(scaled)));
      }
    });
  });
  return out;
}

Result<Bytes> FixedScaleOffsetCodec::Decode(const ChunkSpec& decoded, ByteView encoded) const {
  CHUNKWISE_RETURN_IF_ERROR(CheckDecoded(decoded));
  CHUNKWISE_RETURN_IF_ERROR(CheckEncoded(decoded, encoded));
  const std::size_t n = decoded.num_elements();
  Bytes out(n * dtype_.type.size());
  const double offset = offset_json_.get<double>(), scale = scale_json_.get<double>();
  VisitType(astype_.type, [&](auto astype_tag) {
    using A = decltype(astype_tag);
    using C = std::conditional_t<std::is_same_v<A, float>, float, double>;
    VisitType(dtype_.type, [&](auto dtype_tag) {
      using T = decltype(dtype_tag);
      for (std::size_t i = 0; i < n; ++i) {
        const C unscaled = static_cast<C>(Load<A>(encoded.data(), i)) / static_cast<C>(scale);
        Store(out.data(), i, CastValue<T>(unscaled + static_cast<C>(offset)));
      }
    });
  });
  return out;
}

// --- numcodecs.quantize ------------------------------------------------------

Result<std::shared_ptr<const QuantizeCodec>> QuantizeCodec::FromJson(
    const nlohmann::json& configuration) {
  constexpr std::string_view kName = "numcodecs.quantize";
  CHUNKWISE_RETURN_IF_ERROR(
      internal::CheckConfigKeys(kName, configuration, {"digits", "dtype", "astype"}));
  NumpyType dtype, astype;
  CHUNKWISE_RETURN_IF_ERROR(GetTypes(kName, configuration, dtype, astype));
  if (!IsFloatType(dtype.type) || !IsFloatType(astype.type)) {
    return Status::Unsupported("codec 'numcodecs.quantize': dtype \"" + dtype.typestr +
                               "\" and astype \"" + astype.typestr +
                               "\" must be float32 or float64");
  }
  CHUNKWISE_ASSIGN_OR_RETURN(auto digits,
                             internal::GetInt(kName, configuration, "digits", -300, 300));
  if (!digits) return internal::BadField(kName, "digits", "is required");
  return std::shared_ptr<const QuantizeCodec>(
      new QuantizeCodec(std::move(dtype), std::move(astype), static_cast<int>(*digits)));
}

nlohmann::json QuantizeCodec::ToJson() const {
  return {{"name", name()},
          {"configuration",
           {{"digits", digits_}, {"dtype", dtype_.typestr}, {"astype", astype_.typestr}}}};
}

Result<Bytes> QuantizeCodec::Encode(const ChunkSpec& decoded, ByteView data) const {
  CHUNKWISE_RETURN_IF_ERROR(CheckDecoded(decoded));
  // numcodecs' step: the power of two just finer than 10^-digits.
  const double precision = std::pow(10.0, -digits_);
  double exponent = std::log10(precision);
  exponent = exponent < 0 ? std::floor(exponent) : std::ceil(exponent);
  const double bits = std::ceil(std::log2(std::pow(10.0, -exponent)));
  const double scale = std::pow(2.0, bits);
  const std::size_t n = decoded.num_elements();
  Bytes out(n * astype_.type.size());
  VisitType(dtype_.type, [&](auto dtype_tag) {
    using T = decltype(dtype_tag);
    VisitType(astype_.type, [&](auto astype_tag) {
      using A = decltype(astype_tag);
      if constexpr (std::is_floating_point_v<T>) {
        const T step = static_cast<T>(scale);
        for (std::size_t i = 0; i < n; ++i) {
          const T rounded = std::nearbyint(step * Load<T>(data.data(), i));
          Store(out.data(), i, CastValue<A>(static_cast<T>(rounded / step)));
        }
      }
    });
  });
  return out;
}

Result<Bytes> QuantizeCodec::Decode(const ChunkSpec& decoded, ByteView encoded) const {
  CHUNKWISE_RETURN_IF_ERROR(CheckDecoded(decoded));
  CHUNKWISE_RETURN_IF_ERROR(CheckEncoded(decoded, encoded));
  Bytes out(decoded.num_elements() * dtype_.type.size());
  CastElements(astype_.type, encoded.data(), dtype_.type, out.data(), decoded.num_elements());
  return out;
}

// --- numcodecs.packbits ------------------------------------------------------

PackBitsCodec::PackBitsCodec()
    : NumcodecsFilter({"|b1", DataType(DataTypeId::kBool)}, {"|u1", DataType(DataTypeId::kUInt8)}) {
}

Result<std::shared_ptr<const PackBitsCodec>> PackBitsCodec::FromJson(
    const nlohmann::json& configuration) {
  CHUNKWISE_RETURN_IF_ERROR(internal::CheckConfigKeys("numcodecs.packbits", configuration, {}));
  return std::shared_ptr<const PackBitsCodec>(new PackBitsCodec());
}

nlohmann::json PackBitsCodec::ToJson() const {
  return {{"name", name()}, {"configuration", nlohmann::json::object()}};
}

Result<ChunkSpec> PackBitsCodec::EncodedSpec(const ChunkSpec& decoded) const {
  CHUNKWISE_RETURN_IF_ERROR(CheckDecoded(decoded));
  const std::size_t n = decoded.num_elements();
  return ChunkSpec{astype_.type, {static_cast<std::int64_t>(1 + (n + 7) / 8)}, {}};
}

Result<Bytes> PackBitsCodec::Encode(const ChunkSpec& decoded, ByteView data) const {
  CHUNKWISE_RETURN_IF_ERROR(CheckDecoded(decoded));
  const std::size_t n = decoded.num_elements();
  Bytes out(1 + (n + 7) / 8, 0);
  out[0] = static_cast<std::uint8_t>((8 - n % 8) % 8);
  for (std::size_t i = 0; i < n; ++i) {
    if (data[i] != 0) out[1 + i / 8] |= static_cast<std::uint8_t>(0x80u >> (i % 8));
  }
  return out;
}

Result<Bytes> PackBitsCodec::Decode(const ChunkSpec& decoded, ByteView encoded) const {
  CHUNKWISE_RETURN_IF_ERROR(CheckDecoded(decoded));
  const std::size_t n = decoded.num_elements();
  if (encoded.size() != 1 + (n + 7) / 8 || encoded[0] != (8 - n % 8) % 8) {
    return Status::Corruption("numcodecs.packbits: " + std::to_string(encoded.size()) +
                              " bytes with " +
                              (encoded.empty() ? std::string("no header")
                                               : std::to_string(encoded[0]) + " padding bits") +
                              " do not hold " + std::to_string(n) + " booleans");
  }
  Bytes out(n);
  for (std::size_t i = 0; i < n; ++i) out[i] = (encoded[1 + i / 8] >> (7 - i % 8)) & 1u;
  return out;
}

// --- numcodecs.astype --------------------------------------------------------

Result<std::shared_ptr<const AsTypeCodec>> AsTypeCodec::FromJson(
    const nlohmann::json& configuration) {
  constexpr std::string_view kName = "numcodecs.astype";
  CHUNKWISE_RETURN_IF_ERROR(
      internal::CheckConfigKeys(kName, configuration, {"encode_dtype", "decode_dtype"}));
  CHUNKWISE_ASSIGN_OR_RETURN(NumpyType decode,
                             GetNumpyType(kName, configuration, "decode_dtype", nullptr));
  CHUNKWISE_ASSIGN_OR_RETURN(NumpyType encode,
                             GetNumpyType(kName, configuration, "encode_dtype", nullptr));
  return std::shared_ptr<const AsTypeCodec>(new AsTypeCodec(std::move(decode), std::move(encode)));
}

nlohmann::json AsTypeCodec::ToJson() const {
  return {{"name", name()},
          {"configuration", {{"encode_dtype", astype_.typestr}, {"decode_dtype", dtype_.typestr}}}};
}

Result<Bytes> AsTypeCodec::Encode(const ChunkSpec& decoded, ByteView data) const {
  CHUNKWISE_RETURN_IF_ERROR(CheckDecoded(decoded));
  Bytes out(decoded.num_elements() * astype_.type.size());
  CastElements(dtype_.type, data.data(), astype_.type, out.data(), decoded.num_elements());
  return out;
}

Result<Bytes> AsTypeCodec::Decode(const ChunkSpec& decoded, ByteView encoded) const {
  CHUNKWISE_RETURN_IF_ERROR(CheckDecoded(decoded));
  CHUNKWISE_RETURN_IF_ERROR(CheckEncoded(decoded, encoded));
  Bytes out(decoded.num_elements() * dtype_.type.size());
  CastElements(astype_.type, encoded.data(), dtype_.type, out.data(), decoded.num_elements());
  return out;
}

}  // namespace chunkwise::codec
