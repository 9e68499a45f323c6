#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <random>
#include <thread>

#include "chunkwise/io/file.h"
#include "chunkwise/store/file_store.h"
#include "core/file_io.h"
#include "formats/parquet/table.h"
#include "formats/parquet/thrift_compact.h"
#include "formats/refs/parquet_references.h"
#include "unit/scratch_directory.h"

namespace chunkwise::formats::refs {
namespace {

using store::Reference;

Reference Text(std::string_view text) { return Reference::Inline(CopyToBytes(AsBytes(text))); }

// shape (100, 200), chunks (10, 10): grid (10, 20), 200 chunks.
// The FileStore over `directory` (made if missing), whose root holds the set.
std::shared_ptr<store::FileStore> Dir(const std::filesystem::path& directory) {
  auto store = store::FileStore::Open(directory);
  EXPECT_TRUE(store.ok()) << store.status().ToString();
  return *store;
}

ReferenceSet SampleSet() {
  ReferenceSet set;
  set.Set(".zgroup", Text(R"({"zarr_format": 2})"));
  set.Set("var/.zarray", Text(R"({"chunks": [10, 10], "compressor": null, "dtype": "<f4",
      "fill_value": "NaN", "filters": null, "order": "C", "shape": [100, 200], "zarr_format": 2})"));
  set.Set("var/.zattrs", Text(R"({"_ARRAY_DIMENSIONS": ["y", "x"]})"));
  set.Set("var/3.7", Reference::Range("s3://bucket/a.nc", 1000, 400));
  set.Set("var/0.0", Reference::WholeFile("https://host/whole.bin"));
  set.Set("var/9.19", Reference::Inline(Bytes{0, 1, 2, 0xFF}));
  set.Set("var/5.5", Reference::Range("s3://bucket/a.nc", 0, 7));
  set.Set("var/5.6", Reference::Range("s3://bucket/b.nc", 20, 0));  // empty range, not at 0
  set.Set("grp/sub/scalar/.zarray", Text(R"({"chunks": [], "shape": [], "dtype": "<i8",
      "compressor": null, "fill_value": 0, "filters": null, "order": "C", "zarr_format": 2})"));
  set.Set("grp/sub/scalar/0", Reference::Inline(Bytes(8, 0x2A)));
  return set;
}

void ExpectSameSet(const ReferenceSet& expected, const ReferenceSet& actual) {
  ASSERT_EQ(actual.size(), expected.size());
  for (const auto& [key, want] : expected.entries()) {
    SCOPED_TRACE(key);
    auto found = actual.Find(key);
    ASSERT_TRUE(found.ok() && found->has_value());
    const Reference& got = **found;
    EXPECT_EQ(got.kind, want.kind);
    EXPECT_EQ(got.url, want.url);
    EXPECT_EQ(got.offset, want.offset);
    EXPECT_EQ(got.length, want.length);
    if (key.ends_with("/.zarray") || key.ends_with("/.zattrs") || key == ".zgroup") {
      // Metadata goes through JSON objects: compare parsed.
      EXPECT_EQ(nlohmann::json::parse(AsChars(got.data)),
                nlohmann::json::parse(AsChars(want.data)));
    } else {
      EXPECT_EQ(AsChars(got.data), AsChars(want.data));
    }
  }
}

TEST(ParquetReferences, RoundTripsEveryKind) {
  const auto directory = test::FreshScratchDirectory("refs_parquet");
  ParquetReferenceOptions options;
  options.record_size = 10;
  ASSERT_TRUE(WriteParquetReferences(SampleSet(), *Dir(directory), "", options).ok());
  // Record of var/3.7 = 67 / 10 = 6; var/0.0 -> 0; var/9.19 -> 19; var/5.x -> 10.
  for (const char* name : {"var/refs.0.parq", "var/refs.6.parq", "var/refs.10.parq",
                           "var/refs.19.parq", "grp/sub/scalar/refs.0.parq", ".zmetadata"}) {
    EXPECT_TRUE(std::filesystem::exists(directory / name)) << name;
  }
  EXPECT_FALSE(std::filesystem::exists(directory / "var/refs.1.parq"));
  EXPECT_TRUE(IsParquetReferenceSet(*Dir(directory), ""));
  auto loaded = LoadParquetReferences(Dir(directory), "");
  ASSERT_TRUE(loaded.ok()) << loaded.status().ToString();
  ExpectSameSet(SampleSet(), *loaded);
}

TEST(ParquetReferences, EveryFileIsPaddedToRecordSize) {
  const auto directory = test::FreshScratchDirectory("refs_parquet");
  ParquetReferenceOptions options;
  options.record_size = 10;
  ASSERT_TRUE(WriteParquetReferences(SampleSet(), *Dir(directory), "", options).ok());
  for (const char* name : {"var/refs.19.parq", "grp/sub/scalar/refs.0.parq"}) {
    auto file = core::ReadFile(directory / name);
    ASSERT_TRUE(file.ok());
    auto table = parquet::ReadTable(*file, name);
    ASSERT_TRUE(table.ok()) << table.status().ToString();
    EXPECT_EQ(table->num_rows, 10) << name;
    ASSERT_EQ(table->columns.size(), 4u);
    EXPECT_EQ(table->columns[0].name, "path");
    EXPECT_EQ(table->columns[3].name, "raw");
    // var/9.19 is row 9 of record 19; rows 0-8 are padding: path and raw null, 0, 0.
    const auto& path = table->columns[0];
    const auto& raw = table->columns[3];
    EXPECT_FALSE(path.is_present(0));
    EXPECT_FALSE(raw.is_present(1));
    EXPECT_EQ(table->columns[1].integers[2], 0);
  }
  const nlohmann::json zmetadata =
      nlohmann::json::parse(AsChars(*core::ReadFile(directory / ".zmetadata")));
  EXPECT_EQ(zmetadata["record_size"], 10);
  EXPECT_TRUE(zmetadata["metadata"]["var/.zarray"].is_object());
  EXPECT_EQ(zmetadata["metadata"]["var/.zarray"]["shape"], nlohmann::json({100, 200}));
}

TEST(ParquetReferences, ZeroLengthRangeAtZeroBecomesEmptyInline) {
  ReferenceSet set = SampleSet();
  set.Set("var/1.1", Reference::Range("s3://bucket/a.nc", 0, 0));
  const auto directory = test::FreshScratchDirectory("refs_parquet");
  ASSERT_TRUE(WriteParquetReferences(set, *Dir(directory), "", {}).ok());
  auto index = OpenParquetReferences(Dir(directory), "");
  ASSERT_TRUE(index.ok());
  auto found = (*index)->Find("var/1.1");
  ASSERT_TRUE(found.ok() && found->has_value());
  EXPECT_EQ((*found)->kind, Reference::Kind::kInline);
  EXPECT_TRUE((*found)->data.empty());
}

TEST(ParquetReferences, RefusesWhatTheLayoutCannotHold) {
  const auto directory = test::FreshScratchDirectory("refs_parquet");
  ReferenceSet slash = SampleSet();
  slash.Set("var/.zarray", Text(R"({"chunks": [10, 10], "shape": [100, 200],
      "dimension_separator": "/", "dtype": "<f4", "zarr_format": 2})"));
  Status status = WriteParquetReferences(slash, *Dir(directory), "", {});
  EXPECT_EQ(status.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(status.message().find("dimension_separator"), std::string_view::npos)
      << status.ToString();

  ReferenceSet outside = SampleSet();
  outside.Set("var/10.0", Reference::WholeFile("x"));
  status = WriteParquetReferences(outside, *Dir(directory), "", {});
  EXPECT_NE(status.message().find("var/10.0"), std::string_view::npos) << status.ToString();

  ReferenceSet orphan = SampleSet();
  orphan.Set("other/0", Reference::WholeFile("x"));
  status = WriteParquetReferences(orphan, *Dir(directory), "", {});
  EXPECT_EQ(status.code(), StatusCode::kUnsupported);
  EXPECT_NE(status.message().find("'other/0'"), std::string_view::npos) << status.ToString();
  EXPECT_NE(status.message().find("no 'other/.zarray'"), std::string_view::npos);
  EXPECT_NE(status.message().find(kParquetNeedsZarrKeys), std::string_view::npos);
  EXPECT_FALSE(std::filesystem::exists(directory / ".zmetadata"));
}

TEST(ParquetReferences, ExistingOutputNeedsOverwriteAndLosesStaleRecords) {
  const auto directory = test::FreshScratchDirectory("refs_parquet");
  ParquetReferenceOptions options;
  options.record_size = 10;
  ASSERT_TRUE(WriteParquetReferences(SampleSet(), *Dir(directory), "", options).ok());
  EXPECT_EQ(WriteParquetReferences(SampleSet(), *Dir(directory), "", options).code(),
            StatusCode::kInvalidArgument);
  ReferenceSet smaller = SampleSet();
  ReferenceSet without;
  for (const auto& [key, reference] : smaller.entries()) {
    if (key != "var/9.19") without.Set(key, reference);
  }
  options.overwrite = true;
  ASSERT_TRUE(WriteParquetReferences(without, *Dir(directory), "", options).ok());
  EXPECT_FALSE(std::filesystem::exists(directory / "var/refs.19.parq"));
  auto loaded = LoadParquetReferences(Dir(directory), "");
  ASSERT_TRUE(loaded.ok());
  EXPECT_EQ(loaded->size(), without.size());
}

// 40 x 50 chunks = 2000 rows, record size 100: 20 record files.
ReferenceSet GridSet() {
  ReferenceSet set;
  set.Set(".zgroup", Text(R"({"zarr_format": 2})"));
  set.Set("data/.zarray", Text(R"({"chunks": [1, 1], "shape": [40, 50], "dtype": "<u1",
      "compressor": null, "fill_value": 0, "filters": null, "order": "C", "zarr_format": 2})"));
  for (int i = 0; i < 40; ++i) {
    for (int j = 0; j < 50; ++j) {
      set.Set("data/" + std::to_string(i) + "." + std::to_string(j),
              Reference::Range("s3://b/f" + std::to_string(i % 3), (i * 50 + j) * 10, 10));
    }
  }
  return set;
}

TEST(ParquetReferenceIndex, OneLookupOpensExactlyOneRecordFile) {
  const auto directory = test::FreshScratchDirectory("refs_parquet");
  ParquetReferenceOptions options;
  options.record_size = 100;
  ASSERT_TRUE(WriteParquetReferences(GridSet(), *Dir(directory), "", options).ok());
  std::mt19937 random(11);
  for (int trial = 0; trial < 5; ++trial) {
    auto index = ParquetReferenceIndex::Open(Dir(directory), "");
    ASSERT_TRUE(index.ok()) << index.status().ToString();
    EXPECT_EQ((*index)->record_files_opened(), 0u);
    const int i = static_cast<int>(random() % 40);
    const int j = static_cast<int>(random() % 50);
    auto found = (*index)->Find("data/" + std::to_string(i) + "." + std::to_string(j));
    ASSERT_TRUE(found.ok() && found->has_value());
    EXPECT_EQ((*found)->url, "s3://b/f" + std::to_string(i % 3));
    EXPECT_EQ((*found)->offset, static_cast<std::uint64_t>((i * 50 + j) * 10));
    EXPECT_EQ((*index)->record_files_opened(), 1u);
    // The same record again: no new file.
    ASSERT_TRUE((*index)->Find("data/" + std::to_string(i) + "." + std::to_string(j)).ok());
    EXPECT_EQ((*index)->record_files_opened(), 1u);
  }
}

TEST(ParquetReferenceIndex, CacheStaysWithinItsBound) {
  const auto directory = test::FreshScratchDirectory("refs_parquet");
  ParquetReferenceOptions options;
  options.record_size = 100;
  ASSERT_TRUE(WriteParquetReferences(GridSet(), *Dir(directory), "", options).ok());
  ParquetOpenOptions open;
  open.max_cached_records = 3;
  auto index = ParquetReferenceIndex::Open(Dir(directory), "", open);
  ASSERT_TRUE(index.ok());
  for (int i = 0; i < 40; ++i) {
    ASSERT_TRUE((*index)->Find("data/" + std::to_string(i) + ".0").ok());
    EXPECT_LE((*index)->cached_records(), 3u);
  }
  EXPECT_EQ((*index)->record_files_opened(), 20u);  // rows i*50: records 0,0,1,1,2,...
  // Least recently used goes first: record 19 is still cached, record 0 is not.
  ASSERT_TRUE((*index)->Find("data/39.49").ok());
  EXPECT_EQ((*index)->record_files_opened(), 20u);
  ASSERT_TRUE((*index)->Find("data/0.0").ok());
  EXPECT_EQ((*index)->record_files_opened(), 21u);
}

TEST(ParquetReferenceIndex, ThreadsLookUpInParallel) {
  const auto directory = test::FreshScratchDirectory("refs_parquet");
  ParquetReferenceOptions options;
  options.record_size = 100;
  ASSERT_TRUE(WriteParquetReferences(GridSet(), *Dir(directory), "", options).ok());
  ParquetOpenOptions open;
  open.max_cached_records = 2;
  auto index = ParquetReferenceIndex::Open(Dir(directory), "", open);
  ASSERT_TRUE(index.ok());
  std::atomic<int> wrong{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int k = 0; k < 500; ++k) {
        const int i = (k * 7 + t) % 40;
        const int j = (k * 13) % 50;
        auto found = (*index)->Find("data/" + std::to_string(i) + "." + std::to_string(j));
        if (!found.ok() || !found->has_value() ||
            (*found)->offset != static_cast<std::uint64_t>((i * 50 + j) * 10)) {
          ++wrong;
        }
      }
    });
  }
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(wrong.load(), 0);
}

TEST(ParquetReferenceIndex, KeysAndMissingKeys) {
  const auto directory = test::FreshScratchDirectory("refs_parquet");
  ParquetReferenceOptions options;
  options.record_size = 10;
  ASSERT_TRUE(WriteParquetReferences(SampleSet(), *Dir(directory), "", options).ok());
  auto index = OpenParquetReferences(Dir(directory), "");
  ASSERT_TRUE(index.ok());
  auto keys = (*index)->Keys("var/");
  ASSERT_TRUE(keys.ok());
  EXPECT_EQ(*keys, (std::vector<std::string>{"var/.zarray", "var/.zattrs", "var/0.0", "var/3.7",
                                             "var/5.5", "var/5.6", "var/9.19"}));
  for (const char* absent : {"var/3.8", "var/99.0", "var/3", "nothing/0", "var/03.7", "x"}) {
    auto found = (*index)->Find(absent);
    ASSERT_TRUE(found.ok()) << absent;
    EXPECT_FALSE(found->has_value()) << absent;
  }
}

// Our sets list their record files in .zmetadata: a lost file or a changed
// count is Corruption naming the file, never fewer keys.
TEST(ParquetReferenceIndex, ListedRecordFilesMustAllBeThere) {
  const auto directory = test::FreshScratchDirectory("refs_parquet");
  ParquetReferenceOptions options;
  options.record_size = 100;
  ASSERT_TRUE(WriteParquetReferences(GridSet(), *Dir(directory), "", options).ok());
  const nlohmann::json zmetadata =
      nlohmann::json::parse(AsChars(*core::ReadFile(directory / ".zmetadata")));
  EXPECT_EQ(zmetadata["chunkwise_records"]["data"]["files"], nlohmann::json::parse("[[0, 19]]"));
  EXPECT_EQ(zmetadata["chunkwise_records"]["data"]["references"], 2000);
  std::filesystem::remove(directory / "data" / "refs.7.parq");
  auto index = OpenParquetReferences(Dir(directory), "");
  ASSERT_TRUE(index.ok()) << index.status().ToString();
  // Row 7 * 100 + 3 is key 14.3 (50 columns): in the lost file.
  auto lost = (*index)->Find("data/14.3");
  EXPECT_EQ(lost.status().code(), StatusCode::kCorruption);
  EXPECT_NE(lost.status().message().find("refs.7.parq"), std::string_view::npos)
      << lost.status().ToString();
  auto kept = (*index)->Find("data/0.1");
  ASSERT_TRUE(kept.ok() && kept->has_value());
  EXPECT_EQ((*index)->Keys("data/").status().code(), StatusCode::kCorruption);
  auto all = LoadParquetReferences(Dir(directory), "");
  EXPECT_EQ(all.status().code(), StatusCode::kCorruption);
  EXPECT_NE(all.status().message().find("refs.7.parq"), std::string_view::npos);
}

TEST(ParquetReferenceIndex, ReferenceCountMustMatchTheListing) {
  const auto directory = test::FreshScratchDirectory("refs_parquet");
  ParquetReferenceOptions options;
  options.record_size = 100;
  ASSERT_TRUE(WriteParquetReferences(GridSet(), *Dir(directory), "", options).ok());
  nlohmann::json zmetadata =
      nlohmann::json::parse(AsChars(*core::ReadFile(directory / ".zmetadata")));
  zmetadata["chunkwise_records"]["data"]["references"] = 2001;
  ASSERT_TRUE(Dir(directory)->Set(".zmetadata", AsBytes(zmetadata.dump())).ok());
  auto all = LoadParquetReferences(Dir(directory), "");
  EXPECT_EQ(all.status().code(), StatusCode::kCorruption);
  EXPECT_NE(all.status().message().find("2000 references, .zmetadata says 2001"),
            std::string_view::npos)
      << all.status().ToString();
  // Without the listing (kerchunk's sets), a missing file means missing keys.
  zmetadata.erase("chunkwise_records");
  ASSERT_TRUE(Dir(directory)->Set(".zmetadata", AsBytes(zmetadata.dump())).ok());
  std::filesystem::remove(directory / "data" / "refs.7.parq");
  auto index = OpenParquetReferences(Dir(directory), "");
  ASSERT_TRUE(index.ok());
  auto absent = (*index)->Find("data/14.3");
  ASSERT_TRUE(absent.ok());
  EXPECT_FALSE(absent->has_value());
}

// Legacy and pyarrow forms, built with the table writer's variants:
// string metadata, only `raw`, only path/offset/size (OPTIONAL, pyarrow), a
// truncated last file, an INT32+UNKNOWN null column, PLAIN_DICTIONARY.
TEST(ParquetReferenceIndex, ReadsLegacyAndPyarrowForms) {
  const auto directory = test::FreshScratchDirectory("refs_parquet");
  std::filesystem::create_directories(directory / "a");
  std::filesystem::create_directories(directory / "b");
  const nlohmann::json zmetadata = {
      {"metadata",
       {{".zgroup", R"({"zarr_format": 2})"},
        {"a/.zarray", R"({"chunks": [2], "shape": [7], "dtype": "<i1", "zarr_format": 2})"},
        {"b/.zarray", nlohmann::json{{"chunks", {2}}, {"shape", {7}}, {"dtype", "<i1"}}}}},
      {"record_size", 3},
      {"zarr_consolidated_format", 1}};
  ASSERT_TRUE(io::WriteFile(directory / ".zmetadata", AsBytes(zmetadata.dump())).ok());
  using parquet::Column;
  using parquet::PhysicalType;
  // a: only `raw` (legacy), last file truncated to 1 row (4 chunks, record 1 holds row 3).
  Column raw = Column::Named("raw", PhysicalType::kByteArray, true);
  raw.present = {1};
  raw.byte_arrays.Append(AsBytes("tail"));
  parquet::WriteOptions legacy;
  legacy.compression = parquet::Compression::kGzip;
  auto file = parquet::WriteTable(std::span(&raw, 1), legacy);
  ASSERT_TRUE(io::WriteFile(directory / "a/refs.1.parq", *file).ok());
  // b: pyarrow: all OPTIONAL, dictionary `path` with PLAIN_DICTIONARY, raw as INT32 + UNKNOWN.
  Column path = Column::Named("path", PhysicalType::kByteArray, true);
  path.utf8 = true;
  path.dictionary = true;
  Column offset = Column::Named("offset", PhysicalType::kInt64, true);
  offset.dictionary = true;
  Column size = Column::Named("size", PhysicalType::kInt64, true);
  size.dictionary = true;
  Column null_raw = Column::Named("raw", PhysicalType::kInt32, true);
  null_raw.null_type = true;
  for (int row = 0; row < 3; ++row) {
    path.present.push_back(row != 1);
    row != 1 ? path.byte_arrays.Append(AsBytes("u")) : path.byte_arrays.AppendEmpty();
    offset.present.push_back(1);
    offset.integers.push_back(row == 2 ? 5 : 0);
    size.present.push_back(1);
    size.integers.push_back(row == 2 ? 6 : 0);
    null_raw.present.push_back(0);
    null_raw.integers.push_back(0);
  }
  parquet::WriteOptions pyarrow;
  pyarrow.version = 2;
  pyarrow.legacy_plain_dictionary = true;
  const Column columns[] = {path, offset, size, null_raw};
  file = parquet::WriteTable(columns, pyarrow);
  ASSERT_TRUE(io::WriteFile(directory / "b/refs.0.parq", *file).ok());

  auto loaded = LoadParquetReferences(Dir(directory), "");
  ASSERT_TRUE(loaded.ok()) << loaded.status().ToString();
  auto keys = loaded->Keys("");
  EXPECT_EQ(*keys,
            (std::vector<std::string>{".zgroup", "a/.zarray", "a/3", "b/.zarray", "b/0", "b/2"}));
  EXPECT_EQ(AsChars((*loaded->Find("a/3"))->data), "tail");
  EXPECT_EQ((*loaded->Find("b/0"))->kind, Reference::Kind::kWholeFile);
  const Reference b2 = **loaded->Find("b/2");
  EXPECT_EQ(b2.kind, Reference::Kind::kRange);
  EXPECT_EQ(b2.offset, 5u);
  EXPECT_EQ(b2.length, 6u);
  EXPECT_EQ(nlohmann::json::parse(AsChars((*loaded->Find("b/.zarray"))->data))["shape"],
            nlohmann::json({7}));
}

TEST(ParquetReferenceIndex, MalformedInputIsNamed) {
  const auto directory = test::FreshScratchDirectory("refs_parquet");
  EXPECT_EQ(OpenParquetReferences(Dir(directory), "").status().code(), StatusCode::kNotFound);
  std::filesystem::create_directories(directory / "a");
  ASSERT_TRUE(io::WriteFile(directory / ".zmetadata", AsBytes(R"({"metadata": {}})")).ok());
  EXPECT_EQ(OpenParquetReferences(Dir(directory), "").status().code(), StatusCode::kCorruption);
  const std::string good =
      R"({"metadata": {"a/.zarray": {"chunks": [1], "shape": [4]}}, "record_size": 2})";
  ASSERT_TRUE(io::WriteFile(directory / ".zmetadata", AsBytes(good)).ok());
  ASSERT_TRUE(io::WriteFile(directory / "a/refs.1.parq", AsBytes("PAR1garbagePAR1")).ok());
  auto index = OpenParquetReferences(Dir(directory), "");
  ASSERT_TRUE(index.ok());
  auto found = (*index)->Find("a/0");
  ASSERT_TRUE(found.ok());
  EXPECT_FALSE(found->has_value());  // refs.0.parq does not exist
  found = (*index)->Find("a/3");
  ASSERT_FALSE(found.ok());
  EXPECT_NE(found.status().message().find("refs.1.parq"), std::string_view::npos);
}

}  // namespace
}  // namespace chunkwise::formats::refs

namespace chunkwise::formats::refs {
namespace {

// A record file built byte by byte the way fastparquet writes one
// (docs/formats/parquet.md, "What fastparquet and pyarrow write"): `path`
// OPTIONAL BYTE_ARRAY with ConvertedType UTF8 and no LogicalType, a PLAIN
// dictionary page then an RLE_DICTIONARY page at bit width 8 with all indices
// in one bit-packed run; offset/size REQUIRED INT64 PLAIN; `raw` OPTIONAL
// PLAIN; definition levels as one bit-packed run; repetition-level encoding
// BIT_PACKED; statistics with only null_count; 8 zero bytes after every data
// page's values; ColumnChunk.file_offset = the chunk start; no compression.
class FastparquetStyleFile {
 public:
  // One data page (and a dictionary page before it when `dictionary` is not empty).
  void AddColumn(const std::string& name, parquet::PhysicalType type, bool optional,
                 const Bytes& dictionary, int dictionary_entries, const Bytes& body, int nulls) {
    using parquet::ThriftType;
    const auto start = static_cast<std::int64_t>(out_.size());
    std::optional<std::int64_t> dictionary_offset;
    if (!dictionary.empty()) {
      dictionary_offset = start;
      parquet::PageHeader header;
      header.type = 2;
      header.uncompressed_page_size = header.compressed_page_size =
          static_cast<int>(dictionary.size());
      header.dictionary_page_header = parquet::DictionaryPageHeader{dictionary_entries, 0};
      parquet::AppendPageHeader(header, out_);
      AppendBytes(out_, dictionary);
    }
    const auto data_offset = static_cast<std::int64_t>(out_.size());
    Bytes padded = body;
    padded.resize(body.size() + 8, 0);
    parquet::ThriftWriter writer(out_);
    writer.BeginStruct();
    writer.I32Field(1, 0);
    writer.I32Field(2, static_cast<int>(padded.size()));
    writer.I32Field(3, static_cast<int>(padded.size()));
    writer.StructField(5);
    writer.I32Field(1, kRows);
    writer.I32Field(2, dictionary.empty() ? 0 : 8);
    writer.I32Field(3, 3);
    writer.I32Field(4, 4);  // BIT_PACKED repetition levels
    writer.StructField(5);  // Statistics: null_count only
    writer.I64Field(3, nulls);
    writer.EndStruct();
    writer.EndStruct();
    writer.EndStruct();
    AppendBytes(out_, padded);
    parquet::ColumnMetaData meta;
    meta.type = static_cast<std::int32_t>(type);
    meta.encodings = {0, 3, 4, 8};
    meta.path_in_schema = {name};
    meta.num_values = kRows;
    meta.total_uncompressed_size = meta.total_compressed_size =
        static_cast<std::int64_t>(out_.size()) - start;
    meta.data_page_offset = data_offset;
    meta.dictionary_page_offset = dictionary_offset;
    chunks_.push_back(parquet::ColumnChunk{start, meta});
    parquet::SchemaElement element;
    element.type = static_cast<std::int32_t>(type);
    element.repetition_type = optional ? 1 : 0;
    element.name = name;
    if (name == "path") element.converted_type = parquet::kConvertedTypeUtf8;
    schema_.push_back(element);
  }

  Bytes Finish() {
    parquet::FileMetaData metadata;
    metadata.schema.push_back(parquet::SchemaElement{});
    metadata.schema[0].name = "schema";
    metadata.schema[0].num_children = static_cast<int>(schema_.size());
    metadata.schema.insert(metadata.schema.end(), schema_.begin(), schema_.end());
    metadata.num_rows = kRows;
    metadata.row_groups.push_back(parquet::RowGroup{chunks_, 0, kRows});
    metadata.created_by = "fastparquet-python version 2024.2.0 (build 0)";
    const std::size_t footer = out_.size();
    parquet::AppendFileMetaData(metadata, out_);
    AppendLittleEndian(static_cast<std::uint32_t>(out_.size() - footer), out_);
    AppendBytes(out_, AsBytes("PAR1"));
    return out_;
  }

  static constexpr int kRows = 5;

 private:
  Bytes out_ = CopyToBytes(AsBytes("PAR1"));
  std::vector<parquet::ColumnChunk> chunks_;
  std::vector<parquet::SchemaElement> schema_;
};

Bytes Int64s(std::initializer_list<std::uint64_t> values) {
  Bytes out;
  for (const std::uint64_t value : values) AppendLittleEndian(value, out);
  return out;
}

TEST(ParquetReferenceIndex, ReadsAFastparquetStyleFileBuiltByHand) {
  using parquet::PhysicalType;
  FastparquetStyleFile file;
  // path: rows a.nc, b.nc, null, b.nc, a.nc. Levels: u32 length 2, bit-packed
  // run header 3, bits 1,1,0,1,1 -> 0x1B. Indices: width 8, one run of 8.
  const Bytes dictionary = {4, 0, 0, 0, 'a', '.', 'n', 'c', 4, 0, 0, 0, 'b', '.', 'n', 'c'};
  file.AddColumn("path", PhysicalType::kByteArray, true, dictionary, 2,
                 Bytes{2, 0, 0, 0, 3, 0x1B, 8, 3, 0, 1, 1, 0, 0, 0, 0, 0}, 1);
  file.AddColumn("offset", PhysicalType::kInt64, false, {}, 0, Int64s({10, 0, 0, 0, 5}), 0);
  file.AddColumn("size", PhysicalType::kInt64, false, {}, 0, Int64s({20, 0, 0, 7, 0}), 0);
  // raw: only row 2, "xyz". Levels: bit-packed run, bits 0,0,1,0,0 -> 0x04.
  file.AddColumn("raw", PhysicalType::kByteArray, true, {}, 0,
                 Bytes{2, 0, 0, 0, 3, 0x04, 3, 0, 0, 0, 'x', 'y', 'z'}, 4);
  const Bytes bytes = file.Finish();

  const auto directory = test::FreshScratchDirectory("refs_parquet");
  std::filesystem::create_directories(directory / "v");
  const std::string zmetadata =
      R"({"metadata": {".zgroup": {"zarr_format": 2}, "v/.zarray": {"chunks": [1], "shape": [5],)"
      R"( "dtype": "<i8", "zarr_format": 2}}, "record_size": 5})";
  ASSERT_TRUE(io::WriteFile(directory / ".zmetadata", AsBytes(zmetadata)).ok());
  ASSERT_TRUE(io::WriteFile(directory / "v/refs.0.parq", bytes).ok());
  auto loaded = LoadParquetReferences(Dir(directory), "");
  ASSERT_TRUE(loaded.ok()) << loaded.status().ToString();
  const Reference v0 = **loaded->Find("v/0");
  EXPECT_EQ(v0.kind, Reference::Kind::kRange);
  EXPECT_EQ(v0.url, "a.nc");
  EXPECT_EQ(v0.offset, 10u);
  EXPECT_EQ(v0.length, 20u);
  const Reference v1 = **loaded->Find("v/1");
  EXPECT_EQ(v1.kind, Reference::Kind::kWholeFile);
  EXPECT_EQ(v1.url, "b.nc");
  EXPECT_EQ(AsChars((*loaded->Find("v/2"))->data), "xyz");
  const Reference v3 = **loaded->Find("v/3");
  EXPECT_EQ(v3.url, "b.nc");
  EXPECT_EQ(v3.length, 7u);
  const Reference v4 = **loaded->Find("v/4");  // a zero-length range away from 0 stays a range
  EXPECT_EQ(v4.kind, Reference::Kind::kRange);
  EXPECT_EQ(v4.offset, 5u);
  EXPECT_EQ(v4.length, 0u);
  EXPECT_EQ(loaded->size(), 7u);
}

}  // namespace
}  // namespace chunkwise::formats::refs
