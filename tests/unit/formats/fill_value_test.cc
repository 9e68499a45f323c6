#include "formats/zarr/fill_value.h"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

namespace chunkwise::formats::zarr {
namespace {

using core::DataType;
using core::DataTypeId;
using nlohmann::json;

template <typename T>
FillValue Element(T value) {
  FillValue bytes(sizeof(T));
  std::memcpy(bytes.data(), &value, sizeof(T));
  return bytes;
}

FillValue Concat(FillValue a, const FillValue& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

DataType Type(DataTypeId id) { return DataType(id); }

// Parses `json`, checks the element bytes, then checks FillValueToJson writes `json` again.
void ExpectRoundTrip(const json& input, DataTypeId id, const FillValue& bytes) {
  const Result<FillValue> parsed = ParseFillValue(input, Type(id));
  ASSERT_TRUE(parsed.ok()) << input.dump() << ": " << parsed.status().ToString();
  EXPECT_EQ(*parsed, bytes) << input.dump();
  EXPECT_EQ(FillValueToJson(*parsed, Type(id)), input) << input.dump();
}

void ExpectRefused(const json& input, DataTypeId id) {
  const Result<FillValue> parsed = ParseFillValue(input, Type(id));
  ASSERT_FALSE(parsed.ok()) << input.dump() << " was accepted for " << Type(id).zarr_name();
  EXPECT_EQ(parsed.status().code(), StatusCode::kInvalidArgument);
  // The message quotes the value.
  EXPECT_NE(std::string(parsed.status().message()).find(input.dump()), std::string::npos)
      << parsed.status().ToString();
}

TEST(FillValue, BoolRoundTrips) {
  ExpectRoundTrip(true, DataTypeId::kBool, {1});
  ExpectRoundTrip(false, DataTypeId::kBool, {0});
  ExpectRefused("true", DataTypeId::kBool);
  ExpectRefused(2, DataTypeId::kBool);
}

TEST(FillValue, SignedIntegersRoundTripAtTheirLimits) {
  ExpectRoundTrip(-128, DataTypeId::kInt8, Element<std::int8_t>(-128));
  ExpectRoundTrip(127, DataTypeId::kInt8, Element<std::int8_t>(127));
  ExpectRoundTrip(-32768, DataTypeId::kInt16, Element<std::int16_t>(-32768));
  ExpectRoundTrip(32767, DataTypeId::kInt16, Element<std::int16_t>(32767));
  ExpectRoundTrip(std::numeric_limits<std::int32_t>::min(), DataTypeId::kInt32,
                  Element(std::numeric_limits<std::int32_t>::min()));
  ExpectRoundTrip(std::numeric_limits<std::int64_t>::min(), DataTypeId::kInt64,
                  Element(std::numeric_limits<std::int64_t>::min()));
  ExpectRoundTrip(std::numeric_limits<std::int64_t>::max(), DataTypeId::kInt64,
                  Element(std::numeric_limits<std::int64_t>::max()));
  ExpectRoundTrip(0, DataTypeId::kInt32, Element<std::int32_t>(0));
}

TEST(FillValue, UnsignedIntegersRoundTripAtTheirLimits) {
  ExpectRoundTrip(255, DataTypeId::kUInt8, Element<std::uint8_t>(255));
  ExpectRoundTrip(65535, DataTypeId::kUInt16, Element<std::uint16_t>(65535));
  ExpectRoundTrip(4294967295u, DataTypeId::kUInt32, Element<std::uint32_t>(4294967295u));
  ExpectRoundTrip(std::numeric_limits<std::uint64_t>::max(), DataTypeId::kUInt64,
                  Element(std::numeric_limits<std::uint64_t>::max()));
  ExpectRoundTrip(7, DataTypeId::kUInt64, Element<std::uint64_t>(7));
}

TEST(FillValue, IntegralFloatsAreAcceptedForIntegers) {
  const Result<FillValue> parsed = ParseFillValue(json(42.0), Type(DataTypeId::kInt16));
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  EXPECT_EQ(*parsed, Element<std::int16_t>(42));
  const Result<FillValue> negative = ParseFillValue(json(-3.0), Type(DataTypeId::kInt64));
  ASSERT_TRUE(negative.ok());
  EXPECT_EQ(*negative, Element<std::int64_t>(-3));
}

TEST(FillValue, OutOfRangeIntegersAreRefused) {
  ExpectRefused(128, DataTypeId::kInt8);
  ExpectRefused(-129, DataTypeId::kInt8);
  ExpectRefused(256, DataTypeId::kUInt8);
  ExpectRefused(-1, DataTypeId::kUInt8);
  ExpectRefused(65536, DataTypeId::kUInt16);
  ExpectRefused(-32769, DataTypeId::kInt16);
  ExpectRefused(4294967296, DataTypeId::kUInt32);
  ExpectRefused(2147483648, DataTypeId::kInt32);
  ExpectRefused(std::uint64_t{9223372036854775808u}, DataTypeId::kInt64);
  ExpectRefused(-1, DataTypeId::kUInt64);
  ExpectRefused(300.0, DataTypeId::kUInt8);
  ExpectRefused(-1.0, DataTypeId::kUInt32);
}

// 2^63 and 2^64 are exactly representable as doubles, one past the largest
// int64 and uint64: a bound compared with <= after rounding the maximum to a
// double would let them through, and the cast would be undefined.
TEST(FillValue, FloatsJustPastTheLargestIntegersAreRefused) {
  ExpectRefused(9223372036854775808.0, DataTypeId::kInt64);
  ExpectRefused(18446744073709551616.0, DataTypeId::kUInt64);
  ExpectRefused(-9223372036854777856.0, DataTypeId::kInt64);
  const Result<FillValue> lowest =
      ParseFillValue(json(-9223372036854775808.0), Type(DataTypeId::kInt64));
  ASSERT_TRUE(lowest.ok()) << lowest.status().ToString();
  EXPECT_EQ(*lowest, Element(std::numeric_limits<std::int64_t>::min()));
}

TEST(FillValue, FractionsAreRefusedForIntegers) {
  ExpectRefused(1.5, DataTypeId::kInt32);
  ExpectRefused(-0.25, DataTypeId::kInt8);
  ExpectRefused(0.5, DataTypeId::kUInt64);
}

TEST(FillValue, WrongJsonTypesAreRefused) {
  ExpectRefused("1", DataTypeId::kInt32);
  ExpectRefused(true, DataTypeId::kUInt8);
  ExpectRefused(nullptr, DataTypeId::kInt16);
  ExpectRefused(json::array({1}), DataTypeId::kInt16);
  ExpectRefused(json::object(), DataTypeId::kFloat32);
  ExpectRefused("1.0", DataTypeId::kFloat64);
  ExpectRefused("nan", DataTypeId::kFloat32);  // The JSON form is spelled "NaN".
  ExpectRefused(1.0, DataTypeId::kComplex64);
  ExpectRefused(json::array({1.0}), DataTypeId::kComplex64);
  ExpectRefused(json::array({1.0, 2.0, 3.0}), DataTypeId::kComplex128);
}

TEST(FillValue, FloatsRoundTrip) {
  ExpectRoundTrip(1.0, DataTypeId::kFloat16, Element<std::uint16_t>(0x3c00));
  ExpectRoundTrip(-2.0, DataTypeId::kFloat16, Element<std::uint16_t>(0xc000));
  ExpectRoundTrip(65504.0, DataTypeId::kFloat16, Element<std::uint16_t>(0x7bff));
  ExpectRoundTrip(0.5, DataTypeId::kFloat32, Element(0.5f));
  ExpectRoundTrip(-2.25, DataTypeId::kFloat32, Element(-2.25f));
  ExpectRoundTrip(0.1, DataTypeId::kFloat64, Element(0.1));
  ExpectRoundTrip(-1e300, DataTypeId::kFloat64, Element(-1e300));
}

TEST(FillValue, FloatsFromIntegerJson) {
  const Result<FillValue> parsed = ParseFillValue(json(3), Type(DataTypeId::kFloat32));
  ASSERT_TRUE(parsed.ok());
  EXPECT_EQ(*parsed, Element(3.0f));
}

// Whatever element bytes the parser makes, FillValueToJson must spell them so
// that they parse back to the same bytes (zarr.json is rewritten from them).
TEST(FillValue, BytesSurviveFormatAndParse) {
  const std::vector<std::pair<DataTypeId, FillValue>> cases = {
      {DataTypeId::kFloat32, Element(0.1f)},
      {DataTypeId::kFloat32, Element(std::numeric_limits<float>::denorm_min())},
      {DataTypeId::kFloat32, Element(std::numeric_limits<float>::max())},
      {DataTypeId::kFloat32, Element(-0.0f)},
      {DataTypeId::kFloat64, Element(-0.0)},
      {DataTypeId::kFloat64, Element(std::numeric_limits<double>::denorm_min())},
      {DataTypeId::kFloat16, Element<std::uint16_t>(0x3555)},
      {DataTypeId::kFloat16, Element<std::uint16_t>(0x0001)},
      {DataTypeId::kFloat16, Element<std::uint16_t>(0x8000)},
      {DataTypeId::kFloat16, Element<std::uint16_t>(0xfbff)},
      {DataTypeId::kFloat32, Element<std::uint32_t>(0xffc00000)},  // NaN with the sign set.
      {DataTypeId::kFloat64, Element<std::uint64_t>(0x7ff0000000000001)},
      {DataTypeId::kComplex64, Concat(Element(0.1f), Element<std::uint32_t>(0x7fc00001))},
      {DataTypeId::kComplex128, Concat(Element(-0.0), Element(1e-310))},
  };
  for (const auto& [id, bytes] : cases) {
    const json written = FillValueToJson(bytes, Type(id));
    const Result<FillValue> parsed = ParseFillValue(written, Type(id));
    ASSERT_TRUE(parsed.ok()) << written.dump() << ": " << parsed.status().ToString();
    EXPECT_EQ(*parsed, bytes) << Type(id).zarr_name() << " " << written.dump();
  }
}

TEST(FillValue, SpecialFloatStrings) {
  ExpectRoundTrip("NaN", DataTypeId::kFloat16, Element<std::uint16_t>(0x7e00));
  ExpectRoundTrip("NaN", DataTypeId::kFloat32, Element<std::uint32_t>(0x7fc00000));
  ExpectRoundTrip("NaN", DataTypeId::kFloat64, Element<std::uint64_t>(0x7ff8000000000000));
  ExpectRoundTrip("Infinity", DataTypeId::kFloat16, Element<std::uint16_t>(0x7c00));
  ExpectRoundTrip("-Infinity", DataTypeId::kFloat16, Element<std::uint16_t>(0xfc00));
  ExpectRoundTrip("Infinity", DataTypeId::kFloat32, Element<std::uint32_t>(0x7f800000));
  ExpectRoundTrip("-Infinity", DataTypeId::kFloat32, Element<std::uint32_t>(0xff800000));
  ExpectRoundTrip("Infinity", DataTypeId::kFloat64, Element<std::uint64_t>(0x7ff0000000000000));
  ExpectRoundTrip("-Infinity", DataTypeId::kFloat64, Element<std::uint64_t>(0xfff0000000000000));
}

TEST(FillValue, HexStringsAreRawBits) {
  // The canonical quiet NaN in hex is written back as "NaN".
  Result<FillValue> parsed = ParseFillValue("0x7fc00000", Type(DataTypeId::kFloat32));
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  EXPECT_EQ(*parsed, Element<std::uint32_t>(0x7fc00000));
  EXPECT_EQ(FillValueToJson(*parsed, Type(DataTypeId::kFloat32)), json("NaN"));
  // Ordinary numbers in hex are written back as numbers.
  parsed = ParseFillValue("0x3F800000", Type(DataTypeId::kFloat32));
  ASSERT_TRUE(parsed.ok());
  EXPECT_EQ(*parsed, Element(1.0f));
  EXPECT_EQ(FillValueToJson(*parsed, Type(DataTypeId::kFloat32)), json(1.0));
  parsed = ParseFillValue("0x3c00", Type(DataTypeId::kFloat16));
  ASSERT_TRUE(parsed.ok());
  EXPECT_EQ(*parsed, Element<std::uint16_t>(0x3c00));
  parsed = ParseFillValue("0x4000000000000000", Type(DataTypeId::kFloat64));
  ASSERT_TRUE(parsed.ok());
  EXPECT_EQ(*parsed, Element(2.0));
  // Fewer digits than the element are leading zeros.
  parsed = ParseFillValue("0x1", Type(DataTypeId::kFloat32));
  ASSERT_TRUE(parsed.ok());
  EXPECT_EQ(*parsed, Element<std::uint32_t>(1));
}

TEST(FillValue, NonCanonicalNansAreWrittenAsHex) {
  ExpectRoundTrip("0x7fc00001", DataTypeId::kFloat32, Element<std::uint32_t>(0x7fc00001));
  ExpectRoundTrip("0xffc00000", DataTypeId::kFloat32, Element<std::uint32_t>(0xffc00000));
  ExpectRoundTrip("0x7f800001", DataTypeId::kFloat32, Element<std::uint32_t>(0x7f800001));
  ExpectRoundTrip("0x7ff0000000000001", DataTypeId::kFloat64,
                  Element<std::uint64_t>(0x7ff0000000000001));
  ExpectRoundTrip("0x7c01", DataTypeId::kFloat16, Element<std::uint16_t>(0x7c01));
  ExpectRoundTrip("0xfe00", DataTypeId::kFloat16, Element<std::uint16_t>(0xfe00));
}

TEST(FillValue, BadHexIsRefused) {
  ExpectRefused("0x", DataTypeId::kFloat32);
  ExpectRefused("0x7fc000000", DataTypeId::kFloat32);  // 9 digits for 4 bytes.
  ExpectRefused("0x12345", DataTypeId::kFloat16);
  ExpectRefused("0x7fg00000", DataTypeId::kFloat32);
  ExpectRefused("0x-1", DataTypeId::kFloat64);
  ExpectRefused("0x7fc00000", DataTypeId::kInt32);  // Hex is for floats only.
}

TEST(FillValue, ComplexRoundTrips) {
  ExpectRoundTrip(json::array({1.5, -2.0}), DataTypeId::kComplex64,
                  Concat(Element(1.5f), Element(-2.0f)));
  ExpectRoundTrip(json::array({0.1, 1e-300}), DataTypeId::kComplex128,
                  Concat(Element(0.1), Element(1e-300)));
  ExpectRoundTrip(json::array({"NaN", "-Infinity"}), DataTypeId::kComplex64,
                  Concat(Element<std::uint32_t>(0x7fc00000), Element<std::uint32_t>(0xff800000)));
  ExpectRoundTrip(json::array({"0x7ff0000000000002", 0.0}), DataTypeId::kComplex128,
                  Concat(Element<std::uint64_t>(0x7ff0000000000002), Element(0.0)));
}

TEST(FillValue, ParsesCommandLineText) {
  struct Case {
    const char* text;
    DataTypeId id;
    FillValue bytes;
  };
  const std::vector<Case> cases = {
      {"nan", DataTypeId::kFloat32, Element<std::uint32_t>(0x7fc00000)},
      {" NaN ", DataTypeId::kFloat64, Element<std::uint64_t>(0x7ff8000000000000)},
      {"inf", DataTypeId::kFloat16, Element<std::uint16_t>(0x7c00)},
      {"+inf", DataTypeId::kFloat32, Element<std::uint32_t>(0x7f800000)},
      {"-inf", DataTypeId::kFloat64, Element<std::uint64_t>(0xfff0000000000000)},
      {"0x7e01", DataTypeId::kFloat16, Element<std::uint16_t>(0x7e01)},
      {"-5", DataTypeId::kInt8, Element<std::int8_t>(-5)},
      {"2.5", DataTypeId::kFloat32, Element(2.5f)},
      {"true", DataTypeId::kBool, {1}},
      {"1e3", DataTypeId::kUInt16, Element<std::uint16_t>(1000)},
  };
  for (const Case& c : cases) {
    const Result<FillValue> parsed = ParseFillValueText(c.text, Type(c.id));
    ASSERT_TRUE(parsed.ok()) << c.text << ": " << parsed.status().ToString();
    EXPECT_EQ(*parsed, c.bytes) << c.text;
  }
  for (const char* bad : {"", "abc", "[1]", "\"1\"", "1 2", "null"}) {
    EXPECT_FALSE(ParseFillValueText(bad, Type(DataTypeId::kInt32)).ok()) << bad;
  }
  EXPECT_FALSE(ParseFillValueText("300", Type(DataTypeId::kUInt8)).ok());
  EXPECT_FALSE(ParseFillValueText("nan", Type(DataTypeId::kInt32)).ok());
}

TEST(FillValue, HalfToDoubleKnownValues) {
  EXPECT_EQ(HalfToDouble(0x3c00), 1.0);
  EXPECT_EQ(HalfToDouble(0xc000), -2.0);
  EXPECT_EQ(HalfToDouble(0x7bff), 65504.0);
  EXPECT_EQ(HalfToDouble(0x0001), std::ldexp(1.0, -24));         // Smallest subnormal.
  EXPECT_EQ(HalfToDouble(0x03ff), 1023 * std::ldexp(1.0, -24));  // Largest subnormal.
  EXPECT_EQ(HalfToDouble(0x0400), std::ldexp(1.0, -14));         // Smallest normal.
  EXPECT_EQ(HalfToDouble(0x3555), 0.333251953125);
  EXPECT_EQ(HalfToDouble(0x7c00), std::numeric_limits<double>::infinity());
  EXPECT_EQ(HalfToDouble(0xfc00), -std::numeric_limits<double>::infinity());
  EXPECT_TRUE(std::isnan(HalfToDouble(0x7e00)));
  EXPECT_TRUE(std::isnan(HalfToDouble(0x7c01)));
  EXPECT_EQ(HalfToDouble(0x0000), 0.0);
  EXPECT_TRUE(std::signbit(HalfToDouble(0x8000)));
}

TEST(FillValue, DoubleToHalfKnownValues) {
  EXPECT_EQ(DoubleToHalf(1.0), 0x3c00);
  EXPECT_EQ(DoubleToHalf(-2.0), 0xc000);
  EXPECT_EQ(DoubleToHalf(65504.0), 0x7bff);
  EXPECT_EQ(DoubleToHalf(std::ldexp(1.0, -24)), 0x0001);
  EXPECT_EQ(DoubleToHalf(std::ldexp(1.0, -14)), 0x0400);
  EXPECT_EQ(DoubleToHalf(0.0), 0x0000);
  EXPECT_EQ(DoubleToHalf(-0.0), 0x8000);
  EXPECT_EQ(DoubleToHalf(1.0 / 3.0), 0x3555);
  EXPECT_EQ(DoubleToHalf(std::numeric_limits<double>::infinity()), 0x7c00);
  EXPECT_EQ(DoubleToHalf(-std::numeric_limits<double>::infinity()), 0xfc00);
  EXPECT_EQ(DoubleToHalf(std::numeric_limits<double>::quiet_NaN()), 0x7e00);
}

TEST(FillValue, DoubleToHalfRoundsTiesToEven) {
  const double unit = std::ldexp(1.0, -24);     // One subnormal step.
  EXPECT_EQ(DoubleToHalf(0.5 * unit), 0x0000);  // Tie between 0 and 1: 0 is even.
  EXPECT_EQ(DoubleToHalf(0.50001 * unit), 0x0001);
  EXPECT_EQ(DoubleToHalf(1.5 * unit), 0x0002);     // Tie between 1 and 2.
  EXPECT_EQ(DoubleToHalf(2.5 * unit), 0x0002);     // Tie between 2 and 3.
  EXPECT_EQ(DoubleToHalf(1023.5 * unit), 0x0400);  // The largest subnormal rounds up to normal.
  EXPECT_EQ(DoubleToHalf(1.0 + std::ldexp(1.0, -11)), 0x3c00);      // Tie: 0x3c00 is even.
  EXPECT_EQ(DoubleToHalf(1.0 + 3 * std::ldexp(1.0, -11)), 0x3c02);  // Tie: 0x3c02 is even.
  EXPECT_EQ(DoubleToHalf(2049.0), 0x6800);                          // Tie between 2048 and 2050.
  EXPECT_EQ(DoubleToHalf(2051.0), 0x6802);                          // Tie between 2050 and 2052.
  EXPECT_EQ(DoubleToHalf(2.0 - std::ldexp(1.0, -12)), 0x4000);      // The carry bumps the exponent.
  EXPECT_EQ(DoubleToHalf(-2049.0), 0xe800);
}

TEST(FillValue, DoubleToHalfOverflowsToInfinity) {
  EXPECT_EQ(DoubleToHalf(65519.99), 0x7bff);  // Below the tie with 65536.
  EXPECT_EQ(DoubleToHalf(65520.0), 0x7c00);   // The tie rounds to even: infinity.
  EXPECT_EQ(DoubleToHalf(1e10), 0x7c00);
  EXPECT_EQ(DoubleToHalf(-1e300), 0xfc00);
  EXPECT_EQ(DoubleToHalf(std::ldexp(1.0, -30)), 0x0000);  // Underflows to zero.
  EXPECT_EQ(DoubleToHalf(-std::ldexp(1.0, -30)), 0x8000);
}

TEST(FillValue, EveryFiniteHalfSurvivesTheRoundTrip) {
  for (std::uint32_t bits = 0; bits <= 0xffff; ++bits) {
    const auto half = static_cast<std::uint16_t>(bits);
    if ((half & 0x7c00) == 0x7c00 && (half & 0x03ff) != 0) continue;  // NaN payloads.
    ASSERT_EQ(DoubleToHalf(HalfToDouble(half)), half) << std::hex << bits;
  }
}

TEST(FillValue, IsFilledWithSingleBytes) {
  const Bytes zeros(10, 0);
  EXPECT_TRUE(IsFilledWith(zeros, FillValue{0}));
  EXPECT_FALSE(IsFilledWith(zeros, FillValue{1}));
  Bytes almost = zeros;
  almost[9] = 1;
  EXPECT_FALSE(IsFilledWith(almost, FillValue{0}));
  EXPECT_TRUE(IsFilledWith(Bytes(5, 7), FillValue{7}));
  EXPECT_TRUE(IsFilledWith(Bytes(), FillValue{7}));  // No elements: vacuously filled.
}

TEST(FillValue, IsFilledWithEmptyElementMeansZero) {
  EXPECT_TRUE(IsFilledWith(Bytes(12, 0), FillValue{}));
  Bytes data(12, 0);
  data[0] = 1;
  EXPECT_FALSE(IsFilledWith(data, FillValue{}));
  data[0] = 0;
  data[11] = 0x80;
  EXPECT_FALSE(IsFilledWith(data, FillValue{}));
  EXPECT_TRUE(IsFilledWith(Bytes(), FillValue{}));
  EXPECT_TRUE(IsFilledWith(Bytes(1, 0), FillValue{}));
  EXPECT_FALSE(IsFilledWith(Bytes(1, 2), FillValue{}));
}

TEST(FillValue, IsFilledWithMultiByteElements) {
  const FillValue element = {0x34, 0x12};
  const Bytes filled = {0x34, 0x12, 0x34, 0x12, 0x34, 0x12};
  EXPECT_TRUE(IsFilledWith(filled, element));
  EXPECT_TRUE(IsFilledWith(Bytes{0x34, 0x12}, element));
  // Same bytes, but one element swapped.
  EXPECT_FALSE(IsFilledWith(Bytes{0x34, 0x12, 0x12, 0x34, 0x34, 0x12}, element));
  // Periodic with the wrong phase.
  EXPECT_FALSE(IsFilledWith(Bytes{0x12, 0x34, 0x12, 0x34}, element));
  // Only the last element differs.
  EXPECT_FALSE(IsFilledWith(Bytes{0x34, 0x12, 0x34, 0x12, 0x34, 0x13}, element));
  const FillValue nan = Element<std::uint64_t>(0x7ff8000000000000);
  Bytes nans;
  for (int i = 0; i < 9; ++i) nans.insert(nans.end(), nan.begin(), nan.end());
  EXPECT_TRUE(IsFilledWith(nans, nan));
  nans[8 * 5 + 7] ^= 0x80;  // One NaN with the sign flipped is still not the fill's bits.
  EXPECT_FALSE(IsFilledWith(nans, nan));
  // A float zero of the right size against its own bytes, and against an empty element.
  const Bytes float_zeros(16, 0);
  EXPECT_TRUE(IsFilledWith(float_zeros, Element(0.0f)));
  EXPECT_FALSE(IsFilledWith(float_zeros, Element(-0.0f)));
}

TEST(FillValue, EveryDataTypeFormatsAndParsesItsZero) {
  for (const DataType dtype : DataType::All()) {
    const FillValue zero(dtype.size(), 0);
    const json written = FillValueToJson(zero, dtype);
    const Result<FillValue> parsed = ParseFillValue(written, dtype);
    ASSERT_TRUE(parsed.ok()) << dtype.zarr_name() << ": " << parsed.status().ToString();
    EXPECT_EQ(*parsed, zero) << dtype.zarr_name();
  }
}

}  // namespace
}  // namespace chunkwise::formats::zarr
