#include "core/dtype_text.h"

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

namespace chunkwise::core {
namespace {

// One parser for what users type: NumPy names and typestrs mean the same type.
TEST(ParseNpyDtype, TakesNumpyNamesAndTypestrs) {
  const std::vector<std::pair<std::string, std::string>> same = {
      {"uint16", "<u2"}, {"float32", "<f4"}, {"bool", "|b1"}, {"int64", "<i8"},
      {"uint8", "|u1"},  {"u2", "<u2"},      {">f8", ">f8"},  {"complex64", "<c8"}};
  for (const auto& [text, typestr] : same) {
    Result<NpyDtype> parsed = ParseNpyDtype(text);
    ASSERT_TRUE(parsed.ok()) << text << ": " << parsed.status().ToString();
    EXPECT_EQ(parsed->typestr(), typestr) << text;
  }
  Result<NpyDtype> bad = ParseNpyDtype("uint17");
  EXPECT_EQ(bad.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(bad.status().message().find("\"uint17\""), std::string::npos);
}

TEST(ParseDataType, TakesNumpyNamesAndTypestrs) {
  const std::vector<std::pair<std::string, DataTypeId>> same = {
      {"uint16", DataTypeId::kUInt16},   {"<u2", DataTypeId::kUInt16},  {"u2", DataTypeId::kUInt16},
      {"float32", DataTypeId::kFloat32}, {"<f4", DataTypeId::kFloat32}, {"bool", DataTypeId::kBool},
      {"|b1", DataTypeId::kBool},        {"|u1", DataTypeId::kUInt8}};
  for (const auto& [text, id] : same) {
    Result<DataType> parsed = ParseDataType(text);
    ASSERT_TRUE(parsed.ok()) << text << ": " << parsed.status().ToString();
    EXPECT_EQ(parsed->id(), id) << text;
  }
  Endian endian = Endian::kLittle;
  ASSERT_TRUE(ParseDataType(">u2", &endian).ok());
  EXPECT_EQ(endian, Endian::kBig);
  EXPECT_EQ(ParseDataType(">u2").status().code(), StatusCode::kInvalidArgument);
  Result<DataType> bad = ParseDataType("<V5");
  EXPECT_EQ(bad.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(bad.status().message().find("\"<V5\""), std::string::npos);
}

// The fixed-size NumPy types zarr-python 3 writes beyond the numeric set
// (#43): typestrs parse to a DataType that writes the same typestr back,
// with its element size and the unit it is byte-swapped in.
TEST(ParseDataType, TakesDatetimeAndFixedLengthStringTypestrs) {
  struct Case {
    const char* text;
    DataTypeId id;
    const char* typestr;
    std::size_t size, swap_unit;
  };
  for (const Case& c : {Case{"<M8[ns]", DataTypeId::kDateTime64, "<M8[ns]", 8, 8},
                        Case{"M8[10s]", DataTypeId::kDateTime64, "<M8[10s]", 8, 8},
                        Case{"<M8[1D]", DataTypeId::kDateTime64, "<M8[D]", 8, 8},
                        Case{"<m8[us]", DataTypeId::kTimeDelta64, "<m8[us]", 8, 8},
                        Case{"|S5", DataTypeId::kFixedBytes, "|S5", 5, 1},
                        Case{"S1", DataTypeId::kFixedBytes, "|S1", 1, 1},
                        Case{"<U3", DataTypeId::kFixedUnicode, "<U3", 12, 4},
                        Case{"U1", DataTypeId::kFixedUnicode, "<U1", 4, 4}}) {
    Result<DataType> parsed = ParseDataType(c.text);
    ASSERT_TRUE(parsed.ok()) << c.text << ": " << parsed.status().ToString();
    EXPECT_EQ(parsed->id(), c.id) << c.text;
    EXPECT_EQ(parsed->numpy_typestr(), c.typestr) << c.text;
    EXPECT_EQ(parsed->size(), c.size) << c.text;
    EXPECT_EQ(parsed->swap_unit(), c.swap_unit) << c.text;
    EXPECT_FALSE(parsed->is_numeric()) << c.text;
    EXPECT_EQ(NpyDtype::FromDataType(*parsed, Endian::kLittle).typestr(), c.typestr);
  }
  Endian endian = Endian::kLittle;
  Result<DataType> big = ParseDataType(">U2", &endian);
  ASSERT_TRUE(big.ok());
  EXPECT_EQ(endian, Endian::kBig);
  EXPECT_EQ(big->numpy_typestr(Endian::kBig), ">U2");
  // A generic datetime, an unknown unit, a zero-length string: refused, named.
  for (const char* text : {"<M8", "<M8[xs]", "<M8[0s]", "|S0", "<U0", "<M4[s]", "<m8[s"}) {
    Result<DataType> refused = ParseDataType(text);
    EXPECT_EQ(refused.status().code(), StatusCode::kInvalidArgument) << text;
    EXPECT_NE(refused.status().message().find(text), std::string::npos) << text;
  }
}

}  // namespace
}  // namespace chunkwise::core
