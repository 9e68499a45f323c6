#include "chunkwise/core/npy_dtype.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace chunkwise::core {
namespace {

NpyDtype Typestr(std::string_view text) {
  Result<NpyDtype> dtype = NpyDtype::FromTypestr(text);
  EXPECT_TRUE(dtype.ok()) << text << ": " << dtype.status().ToString();
  return dtype.ok() ? *dtype : NpyDtype();
}

NpyDtype Descr(std::string_view text) {
  Result<NpyDtype> dtype = NpyDtype::FromDescr(text);
  EXPECT_TRUE(dtype.ok()) << text << ": " << dtype.status().ToString();
  return dtype.ok() ? *dtype : NpyDtype();
}

TEST(NpyDtype, TypestrIsCanonicalizedAsNumpyPrintsIt) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"<u2", "<u2"},       {"u2", "<u2"},  {"=f8", "<f8"},         {"|u2", "<u2"},
      {">i1", "|i1"},       {"<b1", "|b1"}, {"<S10", "|S10"},       {">V8", "|V8"},
      {"<U5", "<U5"},       {">U1", ">U1"}, {"<M8[ns]", "<M8[ns]"}, {">m8[10s]", ">m8[10s]"},
      {"M8[1s]", "<M8[s]"}, {"<M8", "<M8"}, {"<f16", "<f16"},       {">c32", ">c32"},
      {"<f2", "<f2"},       {"|S0", "|S0"}, {">c8", ">c8"},         {"<m8[us]", "<m8[us]"},
  };
  for (const auto& [input, expected] : cases)
    EXPECT_EQ(Typestr(input).typestr(), expected) << input;
}

TEST(NpyDtype, ItemsizeCountsUnicodeCharactersAsFourBytes) {
  EXPECT_EQ(Typestr("<U5").itemsize(), 20u);
  EXPECT_EQ(Typestr("|S10").itemsize(), 10u);
  EXPECT_EQ(Typestr("<M8[ns]").itemsize(), 8u);
  EXPECT_EQ(Typestr("<M8[ns]").datetime_unit(), "ns");
  EXPECT_EQ(Typestr("|V0").itemsize(), 0u);
}

TEST(NpyDtype, RejectsMalformedTypestrs) {
  for (const char* bad : {"", "<", "<q4", "<i3", "<b2", "<M4", "<M8[xs]", "<f8[ns]", "<u02", "<i",
                          "<U999999999999", "<M8[ns", "<M8[0s]", "<i4 ", "<<i4"}) {
    Result<NpyDtype> dtype = NpyDtype::FromTypestr(bad);
    ASSERT_FALSE(dtype.ok()) << bad;
    EXPECT_EQ(dtype.status().code(), StatusCode::kInvalidArgument) << bad;
  }
}

TEST(NpyDtype, RejectsObjectDtypeAsUnsupported) {
  for (const char* object : {"|O", "|O8", "O"}) {
    Result<NpyDtype> dtype = NpyDtype::FromTypestr(object);
    ASSERT_FALSE(dtype.ok());
    EXPECT_EQ(dtype.status().code(), StatusCode::kUnsupported);
    EXPECT_NE(dtype.status().message().find("object"), std::string_view::npos);
  }
  Result<NpyDtype> field = NpyDtype::FromDescr("[('a', '<i4'), ('o', '|O')]");
  ASSERT_FALSE(field.ok());
  EXPECT_EQ(field.status().code(), StatusCode::kUnsupported);
}

// Every descr here is what numpy 1.24's repr(dtype_to_descr(dtype)) printed.
TEST(NpyDtype, ToDescrReproducesNumpyDescrsExactly) {
  const std::vector<std::string> descrs = {
      "'<u2'",
      "'|b1'",
      "'<M8'",
      "[]",
      "[('a', '<i4'), ('', '|V4'), ('b', '>f8', (2,)), ('c', [('x', '|u1'), ('', '|V1'), "
      "('y', '<u2')]), ('', '|V4')]",
      "[(('Title A', 'a'), '<i2'), ('', '|V2'), ('b', '<f4'), ('', '|V4')]",
      "[('s', '|S5'), ('u', '<U3'), ('t', '<M8[ns]'), ('d', '>m8[10s]'), ('v', '|V3'), "
      "('q', [('z', '<c8')], (2, 2))]",
      "[('\xc3\xa9', '<i4'), (\"it's\", '|u1'), ('a\"b\\'', '|u1'), "
      "('\\x01\\t\\xa0\\xad\\u2028', '|u1')]",
  };
  for (const std::string& descr : descrs) EXPECT_EQ(Descr(descr).ToDescr(), descr);
}

TEST(NpyDtype, StructuredOffsetsAndItemsize) {
  const NpyDtype dtype = Descr(
      "[('a', '<i4'), ('', '|V4'), ('b', '>f8', (2,)), ('c', [('x', '|u1'), ('', '|V1'), "
      "('y', '<u2')]), ('', '|V4')]");
  ASSERT_TRUE(dtype.is_structured());
  EXPECT_EQ(dtype.kind(), 'V');
  EXPECT_EQ(dtype.itemsize(), 32u);
  ASSERT_EQ(dtype.fields().size(), 5u);
  EXPECT_EQ(dtype.fields()[2].name, "b");
  EXPECT_EQ(dtype.fields()[2].offset, 8u);
  EXPECT_EQ(dtype.fields()[2].shape, (std::vector<std::int64_t>{2}));
  EXPECT_EQ(dtype.fields()[3].offset, 24u);
  EXPECT_EQ(dtype.fields()[3].dtype.fields()[2].offset, 2u);
  EXPECT_EQ(dtype.fields()[4].offset, 28u);
}

TEST(NpyDtype, ParsesTitlesIntShapesAndPythonSpellings) {
  const NpyDtype dtype =
      Descr("[ ((u'T', \"n\"), '<i2', 3) ,\n ('\\x41\\u03c0\\101', [('z','<f4'),],(2,1),),]");
  ASSERT_EQ(dtype.fields().size(), 2u);
  EXPECT_EQ(dtype.fields()[0].title, std::optional<std::string>("T"));
  EXPECT_EQ(dtype.fields()[0].name, "n");
  EXPECT_EQ(dtype.fields()[0].shape, (std::vector<std::int64_t>{3}));
  EXPECT_EQ(dtype.fields()[1].name,
            "A\xcf\x80"
            "A");
  EXPECT_EQ(dtype.itemsize(), 6u + 8u);
  EXPECT_EQ(dtype.ToDescr(),
            "[(('T', 'n'), '<i2', (3,)), ('A\xcf\x80"
            "A', [('z', '<f4')], (2, 1))]");
}

TEST(NpyDtype, DescrSyntaxErrorsNameTheOffset) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"[('a', '<i4')", "offset 13"},
      {"'<i4", "unterminated string"},
      {"[('a' '<i4')]", "offset 6"},
      {"'\\q'", "unsupported escape"},
      {"'\\x4'", "truncated escape"},
      {"'\\ud800'", "Unicode scalar"},
      {"[('a', '<i4')] x", "after the literal"},
      {"Nope", "unknown name"},
      {"99999999999999999999", "too large"},
      {"[('a\n', '<i4')]", "unterminated"},
  };
  for (const auto& [text, expected] : cases) {
    Result<NpyDtype> dtype = NpyDtype::FromDescr(text);
    ASSERT_FALSE(dtype.ok()) << text;
    EXPECT_EQ(dtype.status().code(), StatusCode::kCorruption) << text;
    EXPECT_NE(dtype.status().message().find(expected), std::string_view::npos)
        << text << " -> " << dtype.status().ToString();
  }
}

TEST(NpyDtype, RejectsLiteralsThatAreNotDtypes) {
  for (const char* text : {"3", "None", "[('a',)]", "[('a', '<i4', (2,), 1)]", "[(1, '<i4')]",
                           "[('a', '<i4'), ('a', '<u1')]", "[('a', '<i4', (-1,))]",
                           "[('a', '<i4', ('x',))]", "(('<i4'), (2,))", "{'a': 1}"}) {
    Result<NpyDtype> dtype = NpyDtype::FromDescr(text);
    ASSERT_FALSE(dtype.ok()) << text;
    EXPECT_EQ(dtype.status().code(), StatusCode::kInvalidArgument) << text;
  }
}

TEST(NpyDtype, DeepNestingIsAnErrorNotACrash) {
  const std::string deep = std::string(100000, '[') + std::string(100000, ']');
  Result<NpyDtype> dtype = NpyDtype::FromDescr(deep);
  ASSERT_FALSE(dtype.ok());
  EXPECT_NE(dtype.status().message().find("nested too deeply"), std::string_view::npos);
}

TEST(NpyDtype, ItemsizeOverflowIsRejected) {
  Result<NpyDtype> dtype = NpyDtype::FromDescr("[('a', '<f8', (1000000, 1000000))]");
  ASSERT_FALSE(dtype.ok());
  EXPECT_EQ(dtype.status().code(), StatusCode::kInvalidArgument);
}

TEST(NpyDtype, AsDataTypeCoversEveryNumericTypeInBothOrders) {
  for (const DataType type : DataType::All()) {
    for (const Endian endian : {Endian::kLittle, Endian::kBig}) {
      const NpyDtype dtype = NpyDtype::FromDataType(type, endian);
      EXPECT_EQ(dtype.typestr(), type.numpy_typestr(endian));
      EXPECT_EQ(dtype.itemsize(), type.size());
      Endian read_endian = Endian::kLittle;
      EXPECT_EQ(dtype.AsDataType(&read_endian), type);
      if (type.size() > 1) {
        EXPECT_EQ(read_endian, endian);
      }
    }
  }
}

TEST(NpyDtype, AsDataTypeIsEmptyForTypesAZarrArrayCannotHold) {
  for (const char* text : {"|V8", "<m8", "<M8", "<f16", "<c32"}) {
    EXPECT_EQ(Typestr(text).AsDataType(nullptr), std::nullopt) << text;
  }
  EXPECT_EQ(Descr("[('a', '<i4')]").AsDataType(nullptr), std::nullopt);
}

// Datetimes with a unit and fixed-length strings are zarr types too (#43).
TEST(NpyDtype, AsDataTypeCoversDatetimesAndFixedLengthStrings) {
  for (const char* text : {"|S4", "<U2", ">U2", "<M8[ns]", ">m8[10s]"}) {
    Endian endian = Endian::kLittle;
    const std::optional<DataType> type = Typestr(text).AsDataType(&endian);
    ASSERT_TRUE(type.has_value()) << text;
    EXPECT_EQ(type->numpy_typestr(endian), text);
  }
}

TEST(NpyDtype, WithByteOrderChangesEveryMultiByteScalar) {
  const NpyDtype dtype = Descr("[('a', '>i4'), ('s', '|S3'), ('c', [('z', '>c8')], (2,))]");
  EXPECT_EQ(dtype.WithByteOrder(Endian::kLittle).ToDescr(),
            "[('a', '<i4'), ('s', '|S3'), ('c', [('z', '<c8')], (2,))]");
  EXPECT_EQ(Typestr("|u1").WithByteOrder(Endian::kBig).typestr(), "|u1");
}

TEST(NpyDtype, ConvertByteOrderSwapsFieldsAndComplexHalves) {
  const NpyDtype dtype = Descr("[('a', '>u2'), ('s', '|S2'), ('z', '>c8'), ('u', '>U1')]");
  Bytes data = {0x01, 0x02, 'h', 'i', 1, 2, 3, 4, 5, 6, 7, 8, 0, 0, 0, 'A'};
  ConvertByteOrder(dtype, Endian::kLittle, data);
  EXPECT_EQ(data, (Bytes{0x02, 0x01, 'h', 'i', 4, 3, 2, 1, 8, 7, 6, 5, 'A', 0, 0, 0}));
  Bytes numbers = {1, 2, 3, 4, 5, 6, 7, 8};
  ConvertByteOrder(Typestr(">u4"), Endian::kLittle, numbers);
  EXPECT_EQ(numbers, (Bytes{4, 3, 2, 1, 8, 7, 6, 5}));
  ConvertByteOrder(Typestr("<u4"), Endian::kLittle, numbers);  // Already little: unchanged.
  EXPECT_EQ(numbers, (Bytes{4, 3, 2, 1, 8, 7, 6, 5}));
}

TEST(NpyDtype, PythonReprMatchesCPython) {
  EXPECT_EQ(detail::PythonRepr("abc"), "'abc'");
  EXPECT_EQ(detail::PythonRepr("it's"), "\"it's\"");
  EXPECT_EQ(detail::PythonRepr("a\"b'"), "'a\"b\\''");
  EXPECT_EQ(detail::PythonRepr("back\\slash\n"), "'back\\\\slash\\n'");
  EXPECT_EQ(detail::PythonRepr("\x7f\x1f"), "'\\x7f\\x1f'");
  EXPECT_EQ(detail::PythonRepr("\xc3\xa9\xcf\x80\xf0\x9f\x98\x80"),
            "'\xc3\xa9\xcf\x80\xf0\x9f\x98\x80'");
  EXPECT_EQ(detail::PythonRepr("\xc2\x85\xef\xbb\xbf"), "'\\x85\\ufeff'");
  EXPECT_EQ(detail::PythonTupleRepr({}), "()");
  EXPECT_EQ(detail::PythonTupleRepr(std::vector<std::int64_t>{3}), "(3,)");
  EXPECT_EQ(detail::PythonTupleRepr(std::vector<std::int64_t>{2, 3}), "(2, 3)");
}

TEST(NpyDtype, DecodeUtf8RejectsMalformedSequences) {
  for (const char* bad : {"\x80", "\xc0\xaf", "\xed\xa0\x80", "\xf4\x90\x80\x80", "\xe2\x82"}) {
    std::size_t pos = 0;
    EXPECT_EQ(detail::DecodeUtf8(bad, &pos), -1) << bad;
    EXPECT_EQ(pos, 0u);
  }
  std::size_t pos = 0;
  EXPECT_EQ(detail::DecodeUtf8("\xe2\x82\xac", &pos), 0x20AC);
  EXPECT_EQ(pos, 3u);
}

}  // namespace
}  // namespace chunkwise::core
