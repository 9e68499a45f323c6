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
  Result<DataType> bad = ParseDataType("<S5");
  EXPECT_EQ(bad.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(bad.status().message().find("\"<S5\""), std::string::npos);
}

}  // namespace
}  // namespace chunkwise::core
