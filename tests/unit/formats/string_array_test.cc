#include "formats/zarr/string_array.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "store/memory_store.h"

namespace chunkwise::formats::zarr {
namespace {

// A vlen-utf8 chunk as zarr-python writes it: u32 count, then u32 length and
// bytes per element (little-endian).
Bytes VlenChunk(const std::vector<std::string>& strings) {
  Bytes out;
  const auto put = [&](std::uint32_t value) {
    for (int i = 0; i < 4; ++i) out.push_back(static_cast<std::uint8_t>(value >> (8 * i)));
  };
  put(static_cast<std::uint32_t>(strings.size()));
  for (const std::string& text : strings) {
    put(static_cast<std::uint32_t>(text.size()));
    out.insert(out.end(), text.begin(), text.end());
  }
  return out;
}

// zarr-python 3's zarr.json for a (3, 3) "string" array in (2, 2) chunks,
// without a compressor.
constexpr std::string_view kStringArray = R"({
  "zarr_format": 3, "node_type": "array", "shape": [3, 3], "data_type": "string",
  "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [2, 2]}},
  "chunk_key_encoding": {"name": "default", "configuration": {"separator": "/"}},
  "fill_value": "-", "codecs": [{"name": "vlen-utf8", "configuration": {}}],
  "attributes": {}, "storage_transformers": []})";

std::shared_ptr<store::MemoryStore> StringStore() {
  auto store = store::MemoryStore::Create();
  EXPECT_TRUE(store->Set("zarr.json", AsBytes(kStringArray)).ok());
  // Edge chunks hold the full chunk shape; the padding is never read.
  EXPECT_TRUE(store->Set("c/0/0", VlenChunk({"a", "bb", "", "h\xc3\xa9"})).ok());
  EXPECT_TRUE(store->Set("c/0/1", VlenChunk({"x", "pad", "y", "pad"})).ok());
  EXPECT_TRUE(store->Set("c/1/1", VlenChunk({"\xf0\x9f\x98\x80", "", "", ""})).ok());
  return store;  // c/1/0 is not stored: the fill value.
}

TEST(StringArray, ReadsZarrPython3sVlenUtf8ChunksAndFillsMissingOnes) {
  const Result<StringArray> array = StringArray::Open(StringStore(), "");
  ASSERT_TRUE(array.ok()) << array.status().ToString();
  EXPECT_EQ(array->fill_value(), "-");
  const Result<std::vector<std::string>> all = array->Read(core::Region({0, 0}, {3, 3}));
  ASSERT_TRUE(all.ok()) << all.status().ToString();
  EXPECT_EQ(*all, (std::vector<std::string>{"a", "bb", "x", "", "h\xc3\xa9", "y", "-", "-",
                                            "\xf0\x9f\x98\x80"}));
  const Result<std::vector<std::string>> box = array->Read(core::Region({1, 1}, {3, 3}));
  ASSERT_TRUE(box.ok()) << box.status().ToString();
  EXPECT_EQ(*box, (std::vector<std::string>{"h\xc3\xa9", "y", "-", "\xf0\x9f\x98\x80"}));
  EXPECT_EQ(array->Read(core::Region({0, 0}, {4, 1})).status().code(),
            StatusCode::kInvalidArgument);
}

TEST(StringArray, ReadsV2ObjectArraysWithAVlenUtf8Filter) {
  auto store = store::MemoryStore::Create();
  ASSERT_TRUE(store
                  ->Set(".zarray", AsBytes(R"({"zarr_format": 2, "shape": [3], "chunks": [2],
                   "dtype": "|O", "fill_value": null, "order": "C", "compressor": null,
                   "filters": [{"id": "vlen-utf8"}], "dimension_separator": "."})"))
                  .ok());
  ASSERT_TRUE(store->Set("0", VlenChunk({"one", "two"})).ok());
  const Result<StringArray> array = StringArray::Open(store, "");
  ASSERT_TRUE(array.ok()) << array.status().ToString();
  const Result<std::vector<std::string>> all = array->Read(core::Region({0}, {3}));
  ASSERT_TRUE(all.ok()) << all.status().ToString();
  EXPECT_EQ(*all, (std::vector<std::string>{"one", "two", ""}));
}

TEST(StringArray, DamagedChunksAreCorruptionNamingTheirKey) {
  for (const Bytes& damaged : {VlenChunk({"a", "b", "c"}), Bytes{4, 0, 0, 0, 9, 0, 0, 0, 'a'},
                               VlenChunk({"a", "b", "c", "\xff"}), Bytes{1, 0}}) {
    auto store = StringStore();
    ASSERT_TRUE(store->Set("c/0/0", damaged).ok());
    const Result<StringArray> array = StringArray::Open(store, "");
    ASSERT_TRUE(array.ok());
    const Result<std::vector<std::string>> read = array->Read(core::Region({0, 0}, {1, 1}));
    ASSERT_FALSE(read.ok());
    EXPECT_EQ(read.status().code(), StatusCode::kCorruption) << read.status().ToString();
    EXPECT_NE(std::string(read.status().message()).find("c/0/0"), std::string::npos)
        << read.status().ToString();
  }
}

// A string chunk has no size of its own: the compressor's header is all that
// says how much it decodes to. Forged headers declaring gigabytes in a few
// bytes are Corruption naming the key before that much is allocated (#44).
TEST(StringArray, ChunksDeclaringMoreThanTheirCompressorDecodesAreCorruption) {
  struct Forged {
    std::string codec;
    Bytes chunk;
    std::string what;
  };
  Bytes blosc(32, 0);  // An lz4 header declaring 2 GiB - 17 over 16 bytes.
  blosc[0] = 2;
  blosc[1] = 1;
  blosc[2] = 0x20;
  blosc[3] = 1;
  StoreLittleEndian<std::uint32_t>(0x7fffffef, blosc.data() + 4);
  StoreLittleEndian<std::uint32_t>(0x7fffffef, blosc.data() + 8);
  StoreLittleEndian<std::uint32_t>(32, blosc.data() + 12);
  const std::vector<Forged> forged = {
      {R"({"name": "gzip", "configuration": {"level": 1}})",
       {0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3, 0x03, 0x00, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff},
       "the trailer declares 4294967295 decoded bytes"},
      {R"({"name": "numcodecs.lz4"})",
       {0x00, 0x00, 0x00, 0x7e, 0x10, 'a'},
       "header declares 2113929216 decoded bytes"},
      {R"({"name": "blosc", "configuration": {"cname": "lz4", "clevel": 5, "shuffle": "noshuffle"}})",
       blosc, "header declares 2147483631 decoded bytes"},
  };
  for (const Forged& one : forged) {
    std::string metadata(kStringArray);
    const std::string vlen = R"({"name": "vlen-utf8", "configuration": {}})";
    metadata.replace(metadata.find(vlen), vlen.size(), vlen + ", " + one.codec);
    auto store = StringStore();
    ASSERT_TRUE(store->Set("zarr.json", AsBytes(metadata)).ok());
    ASSERT_TRUE(store->Set("c/0/0", one.chunk).ok());
    const Result<StringArray> array = StringArray::Open(store, "");
    ASSERT_TRUE(array.ok()) << one.codec << " " << array.status().ToString();
    const Status status = array->Read(core::Region({0, 0}, {1, 1})).status();
    EXPECT_EQ(status.code(), StatusCode::kCorruption) << status.ToString();
    EXPECT_NE(status.ToString().find("c/0/0"), std::string::npos) << status.ToString();
    EXPECT_NE(status.ToString().find(one.what), std::string::npos) << status.ToString();
  }
}

TEST(StringArray, OtherArraysAndLayoutsAreUnsupportedNamingThem) {
  auto store = store::MemoryStore::Create();
  ASSERT_TRUE(store
                  ->Set("zarr.json", AsBytes(R"({"zarr_format": 3, "node_type": "array",
                   "shape": [3], "data_type": "uint8",
                   "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [2]}},
                   "chunk_key_encoding": {"name": "default"}, "fill_value": 0,
                   "codecs": [{"name": "bytes"}]})"))
                  .ok());
  Result<StringArray> array = StringArray::Open(store, "");
  EXPECT_EQ(array.status().code(), StatusCode::kUnsupported);
  EXPECT_NE(std::string(array.status().message()).find("uint8"), std::string::npos);
  // Sharding after vlen-utf8 is no layout: refused, naming the codecs.
  std::string sharded(kStringArray);
  sharded.replace(sharded.find(R"([{"name": "vlen-utf8", "configuration": {}}])"),
                  std::string(R"([{"name": "vlen-utf8", "configuration": {}}])").size(),
                  R"([{"name": "vlen-utf8"}, {"name": "sharding_indexed"}])");
  ASSERT_TRUE(store->Set("zarr.json", AsBytes(sharded)).ok());
  array = StringArray::Open(store, "");
  EXPECT_EQ(array.status().code(), StatusCode::kUnsupported);
  EXPECT_NE(std::string(array.status().message()).find("sharding"), std::string::npos);
}

ArrayLayout StringLayout(int zarr_format) {
  ArrayLayout layout;
  layout.shape = {3, 3};
  layout.chunk_shape = {2, 2};
  layout.codec = "zstd:1";
  layout.fill_value = "-";
  layout.dimension_names = {"y", std::nullopt};
  layout.zarr_format = zarr_format;
  return layout;
}

std::string Text(const store::MemoryStore& store, std::string_view key) {
  const Result<std::optional<Bytes>> value = store.Get(key);
  EXPECT_TRUE(value.ok() && value->has_value()) << key;
  if (!value.ok() || !value->has_value()) return "";
  return std::string((*value)->begin(), (*value)->end());
}

TEST(StringArray, CreatesV3MetadataAsZarrPython3WritesIt) {
  auto store = store::MemoryStore::Create();
  const Result<StringArray> array = StringArray::Create(store, "", StringLayout(3), false);
  ASSERT_TRUE(array.ok()) << array.status().ToString();
  const nlohmann::json root = nlohmann::json::parse(Text(*store, "zarr.json"));
  EXPECT_EQ(root["data_type"], "string");
  EXPECT_EQ(root["fill_value"], "-");
  EXPECT_EQ(root["codecs"][0],
            (nlohmann::json{{"name", "vlen-utf8"}, {"configuration", nlohmann::json::object()}}));
  EXPECT_EQ(root["codecs"][1]["name"], "zstd");
  EXPECT_EQ(root["dimension_names"], (nlohmann::json{"y", nullptr}));
  EXPECT_EQ(array->fill_value(), "-");
  // Something there: refused without overwrite.
  EXPECT_EQ(StringArray::Create(store, "", StringLayout(3), false).status().code(),
            StatusCode::kInvalidArgument);
}

TEST(StringArray, CreatesV2ObjectArraysWithAVlenUtf8Filter) {
  auto store = store::MemoryStore::Create();
  ArrayLayout layout = StringLayout(2);
  layout.dimension_names.clear();
  const Result<StringArray> array = StringArray::Create(store, "", layout, false);
  ASSERT_TRUE(array.ok()) << array.status().ToString();
  const nlohmann::json zarray = nlohmann::json::parse(Text(*store, ".zarray"));
  EXPECT_EQ(zarray["dtype"], "|O");
  EXPECT_EQ(zarray["fill_value"], "-");
  EXPECT_EQ(zarray["filters"], (nlohmann::json::array({{{"id", "vlen-utf8"}}})));
  EXPECT_EQ(zarray["compressor"]["id"], "zstd");
  EXPECT_EQ(zarray["order"], "C");
}

TEST(StringArray, WritesChunksAsZarrPython3DoesAndReadsThemBack) {
  for (const int format : {3, 2}) {
    auto store = store::MemoryStore::Create();
    ArrayLayout layout = StringLayout(format);
    layout.codec = "none";
    const Result<StringArray> array = StringArray::Create(store, "", layout, true);
    ASSERT_TRUE(array.ok()) << array.status().ToString();
    ASSERT_TRUE(array->Write(core::Region({0, 0}, {2, 2}), {"a", "bb", "", "h\xc3\xa9"}).ok());
    // Raw chunks (no compressor): exactly the vlen-utf8 bytes.
    const Bytes expected = VlenChunk({"a", "bb", "", "h\xc3\xa9"});
    EXPECT_EQ(Text(*store, format == 3 ? "c/0/0" : "0.0"),
              std::string(expected.begin(), expected.end()));
    // In part: the chunk's other elements are kept, the edge padded with fill.
    ASSERT_TRUE(
        array->Write(core::Region({1, 1}, {3, 3}), {"x", "y", "-", "\xf0\x9f\x98\x80"}).ok());
    const Result<std::vector<std::string>> all = array->Read(core::Region({0, 0}, {3, 3}));
    ASSERT_TRUE(all.ok()) << all.status().ToString();
    EXPECT_EQ(*all, (std::vector<std::string>{"a", "bb", "-", "", "x", "y", "-", "-",
                                              "\xf0\x9f\x98\x80"}));
    // Chunk (1, 0) holds only fill: not stored.
    EXPECT_FALSE(store->Get(format == 3 ? "c/1/0" : "1.0")->has_value());
    ASSERT_TRUE(array->Write(core::Region({0, 0}, {2, 2}), {"-", "-", "-", "-"}).ok());
    EXPECT_FALSE(store->Get(format == 3 ? "c/0/0" : "0.0")->has_value());
  }
}

TEST(StringArray, WriteRefusesBadInputNamingIt) {
  auto store = store::MemoryStore::Create();
  const Result<StringArray> array = StringArray::Create(store, "", StringLayout(3), false);
  ASSERT_TRUE(array.ok()) << array.status().ToString();
  Status written = array->Write(core::Region({0, 0}, {1, 2}), {"a"});
  EXPECT_EQ(written.code(), StatusCode::kInvalidArgument) << written.ToString();
  written = array->Write(core::Region({0, 0}, {1, 2}), {"a", "\xff"});
  EXPECT_EQ(written.code(), StatusCode::kInvalidArgument) << written.ToString();
  EXPECT_NE(std::string(written.message()).find("string 1"), std::string::npos);
  written = array->Write(core::Region({0, 2}, {1, 4}), {"a", "b"});
  EXPECT_EQ(written.code(), StatusCode::kInvalidArgument) << written.ToString();
  const Result<StringArray> read_only = StringArray::Open(store, "");
  ASSERT_TRUE(read_only.ok());
  EXPECT_EQ(read_only->Write(core::Region({0, 0}, {1, 1}), {"a"}).code(), StatusCode::kUnsupported);
}

TEST(StringArray, ShardedArraysRoundTripAndLeaveFillChunksOut) {
  auto store = store::MemoryStore::Create();
  ArrayLayout layout = StringLayout(3);
  layout.shape = {4, 3};
  layout.shard_shape = core::Shape{4, 4};
  layout.codec = "none";
  const Result<StringArray> array = StringArray::Create(store, "", layout, false);
  ASSERT_TRUE(array.ok()) << array.status().ToString();
  const nlohmann::json root = nlohmann::json::parse(Text(*store, "zarr.json"));
  EXPECT_EQ(root["codecs"][0]["name"], "sharding_indexed");
  EXPECT_EQ(root["codecs"][0]["configuration"]["codecs"][0]["name"], "vlen-utf8");
  ASSERT_TRUE(array->Write(core::Region({0, 0}, {1, 3}), {"a", "", "h\xc3\xa9"}).ok());
  // One shard of four inner chunks, two of them stored: their bytes, then the index.
  const std::string shard = Text(*store, "c/0/0");
  const Bytes first = VlenChunk({"a", "", "-", "-"});
  const Bytes second = VlenChunk({"h\xc3\xa9", "-", "-", "-"});
  ASSERT_EQ(shard.size(), first.size() + second.size() + 4 * 16 + 4);
  EXPECT_EQ(shard.substr(0, first.size()), std::string(first.begin(), first.end()));
  EXPECT_EQ(shard.substr(first.size(), second.size()), std::string(second.begin(), second.end()));
  ASSERT_TRUE(array->Write(core::Region({3, 2}, {4, 3}), {"z"}).ok());
  const Result<std::vector<std::string>> all = array->Read(core::Region({0, 0}, {4, 3}));
  ASSERT_TRUE(all.ok()) << all.status().ToString();
  EXPECT_EQ(*all, (std::vector<std::string>{"a", "", "h\xc3\xa9", "-", "-", "-", "-", "-", "-", "-",
                                            "-", "z"}));
  ASSERT_TRUE(array->Write(core::Region({0, 0}, {4, 3}), std::vector<std::string>(12, "-")).ok());
  EXPECT_FALSE(store->Get("c/0/0")->has_value());
}

TEST(StringArray, DamagedShardsAreCorruptionNamingTheirKey) {
  auto store = store::MemoryStore::Create();
  ArrayLayout layout = StringLayout(3);
  layout.shard_shape = core::Shape{4, 4};
  layout.codec = "none";
  const Result<StringArray> array = StringArray::Create(store, "", layout, false);
  ASSERT_TRUE(array.ok()) << array.status().ToString();
  ASSERT_TRUE(array->Write(core::Region({0, 0}, {1, 1}), {"abc"}).ok());
  std::string shard = Text(*store, "c/0/0");
  for (const std::string& damaged :
       {shard.substr(0, 10), shard.substr(1), std::string("\x09") + shard.substr(1)}) {
    ASSERT_TRUE(store->Set("c/0/0", AsBytes(damaged)).ok());
    const Result<std::vector<std::string>> read = array->Read(core::Region({0, 0}, {1, 1}));
    ASSERT_FALSE(read.ok());
    EXPECT_EQ(read.status().code(), StatusCode::kCorruption) << read.status().ToString();
    EXPECT_NE(std::string(read.status().message()).find("c/0/0"), std::string::npos)
        << read.status().ToString();
  }
  // A length that runs past the inner chunk (the index and its checksum intact).
  std::string long_length = shard;
  long_length[7] = '\x7f';
  ASSERT_TRUE(store->Set("c/0/0", AsBytes(long_length)).ok());
  const Result<std::vector<std::string>> read = array->Read(core::Region({0, 0}, {1, 1}));
  EXPECT_EQ(read.status().code(), StatusCode::kCorruption) << read.status().ToString();
}

TEST(StringArray, TransposedChunksReadAndWriteInTheirStoredOrder) {
  // zarr-python 3's bytes for [["a", "b", "c"], ["d", "e", "f"]] after
  // transpose [1, 0] (v2 order "F" stores the same): column by column.
  auto store = store::MemoryStore::Create();
  ASSERT_TRUE(store
                  ->Set("zarr.json", AsBytes(R"({"zarr_format": 3, "node_type": "array",
      "shape": [2, 3], "data_type": "string",
      "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [2, 3]}},
      "chunk_key_encoding": {"name": "default"}, "fill_value": "",
      "codecs": [{"name": "transpose", "configuration": {"order": [1, 0]}},
                 {"name": "vlen-utf8", "configuration": {}}]})"))
                  .ok());
  ASSERT_TRUE(store->Set("c/0/0", VlenChunk({"a", "d", "b", "e", "c", "f"})).ok());
  const Result<StringArray> array = StringArray::OpenForWrite(store, "");
  ASSERT_TRUE(array.ok()) << array.status().ToString();
  const Result<std::vector<std::string>> all = array->Read(core::Region({0, 0}, {2, 3}));
  ASSERT_TRUE(all.ok()) << all.status().ToString();
  EXPECT_EQ(*all, (std::vector<std::string>{"a", "b", "c", "d", "e", "f"}));
  ASSERT_TRUE(array->Write(core::Region({0, 1}, {1, 2}), {"B"}).ok());
  EXPECT_EQ(Text(*store, "c/0/0"), [] {
    const Bytes expected = VlenChunk({"a", "d", "B", "e", "c", "f"});
    return std::string(expected.begin(), expected.end());
  }());
}

// zarr-python 3's zarr.json for a (3,) VariableLengthBytes array in (2,)
// chunks: fill value b"xy" in base64.
constexpr std::string_view kBytesArray = R"({
  "zarr_format": 3, "node_type": "array", "shape": [3], "data_type": "variable_length_bytes",
  "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [2]}},
  "chunk_key_encoding": {"name": "default", "configuration": {"separator": "/"}},
  "fill_value": "eHk=", "codecs": [{"name": "vlen-bytes", "configuration": {}}],
  "attributes": {}, "storage_transformers": []})";

TEST(StringArray, ReadsVlenBytesOfAnyBytesBothFormats) {
  const std::string zero_ff("\x00\xff", 2);  // Not UTF-8.
  auto v3 = store::MemoryStore::Create();
  ASSERT_TRUE(v3->Set("zarr.json", AsBytes(kBytesArray)).ok());
  ASSERT_TRUE(v3->Set("c/0", VlenChunk({zero_ff, ""})).ok());
  auto v2 = store::MemoryStore::Create();
  ASSERT_TRUE(v2->Set(".zarray", AsBytes(R"({"zarr_format": 2, "shape": [3], "chunks": [2],
                   "dtype": "|O", "fill_value": "eHk=", "order": "C", "compressor": null,
                   "filters": [{"id": "vlen-bytes"}], "dimension_separator": "."})"))
                  .ok());
  ASSERT_TRUE(v2->Set("0", VlenChunk({zero_ff, ""})).ok());
  for (const auto& store : {v3, v2}) {
    const Result<StringArray> array = StringArray::Open(store, "");
    ASSERT_TRUE(array.ok()) << array.status().ToString();
    EXPECT_EQ(array->elements(), StringArray::Elements::kBytes);
    EXPECT_EQ(array->fill_value(), "xy");
    const Result<std::vector<std::string>> all = array->Read(core::Region({0}, {3}));
    ASSERT_TRUE(all.ok()) << all.status().ToString();
    EXPECT_EQ(*all, (std::vector<std::string>{zero_ff, "", "xy"}));
  }
}

TEST(StringArray, DamagedVlenBytesChunksAreCorruptionNamingTheirKey) {
  for (const Bytes& damaged :
       {VlenChunk({"a", "b", "c"}), Bytes{2, 0, 0, 0, 9, 0, 0, 0, 'a'}, Bytes{1, 0}}) {
    auto store = store::MemoryStore::Create();
    ASSERT_TRUE(store->Set("zarr.json", AsBytes(kBytesArray)).ok());
    ASSERT_TRUE(store->Set("c/0", damaged).ok());
    const Result<StringArray> array = StringArray::Open(store, "");
    ASSERT_TRUE(array.ok()) << array.status().ToString();
    const Result<std::vector<std::string>> read = array->Read(core::Region({0}, {1}));
    ASSERT_FALSE(read.ok());
    EXPECT_EQ(read.status().code(), StatusCode::kCorruption) << read.status().ToString();
    EXPECT_NE(std::string(read.status().message()).find("c/0"), std::string::npos);
    EXPECT_NE(std::string(read.status().message()).find("vlen-bytes"), std::string::npos)
        << read.status().ToString();
  }
}

TEST(StringArray, MismatchedTypesAndBadBytesFillsAreRefused) {
  auto store = store::MemoryStore::Create();
  // A v3 "string" array with vlen-bytes (or bytes with vlen-utf8) is neither.
  std::string mismatched(kBytesArray);
  mismatched.replace(mismatched.find("variable_length_bytes"),
                     std::string("variable_length_bytes").size(), "string");
  ASSERT_TRUE(store->Set("zarr.json", AsBytes(mismatched)).ok());
  EXPECT_EQ(StringArray::Open(store, "").status().code(), StatusCode::kUnsupported);
  std::string bad_fill(kBytesArray);
  bad_fill.replace(bad_fill.find("eHk="), 4, "e!k=");
  ASSERT_TRUE(store->Set("zarr.json", AsBytes(bad_fill)).ok());
  const Status opened = StringArray::Open(store, "").status();
  EXPECT_EQ(opened.code(), StatusCode::kInvalidArgument) << opened.ToString();
  EXPECT_NE(std::string(opened.message()).find("fill_value"), std::string::npos);
}

TEST(StringArray, CreatesAndWritesVlenBytesAsZarrPython3Does) {
  const std::string zero_ff("\x00\xff", 2);
  for (const int format : {3, 2}) {
    auto store = store::MemoryStore::Create();
    ArrayLayout layout = StringLayout(format);
    layout.codec = "none";
    layout.fill_value = "xy";
    if (format == 2) layout.dimension_names.clear();
    const Result<StringArray> array =
        StringArray::Create(store, "", layout, false, StringArray::Elements::kBytes);
    ASSERT_TRUE(array.ok()) << array.status().ToString();
    EXPECT_EQ(array->elements(), StringArray::Elements::kBytes);
    EXPECT_EQ(array->fill_value(), "xy");
    if (format == 3) {
      const nlohmann::json root = nlohmann::json::parse(Text(*store, "zarr.json"));
      EXPECT_EQ(root["data_type"], "variable_length_bytes");
      EXPECT_EQ(root["fill_value"], "eHk=");
      EXPECT_EQ(root["codecs"][0], (nlohmann::json{{"name", "vlen-bytes"},
                                                   {"configuration", nlohmann::json::object()}}));
    } else {
      const nlohmann::json zarray = nlohmann::json::parse(Text(*store, ".zarray"));
      EXPECT_EQ(zarray["dtype"], "|O");
      EXPECT_EQ(zarray["fill_value"], "eHk=");
      EXPECT_EQ(zarray["filters"], (nlohmann::json::array({{{"id", "vlen-bytes"}}})));
    }
    // Bytes that are not UTF-8 are written as they are.
    ASSERT_TRUE(array->Write(core::Region({0, 0}, {2, 2}), {zero_ff, "", "xy", "\xfe"}).ok());
    const Bytes expected = VlenChunk({zero_ff, "", "xy", "\xfe"});
    EXPECT_EQ(Text(*store, format == 3 ? "c/0/0" : "0.0"),
              std::string(expected.begin(), expected.end()));
    const Result<std::vector<std::string>> box = array->Read(core::Region({0, 0}, {2, 3}));
    ASSERT_TRUE(box.ok()) << box.status().ToString();
    EXPECT_EQ(*box, (std::vector<std::string>{zero_ff, "", "xy", "xy", "\xfe", "xy"}));
  }
}

}  // namespace
}  // namespace chunkwise::formats::zarr
