#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include "chunkwise/store/file_store.h"
#include "core/file_io.h"
#include "formats/arrow/ipc_reader.h"
#include "formats/arrow/ipc_writer.h"
#include "formats/dvid/arrow_shard_reader.h"
#include "formats/dvid/arrow_shard_writer.h"
#include "store/memory_store.h"
#include "unit/forwarding_store.h"

namespace chunkwise::formats::dvid {
namespace {

namespace fs = std::filesystem;
using arrow::IpcFormat;

ExportBlock Block(std::int32_t x, std::int32_t y, std::int32_t z) {
  ExportBlock block;
  block.chunk_x = x, block.chunk_y = y, block.chunk_z = z;
  const int n = 1 + (x + 2 * y + 3 * z) % 6;
  for (int k = 0; k < n; ++k) {
    block.supervoxels.push_back(0x8000000000000000ull + static_cast<std::uint64_t>(k * 97 + x));
    block.labels.push_back(k == 1 ? 0 : 42 + static_cast<std::uint64_t>(z));
  }
  block.dvid_compressed_block.assign(static_cast<std::size_t>(20 + 7 * (x + y + z)), 0);
  for (std::size_t i = 0; i < block.dvid_compressed_block.size(); ++i) {
    block.dvid_compressed_block[i] =
        static_cast<std::uint8_t>(i * 13 + static_cast<std::size_t>(y));
  }
  block.uncompressed_size = static_cast<std::uint32_t>(24 + x * 100);
  return block;
}

const std::vector<std::array<std::int32_t, 3>> kChunks = {
    {3, 1, 0}, {2, 1, 0}, {2, 2, 1}, {-1, 0, 0}, {5, 5, 5}};

TEST(ExportShardSchema, MatchesTheSeed) {
  const arrow::Schema& schema = ExportShardSchema();
  ASSERT_EQ(schema.fields.size(), 7u);
  const char* names[] = {"chunk_x",          "chunk_y",     "chunk_z",
                         "labels",           "supervoxels", "dvid_compressed_block",
                         "uncompressed_size"};
  const char* types[] = {"int32",        "int32",  "int32", "list<uint64>",
                         "list<uint64>", "binary", "uint32"};
  for (std::size_t i = 0; i < 7; ++i) {
    EXPECT_EQ(schema.fields[i].name, names[i]);
    EXPECT_EQ(arrow::TypeName(schema.fields[i]), types[i]);
    EXPECT_FALSE(schema.fields[i].nullable) << names[i];
  }
  EXPECT_EQ(schema.fields[kLabels].children[0].name, "item");
  EXPECT_EQ(schema.fields[kDvidCompressedBlock].metadata,
            (arrow::Metadata{{"compression", "true"}, {"codec", "zstd"}}));
  EXPECT_TRUE(CheckExportShardSchema(schema, "x").ok());
  arrow::Schema renamed = schema;
  renamed.fields[4].name = "svs";
  EXPECT_EQ(CheckExportShardSchema(renamed, "x.arrow").code(), StatusCode::kCorruption);
}

TEST(ExportShardSchema, BuilderRefusesUnparallelLabels) {
  ExportBatchBuilder builder;
  ExportBlock block = Block(1, 2, 3);
  block.labels.pop_back();
  EXPECT_EQ(builder.Add(block).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(builder.size(), 0);
}

struct ShardCase {
  IpcFormat format;
  ChunkIndexForm form;
};

class ArrowShardTest : public ::testing::TestWithParam<ShardCase> {
 protected:
  void SetUp() override {
    dir_ = fs::path(::testing::TempDir()) / ("arrow_shard_test." + std::to_string(::getpid()));
    fs::remove_all(dir_);
    store_ = *store::FileStore::Open(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  // Writes the shard `<stem>.arrow` and `.csv` through the FileStore over dir_.
  void WriteShard(const fs::path& stem) {
    auto writer = ArrowShardWriter::Create(store_, stem.filename().string(),
                                           {GetParam().format, GetParam().form, false});
    ASSERT_TRUE(writer.ok()) << writer.status().ToString();
    for (const auto& c : kChunks) ASSERT_TRUE((*writer)->Add(Block(c[0], c[1], c[2])).ok());
    EXPECT_EQ((*writer)->Add(Block(2, 2, 1)).code(), StatusCode::kInvalidArgument);
    EXPECT_FALSE(fs::exists(fs::path(stem) += ".arrow"));
    ASSERT_TRUE((*writer)->Finish().ok());
  }

  // The shard `path` names, opened through the store.
  Result<ArrowShardReader> Open(const fs::path& path) {
    return ArrowShardReader::Open(store_, path.filename().string());
  }

  fs::path dir_;
  std::shared_ptr<store::FileStore> store_;
};

TEST_P(ArrowShardTest, EveryChunkReadsBackThroughTheIndex) {
  const fs::path stem = dir_ / "30720_24576_28672";
  WriteShard(stem);
  auto reader = Open(fs::path(stem) += ".arrow");
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  EXPECT_EQ(reader->is_file_format(), GetParam().format == IpcFormat::kFile);
  EXPECT_EQ(reader->index().form, GetParam().form);
  EXPECT_EQ(reader->ListChunks().size(), kChunks.size());
  for (const auto& c : kChunks) {
    auto block = reader->Get(c[0], c[1], c[2]);
    ASSERT_TRUE(block.ok()) << block.status().ToString();
    ASSERT_TRUE(block->has_value());
    EXPECT_EQ(**block, Block(c[0], c[1], c[2]));
  }
  auto missing = reader->Get(7, 7, 7);
  ASSERT_TRUE(missing.ok());
  EXPECT_FALSE(missing->has_value());
}

TEST_P(ArrowShardTest, IndexIsSortedAndDescribesTheFile) {
  const fs::path stem = dir_ / "s";
  WriteShard(stem);
  auto text = core::ReadFile(fs::path(stem) += ".csv");
  ASSERT_TRUE(text.ok());
  auto index = ParseChunkIndex(AsChars(*text), "s.csv");
  ASSERT_TRUE(index.ok()) << index.status().ToString();
  ChunkIndex sorted = *index;
  SortChunkIndexRows(sorted);
  EXPECT_EQ(sorted.rows, index->rows);
  if (GetParam().form != ChunkIndexForm::kOffsets) return;
  // schema_size covers everything before the first batch; each range is one message.
  auto bytes = core::ReadFile(fs::path(stem) += ".arrow");
  ASSERT_TRUE(bytes.ok());
  std::uint64_t first = UINT64_MAX;
  for (const ChunkIndexRow& row : index->rows) {
    first = std::min(first, row.offset);
    EXPECT_EQ(LoadLittleEndian<std::uint32_t>(bytes->data() + row.offset), 0xFFFFFFFFu);
  }
  EXPECT_EQ(index->schema_size, first);
}

TEST_P(ArrowShardTest, IndexThatDisagreesWithTheDataIsReported) {
  const fs::path stem = dir_ / "swap";
  WriteShard(stem);
  const fs::path csv = fs::path(stem) += ".csv";
  auto text = core::ReadFile(csv);
  ASSERT_TRUE(text.ok());
  auto index = ParseChunkIndex(AsChars(*text), "swap.csv");
  ASSERT_TRUE(index.ok());
  std::swap(index->rows[0].chunk, index->rows[1].chunk);
  ASSERT_TRUE(store_->Set("swap.csv", AsBytes(FormatChunkIndex(*index))).ok());
  auto reader = Open(fs::path(stem) += ".arrow");
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  const auto chunk = index->rows[0].chunk;
  const Status status = reader->Get(chunk[0], chunk[1], chunk[2]).status();
  EXPECT_EQ(status.code(), StatusCode::kCorruption);
  EXPECT_NE(status.ToString().find("the index points to a record of chunk"), std::string::npos)
      << status.ToString();
}

TEST_P(ArrowShardTest, TruncatedShardIsRefused) {
  const fs::path stem = dir_ / "cut";
  WriteShard(stem);
  const fs::path arrow_path = fs::path(stem) += ".arrow";
  auto bytes = core::ReadFile(arrow_path);
  ASSERT_TRUE(bytes.ok());
  bytes->resize(bytes->size() - 40);
  ASSERT_TRUE(store_->Set("cut.arrow", *bytes).ok());
  auto reader = Open(arrow_path);
  Status status = reader.status();
  if (reader.ok()) {
    // A stream indexed by offsets opens lazily; its last ranges now run past the end.
    status = Status::Ok();
    for (const auto& c : kChunks) {
      if (const auto got = reader->Get(c[0], c[1], c[2]); !got.ok()) status = got.status();
    }
  }
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.code(), StatusCode::kCorruption) << status.ToString();
  EXPECT_NE(status.ToString().find("cut."), std::string::npos) << status.ToString();
}

TEST_P(ArrowShardTest, ExistingOutputsAreRefusedUnlessOverwriting) {
  const fs::path stem = dir_ / "twice";
  WriteShard(stem);
  EXPECT_EQ(ArrowShardWriter::Create(store_, "twice", {GetParam().format, GetParam().form, false})
                .status()
                .code(),
            StatusCode::kInvalidArgument);
  EXPECT_TRUE(
      ArrowShardWriter::Create(store_, "twice", {GetParam().format, GetParam().form, true}).ok());
}

TEST_P(ArrowShardTest, WorksOverAStore) {
  auto store = std::make_shared<store::MemoryStore>();
  auto writer =
      ArrowShardWriter::Create(store, "s0/0_0_0", {GetParam().format, GetParam().form, false});
  ASSERT_TRUE(writer.ok());
  for (const auto& c : kChunks) ASSERT_TRUE((*writer)->Add(Block(c[0], c[1], c[2])).ok());
  ASSERT_TRUE((*writer)->Finish().ok());
  auto reader = ArrowShardReader::Open(store, "s0/0_0_0.arrow");
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  auto block = reader->Get(-1, 0, 0);
  ASSERT_TRUE(block.ok() && block->has_value());
  EXPECT_EQ(**block, Block(-1, 0, 0));
  EXPECT_EQ(ArrowShardReader::Open(store, "s0/9_9_9.arrow").status().code(), StatusCode::kNotFound);
}

// Read whole: one Get of the .arrow (and one of the .csv), then every block
// from memory, equal to the blocks read by range.
TEST_P(ArrowShardTest, ReadWholeAsksTheStoreOnce) {
  class CountingStore : public test::ForwardingStore {
   public:
    Result<std::optional<Bytes>> Get(std::string_view key) const override {
      ++gets;
      return ForwardingStore::Get(key);
    }
    Result<std::optional<Bytes>> GetRange(std::string_view key,
                                          store::ByteRange range) const override {
      ++ranges;
      return ForwardingStore::GetRange(key, range);
    }
    mutable int gets = 0;
    mutable int ranges = 0;
  };
  auto store = std::make_shared<CountingStore>();
  auto writer =
      ArrowShardWriter::Create(store, "s0/0_0_0", {GetParam().format, GetParam().form, false});
  ASSERT_TRUE(writer.ok());
  for (const auto& c : kChunks) ASSERT_TRUE((*writer)->Add(Block(c[0], c[1], c[2])).ok());
  ASSERT_TRUE((*writer)->Finish().ok());
  store->gets = store->ranges = 0;
  auto reader = ArrowShardReader::Open(store, "s0/0_0_0.arrow", {.read_whole = true});
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  for (const auto& c : kChunks) {
    auto block = reader->Get(c[0], c[1], c[2]);
    ASSERT_TRUE(block.ok() && block->has_value()) << block.status().ToString();
    EXPECT_EQ(**block, Block(c[0], c[1], c[2]));
  }
  EXPECT_EQ(store->gets, 2);
  EXPECT_EQ(store->ranges, 0);
  EXPECT_EQ(ArrowShardReader::Open(store, "s0/9_9_9.arrow", {.read_whole = true}).status().code(),
            StatusCode::kNotFound);
}

INSTANTIATE_TEST_SUITE_P(Forms, ArrowShardTest,
                         ::testing::Values(ShardCase{IpcFormat::kFile, ChunkIndexForm::kRecord},
                                           ShardCase{IpcFormat::kFile, ChunkIndexForm::kOffsets},
                                           ShardCase{IpcFormat::kStream, ChunkIndexForm::kRecord},
                                           ShardCase{IpcFormat::kStream, ChunkIndexForm::kOffsets}),
                         [](const auto& info) {
                           return std::string(info.param.format == IpcFormat::kFile ? "File"
                                                                                    : "Stream") +
                                  (info.param.form == ChunkIndexForm::kRecord ? "Rec" : "Offsets");
                         });

TEST(ArrowShardReader, CsvRowPastTheRecordsIsRefusedAtOpen) {
  auto store = std::make_shared<store::MemoryStore>();
  auto writer = ArrowShardWriter::Create(store, "a", {});
  ASSERT_TRUE(writer.ok());
  ASSERT_TRUE((*writer)->Add(Block(0, 0, 0)).ok());
  ASSERT_TRUE((*writer)->Finish().ok());
  ASSERT_TRUE(store->Set("a.csv", AsBytes("x,y,z,rec\n0,0,0,0\n1,0,0,1\n")).ok());
  const Status status = ArrowShardReader::Open(store, "a.arrow").status();
  EXPECT_EQ(status.code(), StatusCode::kCorruption);
  EXPECT_NE(status.ToString().find("a.csv:3: rec 1 points past the 1 records"), std::string::npos)
      << status.ToString();
}

// A shard whose batches hold several blocks each: 3 + 2 rows, rec numbering rows.
void WriteMultiRowShard(const std::shared_ptr<store::Store>& store, IpcFormat format,
                        const std::string& csv) {
  auto writer = arrow::IpcWriter::Create(*arrow::CreateStoreSink(store, "m.arrow"),
                                         ExportShardSchema(), {format, 8});
  ASSERT_TRUE(writer.ok());
  ExportBatchBuilder builder;
  for (std::size_t i = 0; i < kChunks.size(); ++i) {
    ASSERT_TRUE(builder.Add(Block(kChunks[i][0], kChunks[i][1], kChunks[i][2])).ok());
    if (i == 2 || i + 1 == kChunks.size()) {
      ASSERT_TRUE((*writer)->WriteRecordBatch(builder.View()).ok());
      builder.Clear();
    }
  }
  ASSERT_TRUE((*writer)->Finish().ok());
  ASSERT_TRUE(store->Set("m.csv", AsBytes(csv)).ok());
}

TEST(ArrowShardReader, RecNumbersRowsAcrossMultiRowBatches) {
  std::string csv = "x,y,z,rec\n";
  for (std::size_t i = 0; i < kChunks.size(); ++i) {
    csv += std::to_string(kChunks[i][0]) + "," + std::to_string(kChunks[i][1]) + "," +
           std::to_string(kChunks[i][2]) + "," + std::to_string(i) + "\n";
  }
  for (IpcFormat format : {IpcFormat::kFile, IpcFormat::kStream}) {
    auto store = std::make_shared<store::MemoryStore>();
    WriteMultiRowShard(store, format, csv);
    auto reader = ArrowShardReader::Open(store, "m.arrow");
    ASSERT_TRUE(reader.ok()) << reader.status().ToString();
    EXPECT_EQ(reader->num_record_batches(), 2u);
    for (const auto& c : kChunks) {
      auto block = reader->Get(c[0], c[1], c[2]);
      ASSERT_TRUE(block.ok()) << block.status().ToString();
      ASSERT_TRUE(block->has_value());
      EXPECT_EQ(**block, Block(c[0], c[1], c[2]));
    }
    // Five rows in all: rec 5 is past them.
    ASSERT_TRUE(store->Set("m.csv", AsBytes(csv + "9,9,9,5\n")).ok());
    EXPECT_NE(ArrowShardReader::Open(store, "m.arrow")
                  .status()
                  .ToString()
                  .find("m.csv:7: rec 5 points past the 5 records"),
              std::string::npos);
  }
}

// An index that leaves records out would read them as absent (zero) blocks:
// checked against the Arrow record count at open, both ways.
TEST(ArrowShardReader, IndexLeavingRecordsOutIsCorruption) {
  auto store = std::make_shared<store::MemoryStore>();
  WriteMultiRowShard(store, IpcFormat::kFile, "x,y,z,rec\n3,1,0,0\n");
  const Status status = ArrowShardReader::Open(store, "m.arrow").status();
  EXPECT_EQ(status.code(), StatusCode::kCorruption);
  EXPECT_NE(status.ToString().find("m.csv lists 1 chunks, but memory:m.arrow holds 5 records"),
            std::string::npos)
      << status.ToString();
}

// DVID quirk (docs/formats/dvid.md, "DVID quirks not copied", 2): its lazy Go
// writer makes the first range start at 0 and include the schema message, and
// the comment says schema_size=0.
TEST(ArrowShardReader, DvidLazySchemaFirstRangeIncludesTheSchema) {
  auto store = std::make_shared<store::MemoryStore>();
  auto writer =
      ArrowShardWriter::Create(store, "d", {IpcFormat::kStream, ChunkIndexForm::kOffsets});
  ASSERT_TRUE(writer.ok());
  for (const auto& c : kChunks) ASSERT_TRUE((*writer)->Add(Block(c[0], c[1], c[2])).ok());
  ASSERT_TRUE((*writer)->Finish().ok());
  auto csv = store->Get("d.csv");
  ASSERT_TRUE(csv.ok() && csv->has_value());
  auto index = ParseChunkIndex(AsChars(**csv), "d.csv");
  ASSERT_TRUE(index.ok());
  const std::uint64_t schema_size = *index->schema_size;
  index->schema_size = 0;
  std::array<std::int32_t, 3> first{};
  for (ChunkIndexRow& row : index->rows) {
    if (row.offset == schema_size) {
      row.offset = 0;
      row.size += schema_size;
      first = row.chunk;
    }
  }
  ASSERT_TRUE(store->Set("d.csv", AsBytes(FormatChunkIndex(*index))).ok());
  auto reader = ArrowShardReader::Open(store, "d.arrow");
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  for (const auto& c : kChunks) {
    auto block = reader->Get(c[0], c[1], c[2]);
    ASSERT_TRUE(block.ok()) << block.status().ToString();
    ASSERT_TRUE(block->has_value());
    EXPECT_EQ(**block, Block(c[0], c[1], c[2]));
  }
  EXPECT_EQ(first, kChunks[0]);
}

TEST(ArrowShardReader, MissingIndexIsNotFound) {
  auto store = std::make_shared<store::MemoryStore>();
  ASSERT_TRUE(store->Set("a.arrow", AsBytes("ARROW1")).ok());
  EXPECT_EQ(ArrowShardReader::Open(store, "a.arrow").status().code(), StatusCode::kNotFound);
}

}  // namespace
}  // namespace chunkwise::formats::dvid
