// The pure bcolz layouts: .blp header, Blosc1 header checks, meta files, dtype strings.
#include <blosc.h>
#include <gtest/gtest.h>

#include <string>

#include "formats/bcolz/blp_format.h"
#include "formats/bcolz/meta.h"

namespace chunkwise::formats::bcolz {
namespace {

Bytes BlpFile(const Bytes& data, int typesize = 4) {
  Bytes file(kBlpHeaderSize + data.size() + BLOSC_MAX_OVERHEAD);
  EncodeBlpHeader(file.data());
  const int n =
      blosc_compress_ctx(5, 1, typesize, data.size(), data.data(), file.data() + kBlpHeaderSize,
                         file.size() - kBlpHeaderSize, "lz4", 0, 1);
  file.resize(kBlpHeaderSize + static_cast<std::size_t>(n));
  return file;
}

Bytes Ramp(std::size_t n) {
  Bytes data(n);
  for (std::size_t i = 0; i < n; ++i) data[i] = static_cast<std::uint8_t>(i / 7);
  return data;
}

void ExpectError(const Status& status, StatusCode code, std::string_view fragment) {
  EXPECT_EQ(status.code(), code) << status.ToString();
  EXPECT_NE(status.message().find(fragment), std::string::npos) << status.ToString();
}

TEST(BlpFormat, HeaderBytes) {
  std::uint8_t header[kBlpHeaderSize];
  EncodeBlpHeader(header);
  const std::uint8_t expected[] = {'b', 'l', 'p', 'k', 1, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0};
  EXPECT_EQ(0, std::memcmp(header, expected, kBlpHeaderSize));
}

TEST(BlpFormat, ParsesWhatCBloscWrites) {
  const Bytes file = BlpFile(Ramp(40000));
  auto header = ParseBlpFile(file, "data/__0.blp");
  ASSERT_TRUE(header.ok()) << header.status().ToString();
  EXPECT_EQ(header->nbytes, 40000u);
  EXPECT_EQ(header->typesize, 4);
  EXPECT_EQ(header->cbytes, file.size() - kBlpHeaderSize);
  EXPECT_EQ(header->version, 2);
  EXPECT_EQ(header->flags >> 5, 1);  // lz4's format code.
}

TEST(BlpFormat, RejectsTruncatedFileNamingIt) {
  Bytes file = BlpFile(Ramp(40000));
  file.resize(file.size() - 10);
  ExpectError(ParseBlpFile(file, "root/data/__3.blp").status(), StatusCode::kCorruption,
              "root/data/__3.blp: truncated");
  ExpectError(ParseBlpFile(ByteView(file.data(), 9), "x.blp").status(), StatusCode::kCorruption,
              "x.blp: truncated");
  ExpectError(ParseBlpFile(ByteView(file.data(), 20), "x.blp").status(), StatusCode::kCorruption,
              "truncated");
}

TEST(BlpFormat, RejectsBadMagicVersionAndCount) {
  Bytes file = BlpFile(Ramp(1000));
  Bytes bad = file;
  bad[0] = 'x';
  ExpectError(CheckBlpHeader(bad, "f"), StatusCode::kCorruption, "magic");
  bad = file;
  bad[4] = 3;
  ExpectError(CheckBlpHeader(bad, "f"), StatusCode::kCorruption, "version 3");
  bad = file;
  bad[8] = 2;
  ExpectError(CheckBlpHeader(bad, "f"), StatusCode::kCorruption, "2 Blosc chunks");
  bad = file;
  StoreLittleEndian<std::uint64_t>(~std::uint64_t{0}, bad.data() + 8);  // -1: unknown, accepted.
  EXPECT_TRUE(CheckBlpHeader(bad, "f").ok());
}

TEST(BlpFormat, RejectsBlosc2AndZeroFields) {
  Bytes file = BlpFile(Ramp(1000));
  Bytes bad = file;
  bad[kBlpHeaderSize + 2] |= 0x05;
  ExpectError(ParseBlpFile(bad, "f").status(), StatusCode::kUnsupported, "Blosc2");
  bad = file;
  bad[kBlpHeaderSize + 3] = 0;
  ExpectError(ParseBlpFile(bad, "f").status(), StatusCode::kCorruption, "typesize");
}

TEST(BcolzMeta, DtypeStringsBothWays) {
  const std::pair<const char*, const char*> cases[] = {
      {"int32", "<i4"},
      {"float64", "<f8"},
      {"bool", "|b1"},
      {"uint8", "|u1"},
      {"complex128", "<c16"},
      {"float16", "<f2"},
      {">i4", ">i4"},
      {"datetime64[ns]", "<M8[ns]"},
      {"timedelta64[s]", "<m8[s]"},
      {"|S10", "|S10"},
      {"<U5", "<U5"},
      {"|V8", "|V8"},
  };
  for (const auto& [text, typestr] : cases) {
    auto dtype = DtypeFromString(text);
    ASSERT_TRUE(dtype.ok()) << text << ": " << dtype.status().ToString();
    EXPECT_EQ(dtype->typestr(), typestr) << text;
    EXPECT_EQ(DtypeToString(*dtype), text);
  }
  auto structured = DtypeFromString("[('a', '<i4'), ('b', '<f8', (2,))]");
  ASSERT_TRUE(structured.ok());
  EXPECT_EQ(structured->itemsize(), 20u);
  EXPECT_EQ(DtypeToString(*structured), "[('a', '<i4'), ('b', '<f8', (2,))]");
}

TEST(BcolzMeta, UnmappableDtypesNamed) {
  for (const char* text : {"object", "|O", "int33", "", "('<i4', (2,))", "int32[ns]"}) {
    auto dtype = DtypeFromString(text);
    ASSERT_FALSE(dtype.ok()) << text;
    EXPECT_NE(dtype.status().message().find(text), std::string::npos) << dtype.status().ToString();
  }
}

TEST(BcolzMeta, TypesizeRules) {
  EXPECT_EQ(BloscTypesize(*DtypeFromString("|S10")), 1);
  EXPECT_EQ(BloscTypesize(*DtypeFromString("<U5")), 4);
  EXPECT_EQ(BloscTypesize(*DtypeFromString("float64")), 8);
  EXPECT_EQ(BloscTypesize(*DtypeFromString("|V300")), 1);
  EXPECT_EQ(BloscTypesize(*DtypeFromString("[('a', '<i4'), ('b', '<f8')]")), 12);
}

TEST(BcolzMeta, ChunklenFollowsBcolz) {
  // Values computed with bcolz 1.2's utils.calc_chunksize(expectedlen * atomsize / MB) //
  // atomsize in Python; int() truncates toward zero, so 0.38 MB lands in zone 0.
  EXPECT_EQ(ChunklenForExpectedlen(0, 8), 2048);             // Floor: 16 KB.
  EXPECT_EQ(ChunklenForExpectedlen(100000, 4), 65536);       // 0.38 MB: 256 KB.
  EXPECT_EQ(ChunklenForExpectedlen(1 << 20, 8), 32768);      // 8 MB: 256 KB.
  EXPECT_EQ(ChunklenForExpectedlen(1000000000, 8), 262144);  // 7.6 GB: 2 MB.
  EXPECT_EQ(ChunklenForExpectedlen(1LL << 40, 8), 524288);   // Ceiling: 4 MB.
  EXPECT_EQ(ChunklenForExpectedlen(10, 100000), 2);
  EXPECT_EQ(ChunklenForExpectedlen(1, 1 << 20), 1);  // Rows over the chunk size.
}

TEST(BcolzMeta, StorageRoundTripFieldByField) {
  StorageMeta storage;
  storage.dtype = *DtypeFromString("int32");
  storage.cparams = {9, 2, "zstd", 0};
  storage.chunklen = 1000;
  storage.expectedlen = 5000;
  storage.dflt = 7;
  const std::string text = SerializeStorageMeta(storage);
  EXPECT_EQ(text,
            "{\"dtype\":\"int32\",\"cparams\":{\"clevel\":9,\"shuffle\":2,\"cname\":\"zstd\","
            "\"quantize\":0},\"chunklen\":1000,\"expectedlen\":5000,\"dflt\":7}\n");
  auto parsed = ParseStorageMeta(text, "meta/storage");
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  EXPECT_EQ(parsed->cparams.cname, "zstd");
  EXPECT_EQ(parsed->cparams.shuffle, 2);
  EXPECT_EQ(parsed->chunklen, 1000);
  EXPECT_EQ(parsed->dflt, 7);
}

TEST(BcolzMeta, OldStorageWithBoolShuffleAndNoCname) {
  auto parsed = ParseStorageMeta(
      R"({"dtype": "float64", "cparams": {"shuffle": true, "clevel": 5}, "chunklen": 65536,)"
      R"( "dflt": 0.0, "expectedlen": 100000})",
      "s");
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  EXPECT_EQ(parsed->cparams.shuffle, 1);
  EXPECT_EQ(parsed->cparams.cname, "blosclz");
}

TEST(BcolzMeta, BadStorageNamesFileAndField) {
  ExpectError(ParseStorageMeta("{", "root/meta/storage").status(), StatusCode::kCorruption,
              "root/meta/storage: not valid JSON");
  ExpectError(ParseStorageMeta(R"({"dtype": "int32", "cparams": {"clevel": 5, "shuffle": 1}})",
                               "root/meta/storage")
                  .status(),
              StatusCode::kCorruption, "\"chunklen\"");
  ExpectError(ParseStorageMeta(R"({"dtype": "int32", "cparams": {"clevel": 12, "shuffle": 1},)"
                               R"( "chunklen": 4, "expectedlen": 4})",
                               "s")
                  .status(),
              StatusCode::kCorruption, "clevel");
  ExpectError(ParseStorageMeta(R"({"dtype": "object", "cparams": {"clevel": 1, "shuffle": 1},)"
                               R"( "chunklen": 4, "expectedlen": 4})",
                               "root/meta/storage")
                  .status(),
              StatusCode::kInvalidArgument, "root/meta/storage");
}

TEST(BcolzMeta, SizesChecksNbytesAgainstShape) {
  auto sizes = ParseSizesMeta(R"({"shape": [10, 3], "nbytes": 240, "cbytes": 99})", "z", 8);
  ASSERT_TRUE(sizes.ok());
  EXPECT_EQ(sizes->shape, (std::vector<std::int64_t>{10, 3}));
  ExpectError(
      ParseSizesMeta(R"({"shape": [10], "nbytes": 41, "cbytes": 0})", "m/sizes", 4).status(),
      StatusCode::kCorruption, "m/sizes: nbytes 41 disagrees");
  ExpectError(ParseSizesMeta(R"({"shape": [-1], "nbytes": 0})", "m", 4).status(),
              StatusCode::kCorruption, "shape");
  ExpectError(ParseSizesMeta(R"({"shape": [], "nbytes": 0})", "m", 4).status(),
              StatusCode::kCorruption, "shape");
  EXPECT_EQ(SerializeSizesMeta({{5}, 20, 16404}),
            "{\"shape\":[5],\"nbytes\":20,\"cbytes\":16404}\n");
}

TEST(BcolzMeta, RootdirsAndColumnNames) {
  auto names = ParseRootdirs("{\"names\": [\"a\", \"b c\"]}\n", "r");
  ASSERT_TRUE(names.ok());
  EXPECT_EQ(*names, (std::vector<std::string>{"a", "b c"}));
  EXPECT_EQ(SerializeRootdirs(*names), "{\"names\":[\"a\",\"b c\"]}\n");
  for (const char* bad : {R"({"names": ["a", "a"]})", R"({"names": ["../x"]})",
                          R"({"names": ["__attrs__"]})", R"({"names": 3})"}) {
    EXPECT_EQ(ParseRootdirs(bad, "r").status().code(), StatusCode::kCorruption) << bad;
  }
}

TEST(BcolzMeta, DfltBytes) {
  auto i4 = DfltToBytes(-2, *DtypeFromString(">i4"));
  ASSERT_TRUE(i4.ok());
  EXPECT_EQ(*i4, (Bytes{0xff, 0xff, 0xff, 0xfe}));
  auto f8 = DfltToBytes(1.5, *DtypeFromString("float64"));
  ASSERT_TRUE(f8.ok());
  double value;
  std::memcpy(&value, f8->data(), 8);
  EXPECT_EQ(value, 1.5);
  auto s = DfltToBytes("ab", *DtypeFromString("|S4"));
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(*s, (Bytes{'a', 'b', 0, 0}));
  auto rec = DfltToBytes(nlohmann::json::array({1, true}),
                         *DtypeFromString("[('a', '<i2'), ('b', '|b1')]"));
  ASSERT_TRUE(rec.ok());
  EXPECT_EQ(*rec, (Bytes{1, 0, 1}));
  EXPECT_FALSE(DfltToBytes("x", *DtypeFromString("int32")).ok());
  EXPECT_EQ(ZeroDflt(*DtypeFromString("float32")).dump(), "0.0");
  EXPECT_EQ(ZeroDflt(*DtypeFromString("bool")).dump(), "false");
}

}  // namespace
}  // namespace chunkwise::formats::bcolz
