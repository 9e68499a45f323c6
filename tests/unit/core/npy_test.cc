#include "chunkwise/core/npy.h"

#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <numeric>
#include <string>
#include <vector>

namespace chunkwise::core {
namespace {

using namespace std::string_view_literals;

// Written by numpy 1.24.2 (np.save, or np.lib.format.write_array for version 2.0):
//   U2C        np.arange(6, dtype='<u2').reshape(2, 3)
//   F8Fortran  np.asfortranarray(np.arange(6, dtype='<f8').reshape(2, 3))
//   Structured np.dtype([('id', '<i4'), ('pos', '>f4', (3,)),
//                        ('rec', [('x', 'u1'), ('y', '<u2')])], align=True), 2 records
//   V2         np.arange(3, dtype='>i8'), version=(2, 0)
//   V3         [(1.5, 7)] of [('π', '<f4'), ('é', 'u1')] (not latin-1, so 3.0)
//   Latin1     [(258,)] of [('é', '<i2')] (latin-1, so 1.0)
//   Scalar     np.array(3.5, '>f4'); Empty np.zeros((0, 3), '<i8')
//   Unicode    np.array(['ab', 'c'], '<U2'); Datetime np.array([1, 2], '<M8[ns]')
//   Titled     [(5,)] of {'names': ['a'], 'formats': ['<i2'], 'titles': ['Alpha']}
constexpr std::string_view kGoldenU2C =
    "\223NUMPY\001\000v\000{'descr': '<u2', 'fortran_order': False, 'shape': (2, 3), }       "
    "                                                   \012\000\000\001\000\002\000\003\000"
    "\004\000\005\000"sv;
constexpr std::string_view kGoldenF8Fortran =
    "\223NUMPY\001\000v\000{'descr': '<f8', 'fortran_order': True, 'shape': (2, 3), }        "
    "                                                   \012\000\000\000\000\000\000\000\000"
    "\000\000\000\000\000\000\010@\000\000\000\000\000\000\360?\000\000\000\000\000\000\020@"
    "\000\000\000\000\000\000\000@\000\000\000\000\000\000\024@"sv;
constexpr std::string_view kGoldenStructured =
    "\223NUMPY\001\000\266\000{'descr': [('id', '<i4'), ('pos', '>f4', (3,)), ('rec', [('x', "
    "'|u1'), ('', '|V1'), ('y', '<u2')])], 'fortran_order': False, 'shape': (2,), }          "
    "                              \012\007\000\000\000?\200\000\000@\000\000\000@@\000\000"
    "\011\000,\001\377\377\377\377@\200\000\000@\240\000\000@\300\000\000\012\000\220\001"sv;
constexpr std::string_view kGoldenV2 =
    "\223NUMPY\002\000t\000\000\000{'descr': '>i8', 'fortran_order': False, 'shape': (3,), } "
    "                                                         \012\000\000\000\000\000\000"
    "\000\000\000\000\000\000\000\000\000\001\000\000\000\000\000\000\000\002"sv;
constexpr std::string_view kGoldenV3 =
    "\223NUMPY\003\000t\000\000\000{'descr': [('\317\200', '<f4'), ('\303\251', '|u1')], 'for"
    "tran_order': False, 'shape': (1,), }                                 \012\000\000\300?"
    "\007"sv;
constexpr std::string_view kGoldenLatin1 =
    "\223NUMPY\001\000v\000{'descr': [('\351', '<i2')], 'fortran_order': False, 'shape': (1,)"
    ", }                                                   \012\002\001"sv;
constexpr std::string_view kGoldenScalar =
    "\223NUMPY\001\000v\000{'descr': '>f4', 'fortran_order': False, 'shape': (), }           "
    "                                                   \012@`\000\000"sv;
constexpr std::string_view kGoldenEmpty =
    "\223NUMPY\001\000v\000{'descr': '<i8', 'fortran_order': False, 'shape': (0, 3), }       "
    "                                                   \012"sv;
constexpr std::string_view kGoldenUnicode =
    "\223NUMPY\001\000v\000{'descr': '<U2', 'fortran_order': False, 'shape': (2,), }         "
    "                                                   \012a\000\000\000b\000\000\000c\000"
    "\000\000\000\000\000\000"sv;
constexpr std::string_view kGoldenDatetime =
    "\223NUMPY\001\000v\000{'descr': '<M8[ns]', 'fortran_order': False, 'shape': (2,), }     "
    "                                                   \012\001\000\000\000\000\000\000\000"
    "\002\000\000\000\000\000\000\000"sv;
constexpr std::string_view kGoldenTitled =
    "\223NUMPY\001\000v\000{'descr': [(('Alpha', 'a'), '<i2')], 'fortran_order': False, 'shap"
    "e': (1,), }                                        \012\005\000"sv;

ByteView View(std::string_view bytes) { return AsBytes(bytes); }

NpyArray Parse(std::string_view bytes) {
  Result<NpyArray> array = ParseNpy(View(bytes), "golden");
  EXPECT_TRUE(array.ok()) << array.status().ToString();
  return array.ok() ? std::move(array).value() : NpyArray();
}

template <typename T>
T Load(const Bytes& data, std::size_t offset) {  // Native-order load, for test values.
  T value;
  std::memcpy(&value, &data[offset], sizeof(T));
  return value;
}

std::string ErrorOf(std::string_view bytes) {
  Result<NpyArray> array = ParseNpy(View(bytes), "bad.npy");
  return array.ok() ? "OK" : array.status().ToString();
}

NpyArray Make(std::string_view typestr, std::vector<std::int64_t> shape, bool fortran = false) {
  NpyArray array;
  array.dtype = *NpyDtype::FromTypestr(typestr);
  array.shape = std::move(shape);
  array.fortran_order = fortran;
  std::size_t size = array.dtype.itemsize();
  for (std::int64_t dim : array.shape) size *= static_cast<std::size_t>(dim);
  array.data.resize(size);
  for (std::size_t i = 0; i < size; ++i) array.data[i] = static_cast<std::uint8_t>(i * 7 + 1);
  return array;
}

TEST(Npy, ParsesNumpyGoldenValues) {
  const NpyArray u2 = Parse(kGoldenU2C);
  EXPECT_EQ(u2.dtype.typestr(), "<u2");
  EXPECT_EQ(u2.shape, (std::vector<std::int64_t>{2, 3}));
  EXPECT_FALSE(u2.fortran_order);
  for (std::size_t i = 0; i < 6; ++i)
    EXPECT_EQ(LoadLittleEndian<std::uint16_t>(&u2.data[2 * i]), i);

  const NpyArray scalar = Parse(kGoldenScalar);
  EXPECT_TRUE(scalar.shape.empty());
  EXPECT_EQ(scalar.dtype.typestr(), ">f4");
  EXPECT_EQ(scalar.data, (Bytes{0x40, 0x60, 0, 0}));  // 3.5f big-endian.

  const NpyArray empty = Parse(kGoldenEmpty);
  EXPECT_EQ(empty.shape, (std::vector<std::int64_t>{0, 3}));
  EXPECT_TRUE(empty.data.empty());

  EXPECT_EQ(Parse(kGoldenUnicode).dtype.itemsize(), 8u);
  EXPECT_EQ(Parse(kGoldenDatetime).dtype.datetime_unit(), "ns");
  const NpyArray titled = Parse(kGoldenTitled);
  ASSERT_EQ(titled.dtype.fields().size(), 1u);
  EXPECT_EQ(titled.dtype.fields()[0].title, std::optional<std::string>("Alpha"));
}

TEST(Npy, ParsesFortranGoldenAndConvertsToCOrder) {
  NpyArray array = Parse(kGoldenF8Fortran);
  EXPECT_TRUE(array.fortran_order);
  ASSERT_TRUE(ToCOrder(array).ok());
  EXPECT_FALSE(array.fortran_order);
  for (std::size_t i = 0; i < 6; ++i) EXPECT_EQ(Load<double>(array.data, 8 * i), double(i));
}

TEST(Npy, ParsesStructuredGolden) {
  const NpyArray array = Parse(kGoldenStructured);
  ASSERT_TRUE(array.dtype.is_structured());
  EXPECT_EQ(array.dtype.itemsize(), 20u);
  ASSERT_EQ(array.dtype.fields().size(), 3u);
  const NpyField& rec = array.dtype.fields()[2];
  EXPECT_EQ(rec.offset, 16u);
  ASSERT_EQ(rec.dtype.fields().size(), 3u);  // x, padding, y.
  EXPECT_EQ(rec.dtype.fields()[2].offset, 2u);
  EXPECT_EQ(LoadLittleEndian<std::uint32_t>(&array.data[0]), 7u);
  EXPECT_EQ(LoadLittleEndian<std::uint32_t>(&array.data[20]), 0xFFFFFFFFu);  // id -1.
  EXPECT_EQ(array.data[4], 0x3F);                                            // pos[0] 1.0f, '>'.
  EXPECT_EQ(LoadLittleEndian<std::uint16_t>(&array.data[20 + 18]), 400u);    // rec.y
}

TEST(Npy, ParsesVersion2And3Goldens) {
  Result<NpyHeader> v2 = ParseNpyHeader(View(kGoldenV2), "v2");
  ASSERT_TRUE(v2.ok()) << v2.status().ToString();
  EXPECT_EQ(v2->major_version, 2);
  EXPECT_EQ(v2->data_offset, 128u);
  EXPECT_EQ(v2->data_size, 24u);
  EXPECT_EQ(Parse(kGoldenV2).data[23], 2);

  Result<NpyHeader> v3 = ParseNpyHeader(View(kGoldenV3), "v3");
  ASSERT_TRUE(v3.ok()) << v3.status().ToString();
  EXPECT_EQ(v3->major_version, 3);
  EXPECT_EQ(v3->dtype.fields()[0].name, "\xcf\x80");  // π
  EXPECT_EQ(v3->dtype.fields()[1].name, "\xc3\xa9");  // é

  const NpyArray latin1 = Parse(kGoldenLatin1);
  EXPECT_EQ(latin1.dtype.fields()[0].name, "\xc3\xa9");  // Stored as the latin-1 byte 0xE9.
  EXPECT_EQ(LoadLittleEndian<std::uint16_t>(&latin1.data[0]), 258u);
}

TEST(Npy, SerializationIsByteIdenticalToNumpy) {
  for (std::string_view golden :
       {kGoldenU2C, kGoldenF8Fortran, kGoldenStructured, kGoldenV3, kGoldenLatin1, kGoldenScalar,
        kGoldenEmpty, kGoldenUnicode, kGoldenDatetime, kGoldenTitled}) {
    const Bytes bytes = SerializeNpy(Parse(golden));
    EXPECT_EQ(AsChars(bytes), golden) << golden.substr(10, 40);
  }
  const NpyArray v2 = Parse(kGoldenV2);
  Result<Bytes> header = SerializeNpyHeader(v2.dtype, v2.shape, v2.fortran_order, 2);
  ASSERT_TRUE(header.ok());
  header->insert(header->end(), v2.data.begin(), v2.data.end());
  EXPECT_EQ(AsChars(*header), kGoldenV2);
}

TEST(Npy, RoundTripsEveryNumericTypeInBothOrdersAndLayouts) {
  for (const DataType type : DataType::All()) {
    for (const Endian endian : {Endian::kLittle, Endian::kBig}) {
      for (const bool fortran : {false, true}) {
        const NpyArray array = Make(type.numpy_typestr(endian), {3, 4, 2}, fortran);
        const Bytes bytes = SerializeNpy(array);
        const std::string expected_start = "{'descr': '" + type.numpy_typestr(endian) +
                                           "', 'fortran_order': " + (fortran ? "True" : "False") +
                                           ", 'shape': (3, 4, 2), }";
        EXPECT_EQ(AsChars(bytes).substr(10, expected_start.size()), expected_start);
        Result<NpyArray> back = ParseNpy(bytes, "round trip");
        ASSERT_TRUE(back.ok()) << back.status().ToString();
        EXPECT_EQ(back->dtype, array.dtype);
        EXPECT_EQ(back->shape, array.shape);
        EXPECT_EQ(back->fortran_order, fortran);
        EXPECT_EQ(back->data, array.data);
      }
    }
  }
}

TEST(Npy, RoundTripsZeroDimEmptyAndStructuredArrays) {
  Result<NpyDtype> nested = NpyDtype::FromDescr(
      "[('a', '<i4'), ('', '|V4'), ('b', '>f8', (3, 2)), ('c', [('x', '|u1'), ('y', [('z', "
      "'<c8')], (2,))]), (('t', 'd'), '<M8[us]')]");
  ASSERT_TRUE(nested.ok());
  std::vector<NpyArray> arrays = {Make("<f8", {}), Make("|u1", {0}), Make("<i2", {4, 0, 3}),
                                  Make("|S3", {5}), Make("<U4", {2, 2})};
  NpyArray records;
  records.dtype = *nested;
  records.shape = {2, 3};
  records.fortran_order = true;
  records.data.assign(6 * nested->itemsize(), 0xAB);
  arrays.push_back(records);
  for (const NpyArray& array : arrays) {
    Result<NpyArray> back = ParseNpy(SerializeNpy(array), "round trip");
    ASSERT_TRUE(back.ok()) << back.status().ToString();
    EXPECT_EQ(back->dtype, array.dtype);
    EXPECT_EQ(back->dtype.ToDescr(), array.dtype.ToDescr());
    EXPECT_EQ(back->shape, array.shape);
    EXPECT_EQ(back->data, array.data);
  }
}

TEST(Npy, ChoosesTheVersionAsNumpyDoes) {
  auto version_of = [](const NpyDtype& dtype) {
    return SerializeNpyHeader(dtype, std::vector<std::int64_t>{1}, false).value()[6];
  };
  std::vector<NpyField> many;
  for (int i = 0; i < 5000; ++i) many.push_back({"f" + std::to_string(i), {}, NpyDtype(), {}, 0});
  const NpyDtype wide = *NpyDtype::Structured(many);
  EXPECT_EQ(version_of(wide), 2);
  EXPECT_EQ(version_of(*NpyDtype::FromDescr("[('\\xe9', '|u1')]")), 1);
  EXPECT_EQ(version_of(*NpyDtype::FromDescr("[('\\u03c0', '|u1')]")), 3);
  EXPECT_EQ(SerializeNpyHeader(wide, {}, false, 1).status().code(), StatusCode::kInvalidArgument);
  const NpyDtype pi = *NpyDtype::FromDescr("[('\\u03c0', '|u1')]");
  EXPECT_EQ(SerializeNpyHeader(pi, {}, false, 2).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(SerializeNpyHeader(pi, {}, false, 4).status().code(), StatusCode::kInvalidArgument);
  Result<NpyHeader> header = ParseNpyHeader(*SerializeNpyHeader(wide, {}, false), "wide");
  ASSERT_TRUE(header.ok()) << header.status().ToString();
  EXPECT_EQ(header->dtype, wide);
}

TEST(Npy, DataAlwaysStartsAtAMultipleOf64) {
  const NpyDtype dtype = *NpyDtype::FromTypestr("<u2");
  for (std::int64_t rank = 0; rank < 8; ++rank) {
    for (std::int64_t dim = 1; dim < 100000; dim *= 7) {
      for (const int version : {1, 2, 3}) {
        std::vector<std::int64_t> shape(static_cast<std::size_t>(rank), 3);
        if (rank > 0) shape[0] = dim;
        Result<Bytes> header = SerializeNpyHeader(dtype, shape, rank % 2 == 1, version);
        ASSERT_TRUE(header.ok());
        EXPECT_EQ(header->size() % 64, 0u);
        EXPECT_EQ(header->back(), '\n');
        Result<NpyHeader> parsed = ParseNpyHeader(*header, "aligned");
        ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
        EXPECT_EQ(parsed->shape, shape);
        EXPECT_EQ(parsed->data_offset, header->size());
      }
    }
  }
}

TEST(Npy, ConvertsBetweenFortranAndCOrder) {
  NpyArray array = Make("<u2", {2, 3, 4}, true);
  // Fill in Fortran order with each element's C-order linear index.
  for (std::int64_t k = 0, f = 0; k < 4; ++k) {
    for (std::int64_t j = 0; j < 3; ++j) {
      for (std::int64_t i = 0; i < 2; ++i, ++f) {
        StoreLittleEndian(static_cast<std::uint16_t>(i * 12 + j * 4 + k), &array.data[2 * f]);
      }
    }
  }
  const Bytes fortran_data = array.data;
  ASSERT_TRUE(ToCOrder(array).ok());
  EXPECT_FALSE(array.fortran_order);
  for (std::size_t i = 0; i < 24; ++i)
    EXPECT_EQ(LoadLittleEndian<std::uint16_t>(&array.data[2 * i]), i);
  ASSERT_TRUE(ToCOrder(array).ok());  // Already C: unchanged.
  ASSERT_TRUE(ToFortranOrder(array).ok());
  EXPECT_TRUE(array.fortran_order);
  EXPECT_EQ(array.data, fortran_data);

  NpyArray vector = Make("<f4", {5}, true);
  const Bytes vector_data = vector.data;
  ASSERT_TRUE(ToCOrder(vector).ok());
  EXPECT_EQ(vector.data, vector_data);
  NpyArray wrong = Make("<f4", {5}, true);
  wrong.data.pop_back();
  EXPECT_EQ(ToCOrder(wrong).code(), StatusCode::kInvalidArgument);
}

std::string WithHeader(std::string_view dict, int version = 1) {
  std::string bytes = "\x93NUMPY";
  bytes += static_cast<char>(version);
  bytes += '\0';
  bytes += static_cast<char>(dict.size() & 0xFF);
  bytes += static_cast<char>(dict.size() >> 8);
  if (version > 1) bytes += std::string(2, '\0');
  return bytes + std::string(dict);
}

TEST(Npy, ReportsEachKindOfCorruption) {
  const std::string golden(kGoldenU2C);
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"", "Corruption: npy 'bad.npy': truncated after 0 bytes"},
      {"\x93NUMPZ\x01", "bad magic"},
      {"PK\x03\x04", "bad magic"},
      {golden.substr(0, 9), "truncated inside the header length"},
      {golden.substr(0, 60), "header ends at byte 128, past the end of the file (60 bytes)"},
      {golden.substr(0, 127), "past the end of the file (127 bytes)"},
      {golden.substr(0, 139), "'bad.npy': data is 11 bytes, but shape (2, 3) of <u2 needs 12"},
      {golden + "x", "data is 13 bytes"},
      {WithHeader("{'descr': '<u2', 'fortran_order': False, 'shape': (-1,), }"), "negative"},
      {WithHeader("{'descr': '<u2', 'fortran_order': False, 'shape': (4611686018427387904, 4), }"),
       "overflows"},
      {WithHeader("{'descr': '<u2', 'fortran_order': False, 'shape': [2], }"), "not a tuple"},
      {WithHeader("{'descr': '<u2', 'fortran_order': 0, 'shape': (2,), }"), "not a bool"},
      {WithHeader("{'descr': '<u2', 'shape': (2,), }"), "no 'fortran_order'"},
      {WithHeader("{'descr': '<u2', 'fortran_order': False, 'shape': (), 'x': 1}"),
       "unexpected header key"},
      {WithHeader("{'descr': '<u2', 'descr': '<u2', 'fortran_order': False, 'shape': ()}"),
       "duplicate"},
      {WithHeader("{'descr': '<u7', 'fortran_order': False, 'shape': (), }"), "bad descr"},
      {WithHeader("{'descr': '<u2', 'fortran_order': False, 'shape': (), } }"),
       "after the literal"},
      {WithHeader("['descr']"), "not a dict"},
      {WithHeader("{'descr': '<u2\xe9', 'fortran_order': False, 'shape': (), }", 3),
       "invalid UTF-8"},
      {WithHeader("{'descr': '|O', 'fortran_order': False, 'shape': (), }"), "Unsupported: "},
  };
  for (const auto& [bytes, expected] : cases) {
    const std::string error = ErrorOf(bytes);
    EXPECT_NE(error.find(expected), std::string::npos) << "got: " << error;
  }
  std::string version = golden;
  version[6] = 4;
  EXPECT_EQ(ErrorOf(version),
            "Unsupported: npy 'bad.npy': format version 4.0 (supported: 1.0, 2.0, 3.0)");
  version[6] = 1;
  version[7] = 1;
  EXPECT_NE(ErrorOf(version).find("version 1.1"), std::string::npos);
}

TEST(Npy, AcceptsPython2LongsInOldHeaders) {
  NpyArray array =
      Parse(WithHeader("{'descr': '<u2', 'fortran_order': False, 'shape': (1L, 2L), }") +
            std::string(4, '\0'));
  EXPECT_EQ(array.shape, (std::vector<std::int64_t>{1, 2}));
}

// A smoke fuzz in the unit suite: every truncation and many byte flips of
// each golden must fail cleanly or parse, never read out of bounds.
TEST(Npy, TruncatedAndMutatedGoldensNeverCrash) {
  std::uint32_t seed = 12345;
  for (std::string_view golden : {kGoldenStructured, kGoldenV2, kGoldenV3, kGoldenTitled}) {
    for (std::size_t n = 0; n < golden.size(); ++n) {
      EXPECT_FALSE(ParseNpy(View(golden.substr(0, n)), "cut").ok());
    }
    for (int round = 0; round < 2000; ++round) {
      std::string bytes(golden);
      for (int flips = 0; flips < 3; ++flips) {
        seed = seed * 1664525u + 1013904223u;
        bytes[(seed >> 8) % bytes.size()] = static_cast<char>(seed >> 24);
      }
      (void)ParseNpy(View(bytes), "mutated");
    }
  }
}

}  // namespace
}  // namespace chunkwise::core
