#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <optional>
#include <set>
#include <string>

#include "arrow_test_data.h"
#include "chunkwise/store/file_store.h"
#include "core/file_io.h"
#include "formats/arrow/ipc_metadata.h"
#include "formats/arrow/ipc_reader.h"
#include "formats/arrow/ipc_writer.h"

namespace chunkwise::formats::arrow {
namespace {

using testing::SampleBatch;
using testing::SampleSchema;

// Writes batches of the given row counts; returns the bytes and the blocks.
struct Written {
  Bytes bytes;
  std::vector<MessageBlock> blocks;
  std::uint64_t schema_end = 0;
};

Written WriteSample(IpcFormat format, const std::vector<std::int64_t>& rows,
                    std::uint32_t alignment = 8) {
  auto sink = std::make_unique<MemorySink>("sample");
  MemorySink* memory = sink.get();
  auto writer = IpcWriter::Create(std::move(sink), SampleSchema(), {format, alignment});
  EXPECT_TRUE(writer.ok()) << writer.status().ToString();
  Written out;
  out.schema_end = (*writer)->schema_end();
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const SampleBatch batch(rows[i], static_cast<int>(i) + 1);
    auto block = (*writer)->WriteRecordBatch(batch.View());
    EXPECT_TRUE(block.ok()) << block.status().ToString();
    out.blocks.push_back(*block);
  }
  EXPECT_TRUE((*writer)->Finish().ok());
  out.bytes = memory->Take();
  return out;
}

void ExpectSampleValues(const RecordBatch& batch, std::int64_t rows, int seed) {
  const SampleBatch expected(rows, seed);
  ASSERT_EQ(batch.num_rows, rows);
  ASSERT_EQ(batch.columns.size(), 7u);
  for (std::int64_t r = 0; r < rows; ++r) {
    const auto i = static_cast<std::size_t>(r);
    EXPECT_EQ(IntegerAt<std::int8_t>(batch.columns[0], r), expected.i8[i]);
    EXPECT_EQ(IntegerAt<std::uint16_t>(batch.columns[1], r), expected.u16[i]);
    const bool valid = (r + seed) % 3 != 0;
    EXPECT_EQ(IsValid(batch.columns[2], r), valid) << r;
    if (valid) {
      EXPECT_EQ(IntegerAt<std::int32_t>(batch.columns[2], r), expected.i32[i]);
    }
    EXPECT_EQ(IntegerAt<std::uint64_t>(batch.columns[3], r), expected.u64[i]);
    EXPECT_EQ(AsChars(BinaryAt(batch.columns[4], r)),
              std::string_view(expected.names)
                  .substr(static_cast<std::size_t>(expected.name_offsets[i]),
                          static_cast<std::size_t>(expected.name_offsets[i + 1] -
                                                   expected.name_offsets[i])));
    const ByteView blob = BinaryAt(batch.columns[5], r);
    EXPECT_TRUE(
        std::equal(blob.begin(), blob.end(), expected.blobs.begin() + expected.blob_offsets[i]));
    EXPECT_EQ(blob.size(),
              static_cast<std::size_t>(expected.blob_offsets[i + 1] - expected.blob_offsets[i]));
    const std::vector<std::int64_t> ids = ListIntegersAt<std::int64_t>(batch.columns[6], r);
    EXPECT_EQ(ids, std::vector<std::int64_t>(expected.ids.begin() + expected.ids_offsets[i],
                                             expected.ids.begin() + expected.ids_offsets[i + 1]));
  }
  EXPECT_EQ(batch.columns[2].null_count, expected.i32_nulls);
}

const std::vector<std::int64_t> kRows = {5, 0, 17, 1};

TEST(ArrowIpc, FileRoundTrip) {
  const Written written = WriteSample(IpcFormat::kFile, kRows);
  auto reader = IpcFileReader::Open(MemorySource(written.bytes, "sample.arrow"));
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  EXPECT_EQ(reader->schema(), SampleSchema());
  ASSERT_EQ(reader->num_record_batches(), kRows.size());
  // Read out of order: random access through the footer.
  for (std::size_t i : {2u, 0u, 3u, 1u}) {
    EXPECT_EQ(reader->block(i), written.blocks[i]);
    auto batch = reader->ReadRecordBatch(i);
    ASSERT_TRUE(batch.ok()) << batch.status().ToString();
    ExpectSampleValues(*batch, kRows[i], static_cast<int>(i) + 1);
  }
  EXPECT_EQ(reader->ReadRecordBatch(4).status().code(), StatusCode::kOutOfRange);
}

TEST(ArrowIpc, BatchesOutliveTheirReaderAndSource) {
  std::optional<RecordBatch> kept;
  {
    const Written written = WriteSample(IpcFormat::kFile, kRows);
    auto source = MemorySource(written.bytes, "owned.arrow");
    auto reader = IpcFileReader::Open(source);
    ASSERT_TRUE(reader.ok());
    auto batch = reader->ReadRecordBatch(2);
    ASSERT_TRUE(batch.ok());
    kept = std::move(*batch);
  }
  // The batch views the source's bytes without a copy and keeps them alive.
  ASSERT_NE(kept->owner, nullptr);
  ExpectSampleValues(*kept, kRows[2], 3);
}

TEST(ArrowIpc, StreamRoundTrip) {
  const Written written = WriteSample(IpcFormat::kStream, kRows);
  auto reader = IpcStreamReader::Open(MemorySource(written.bytes, "sample.stream"));
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  EXPECT_EQ(reader->schema(), SampleSchema());
  EXPECT_EQ(reader->schema_end(), written.schema_end);
  for (std::size_t i = 0; i < kRows.size(); ++i) {
    auto batch = reader->Next();
    ASSERT_TRUE(batch.ok() && batch->has_value()) << batch.status().ToString();
    ExpectSampleValues(**batch, kRows[i], static_cast<int>(i) + 1);
  }
  auto end = reader->Next();
  ASSERT_TRUE(end.ok());
  EXPECT_FALSE(end->has_value());
}

TEST(ArrowIpc, FileLayout) {
  const Written written = WriteSample(IpcFormat::kFile, kRows);
  const Bytes& bytes = written.bytes;
  ASSERT_GT(bytes.size(), 20u);
  EXPECT_EQ(AsChars(ByteView(bytes).first(8)), std::string_view("ARROW1\0\0", 8));
  EXPECT_EQ(AsChars(ByteView(bytes).last(6)), "ARROW1");
  EXPECT_EQ(written.schema_end % 8, 0u);
  const auto footer_length = LoadLittleEndian<std::uint32_t>(bytes.data() + bytes.size() - 10);
  const std::size_t footer_start = bytes.size() - 10 - footer_length;
  // The end-of-stream marker sits right before the footer.
  EXPECT_EQ(LoadLittleEndian<std::uint32_t>(bytes.data() + footer_start - 8), 0xFFFFFFFFu);
  EXPECT_EQ(LoadLittleEndian<std::uint32_t>(bytes.data() + footer_start - 4), 0u);
  EXPECT_EQ(written.blocks[0].offset, written.schema_end);
  for (std::size_t i = 0; i < written.blocks.size(); ++i) {
    const MessageBlock& block = written.blocks[i];
    EXPECT_EQ(block.offset % 8, 0u);
    EXPECT_EQ(block.metadata_length % 8, 0u);
    EXPECT_EQ(block.body_length % 8, 0u);
    EXPECT_EQ(LoadLittleEndian<std::uint32_t>(bytes.data() + block.offset), 0xFFFFFFFFu);
    EXPECT_EQ(LoadLittleEndian<std::uint32_t>(bytes.data() + block.offset + 4) + 8,
              block.metadata_length);
    if (i + 1 < written.blocks.size()) {
      EXPECT_EQ(block.end(), written.blocks[i + 1].offset);
    }
  }
  EXPECT_EQ(written.blocks.back().end() + 8, footer_start);
}

TEST(ArrowIpc, StreamIsTheFileWithoutMagicAndFooter) {
  const Written file = WriteSample(IpcFormat::kFile, kRows);
  const Written stream = WriteSample(IpcFormat::kStream, kRows);
  const std::size_t footer_length =
      LoadLittleEndian<std::uint32_t>(file.bytes.data() + file.bytes.size() - 10);
  const Bytes middle(file.bytes.begin() + 8,
                     file.bytes.end() - 10 - static_cast<std::ptrdiff_t>(footer_length));
  EXPECT_EQ(middle, stream.bytes);
}

TEST(ArrowIpc, Alignment64PadsEveryBuffer) {
  const Written written = WriteSample(IpcFormat::kFile, {9}, 64);
  const MessageBlock& block = written.blocks[0];
  const Bytes metadata(
      written.bytes.begin() + static_cast<std::ptrdiff_t>(block.offset + 8),
      written.bytes.begin() + static_cast<std::ptrdiff_t>(block.offset + block.metadata_length));
  auto message = internal::DecodeMessage(metadata, "test");
  ASSERT_TRUE(message.ok()) << message.status().ToString();
  ASSERT_EQ(message->batch->buffers.size(), 2u + 2 + 2 + 2 + 3 + 3 + 2 + 2);
  for (const internal::BufferSpec& buffer : message->batch->buffers)
    EXPECT_EQ(buffer.offset % 64, 0);
  EXPECT_EQ(message->body_length % 64, 0);
  auto reader = IpcFileReader::Open(MemorySource(written.bytes, "aligned.arrow"));
  ASSERT_TRUE(reader.ok());
  auto batch = reader->ReadRecordBatch(0);
  ASSERT_TRUE(batch.ok()) << batch.status().ToString();
  ExpectSampleValues(*batch, 9, 1);
  EXPECT_FALSE(
      IpcWriter::Create(std::make_unique<MemorySink>(), SampleSchema(), {IpcFormat::kFile, 12})
          .ok());
}

TEST(ArrowIpc, ReadsAMessageByItsWholeByteRange) {
  // DVID's offsets index gives (offset, size) of the whole message.
  for (IpcFormat format : {IpcFormat::kFile, IpcFormat::kStream}) {
    const Written written = WriteSample(format, kRows);
    auto source = MemorySource(written.bytes, "ranges");
    for (std::size_t i = 0; i < kRows.size(); ++i) {
      const MessageBlock& block = written.blocks[i];
      auto batch = ReadRecordBatchAt(*source, SampleSchema(), {block.offset, 0, block.size()});
      ASSERT_TRUE(batch.ok()) << batch.status().ToString();
      ExpectSampleValues(*batch, kRows[i], static_cast<int>(i) + 1);
    }
  }
}

TEST(ArrowIpc, ScanFindsStreamBlocksWithoutBodies) {
  const Written written = WriteSample(IpcFormat::kStream, kRows);
  auto reader = IpcStreamReader::Open(MemorySource(written.bytes, "scan"));
  ASSERT_TRUE(reader.ok());
  auto blocks = reader->ScanRecordBatchBlocks();
  ASSERT_TRUE(blocks.ok()) << blocks.status().ToString();
  EXPECT_EQ(*blocks, written.blocks);
}

TEST(ArrowIpc, StreamWithoutEndMarkerAndLegacyFraming) {
  Written written = WriteSample(IpcFormat::kStream, {3});
  written.bytes.resize(written.bytes.size() - 8);  // Drop the end-of-stream marker.
  auto reader = IpcStreamReader::Open(MemorySource(written.bytes, "no-eos"));
  ASSERT_TRUE(reader.ok());
  auto batch = reader->Next();
  ASSERT_TRUE(batch.ok() && batch->has_value());
  auto end = reader->Next();
  ASSERT_TRUE(end.ok());
  EXPECT_FALSE(end->has_value());
  // Pre-0.15 framing: no continuation word, the size comes first.
  Bytes legacy;
  std::uint64_t at = 0;
  for (const MessageBlock& block :
       {MessageBlock{0, static_cast<std::uint32_t>(written.schema_end), 0}, written.blocks[0]}) {
    at = block.offset;
    legacy.insert(legacy.end(), written.bytes.begin() + static_cast<std::ptrdiff_t>(at + 4),
                  written.bytes.begin() + static_cast<std::ptrdiff_t>(block.end()));
  }
  auto old = IpcStreamReader::Open(MemorySource(legacy, "legacy"));
  ASSERT_TRUE(old.ok()) << old.status().ToString();
  auto old_batch = old->Next();
  ASSERT_TRUE(old_batch.ok() && old_batch->has_value()) << old_batch.status().ToString();
  ExpectSampleValues(**old_batch, 3, 1);
}

void ExpectCorruption(const Status& status, std::string_view fragment, std::string_view name) {
  EXPECT_FALSE(status.ok());
  EXPECT_EQ(status.code(), StatusCode::kCorruption) << status.ToString();
  const std::string message = status.ToString();
  EXPECT_NE(message.find(fragment), std::string::npos) << message;
  EXPECT_NE(message.find(name), std::string::npos) << message;
}

TEST(ArrowIpc, BadMagicIsRefused) {
  Written written = WriteSample(IpcFormat::kFile, {2});
  Bytes front = written.bytes;
  front[0] = 'B';
  ExpectCorruption(IpcFileReader::Open(MemorySource(front, "front.arrow")).status(), "ARROW1",
                   "front.arrow");
  Bytes back = written.bytes;
  back[back.size() - 1] = '2';
  ExpectCorruption(IpcFileReader::Open(MemorySource(back, "back.arrow")).status(), "ARROW1",
                   "back.arrow");
  // A stream is not a file.
  const Written stream = WriteSample(IpcFormat::kStream, {2});
  EXPECT_FALSE(IpcFileReader::Open(MemorySource(stream.bytes, "s.arrows")).ok());
}

// The file with its footer replaced by one listing `blocks`.
Bytes WithFooterBlocks(const Written& written, const std::vector<MessageBlock>& blocks) {
  const std::size_t footer_length =
      LoadLittleEndian<std::uint32_t>(written.bytes.data() + written.bytes.size() - 10);
  Bytes out(written.bytes.begin(),
            written.bytes.end() - 10 - static_cast<std::ptrdiff_t>(footer_length));
  const Bytes footer = internal::EncodeFooter(SampleSchema(), blocks);
  out.insert(out.end(), footer.begin(), footer.end());
  AppendLittleEndian(static_cast<std::uint32_t>(footer.size()), out);
  for (char c : kFileMagic) out.push_back(static_cast<std::uint8_t>(c));
  return out;
}

TEST(ArrowIpc, FooterBlocksOutsideTheDataAreRefused) {
  const Written written = WriteSample(IpcFormat::kFile, {3, 2});
  ASSERT_TRUE(
      IpcFileReader::Open(MemorySource(WithFooterBlocks(written, written.blocks), "same")).ok());
  for (MessageBlock bad : {MessageBlock{4, 64, 8}, MessageBlock{written.blocks[1].offset, 4, 8},
                           MessageBlock{written.blocks[1].offset, written.blocks[1].metadata_length,
                                        written.blocks[1].body_length + 16},
                           MessageBlock{written.blocks[1].offset, 8, ~std::uint64_t{0} - 4}}) {
    std::vector<MessageBlock> blocks = written.blocks;
    blocks[1] = bad;
    ExpectCorruption(
        IpcFileReader::Open(MemorySource(WithFooterBlocks(written, blocks), "blocks.arrow"))
            .status(),
        "footer block 1", "blocks.arrow");
  }
  // A block inside the data that points at the schema message is no record batch.
  std::vector<MessageBlock> blocks = written.blocks;
  blocks[0] = {8, static_cast<std::uint32_t>(written.schema_end - 8), 0};
  auto reader =
      IpcFileReader::Open(MemorySource(WithFooterBlocks(written, blocks), "schema.arrow"));
  ASSERT_TRUE(reader.ok());
  ExpectCorruption(reader->ReadRecordBatch(0).status(), "not a record batch", "schema.arrow");
}

TEST(ArrowIpc, EveryTruncationOfAFileIsAnError) {
  const Written written = WriteSample(IpcFormat::kFile, {4, 2});
  for (std::size_t n = 0; n < written.bytes.size(); ++n) {
    Bytes cut(written.bytes.begin(), written.bytes.begin() + static_cast<std::ptrdiff_t>(n));
    auto reader = IpcFileReader::Open(MemorySource(std::move(cut), "cut.arrow"));
    ASSERT_FALSE(reader.ok()) << n;
    EXPECT_EQ(reader.status().code(), StatusCode::kCorruption) << n << reader.status().ToString();
    EXPECT_NE(reader.status().ToString().find("cut.arrow"), std::string::npos);
  }
}

TEST(ArrowIpc, TruncatedStreamEndsCleanlyOnlyAtMessageBoundaries) {
  const Written written = WriteSample(IpcFormat::kStream, {4, 2});
  std::set<std::uint64_t> boundaries = {written.schema_end, written.blocks[0].end(),
                                        written.blocks[1].end()};
  for (std::size_t n = 0; n < written.bytes.size(); ++n) {
    Bytes cut(written.bytes.begin(), written.bytes.begin() + static_cast<std::ptrdiff_t>(n));
    auto reader = IpcStreamReader::Open(MemorySource(std::move(cut), "cut.stream"));
    if (!reader.ok()) {
      EXPECT_LT(n, written.schema_end);
      continue;
    }
    Status status;
    int batches = 0;
    while (true) {
      auto next = reader->Next();
      if (!next.ok()) {
        status = next.status();
        break;
      }
      if (!next->has_value()) break;
      ++batches;
    }
    EXPECT_EQ(status.ok(), boundaries.contains(n)) << n << " " << status.ToString();
    if (!status.ok()) {
      EXPECT_NE(status.ToString().find("cut.stream"), std::string::npos);
    }
  }
}

TEST(ArrowIpc, FlippedBytesNeverCrash) {
  const Written written = WriteSample(IpcFormat::kFile, {3, 1});
  for (std::size_t i = 0; i < written.bytes.size(); ++i) {
    Bytes flipped = written.bytes;
    flipped[i] ^= 0x5A;
    auto reader = IpcFileReader::Open(MemorySource(std::move(flipped), "flip.arrow"));
    if (!reader.ok()) continue;
    for (std::size_t b = 0; b < reader->num_record_batches(); ++b) {
      auto batch = reader->ReadRecordBatch(b);
      if (!batch.ok()) continue;
      for (std::int64_t r = 0; r < batch->num_rows; ++r) {
        (void)BinaryAt(batch->columns[5], r);
        (void)ListIntegersAt<std::int64_t>(batch->columns[6], r);
      }
    }
  }
}

// Frames a record batch message for `header` around `body`, after a valid schema message.
Schema BlobSchema() {
  Schema schema;
  schema.fields = {Field::Primitive("blob", TypeId::kBinary, false)};
  return schema;
}

Bytes StreamWith(const internal::RecordBatchHeader& header, const Bytes& body,
                 const Schema& schema = BlobSchema()) {
  Bytes out;
  auto frame = [&out](const Bytes& flatbuffer) {
    const std::size_t padded = (flatbuffer.size() + 7) / 8 * 8;
    AppendLittleEndian(0xFFFFFFFFu, out);
    AppendLittleEndian(static_cast<std::uint32_t>(padded), out);
    out.insert(out.end(), flatbuffer.begin(), flatbuffer.end());
    out.resize(out.size() + padded - flatbuffer.size(), 0);
  };
  frame(internal::EncodeSchemaMessage(schema));
  frame(internal::EncodeRecordBatchMessage(header, static_cast<std::int64_t>(body.size())));
  out.insert(out.end(), body.begin(), body.end());
  return out;
}

Status ReadCrafted(const internal::RecordBatchHeader& header, const Bytes& body,
                   const Schema& schema = BlobSchema()) {
  auto reader = IpcStreamReader::Open(MemorySource(StreamWith(header, body, schema), "crafted"));
  if (!reader.ok()) return reader.status();
  return reader->Next().status();
}

TEST(ArrowIpc, BuffersAndOffsetsAreBoundsChecked) {
  Bytes body(24, 0);
  // Offsets 0, 3, 5 then 5 data bytes.
  StoreLittleEndian(3u, body.data() + 4);
  StoreLittleEndian(5u, body.data() + 8);
  internal::RecordBatchHeader good{2, {{2, 0}}, {{0, 0}, {0, 12}, {16, 5}}};
  EXPECT_TRUE(ReadCrafted(good, body).ok());
  internal::RecordBatchHeader outside = good;
  outside.buffers[2] = {16, 9};
  ExpectCorruption(ReadCrafted(outside, body), "outside the 24-byte body", "crafted");
  internal::RecordBatchHeader negative = good;
  negative.buffers[1] = {-8, 12};
  ExpectCorruption(ReadCrafted(negative, body), "outside", "crafted");
  Bytes decreasing = body;
  StoreLittleEndian(2u, decreasing.data() + 8);
  ExpectCorruption(ReadCrafted(good, decreasing), "offsets decrease", "crafted");
  Bytes past = body;
  StoreLittleEndian(6u, past.data() + 8);
  ExpectCorruption(ReadCrafted(good, past), "past the end of the data", "crafted");
  internal::RecordBatchHeader short_offsets = good;
  short_offsets.buffers[1] = {0, 8};
  ExpectCorruption(ReadCrafted(short_offsets, body), "offsets buffer has 8 bytes", "crafted");
  internal::RecordBatchHeader missing_buffer = good;
  missing_buffer.buffers.pop_back();
  ExpectCorruption(ReadCrafted(missing_buffer, body), "fewer buffers", "crafted");
  internal::RecordBatchHeader long_node = good;
  long_node.nodes[0].length = 3;
  ExpectCorruption(ReadCrafted(long_node, body), "expected 2", "crafted");
  internal::RecordBatchHeader nulls_without_bitmap = good;
  nulls_without_bitmap.nodes[0].null_count = 1;
  ExpectCorruption(ReadCrafted(nulls_without_bitmap, body), "validity bitmap", "crafted");
}

// Regression (found by arrow_ipc_file_fuzz): a child length so large that
// length * 8 overflows passed the values-buffer check.
TEST(ArrowIpc, HugeLengthsDoNotWrapTheBufferChecks) {
  Schema schema;
  schema.fields = {Field::List("l", Field::Primitive("item", TypeId::kUInt64), false)};
  Bytes body(16, 0);
  const std::int64_t huge = std::int64_t{1} << 61;
  internal::RecordBatchHeader header{1, {{1, 0}, {huge, 0}}, {{0, 0}, {0, 8}, {0, 0}, {8, 8}}};
  StoreLittleEndian(std::uint32_t{2}, body.data() + 4);
  ExpectCorruption(ReadCrafted(header, body, schema),
                   "values buffer has 8 bytes, needs 8 * 2305843009213693952", "crafted");
  internal::RecordBatchHeader max_length{
      1, {{1, 0}, {INT64_MAX, 1}}, {{0, 0}, {0, 8}, {0, 0}, {8, 8}}};
  ExpectCorruption(ReadCrafted(max_length, body, schema), "crafted", "crafted");
  internal::RecordBatchHeader binary{INT64_MAX, {{INT64_MAX, 0}}, {{0, 0}, {0, 8}, {8, 8}}};
  ExpectCorruption(ReadCrafted(binary, body), "offsets buffer has 8 bytes", "crafted");
}

TEST(ArrowIpc, GarbageMetadataFailsVerification) {
  Bytes stream;
  AppendLittleEndian(0xFFFFFFFFu, stream);
  AppendLittleEndian(16u, stream);
  for (int i = 0; i < 16; ++i) stream.push_back(static_cast<std::uint8_t>(0xA0 + i));
  ExpectCorruption(IpcStreamReader::Open(MemorySource(stream, "garbage")).status(),
                   "fails verification", "garbage");
}

TEST(ArrowIpc, WriterRefusesBatchesThatDoNotFitTheSchema) {
  auto writer = IpcWriter::Create(std::make_unique<MemorySink>(), SampleSchema());
  ASSERT_TRUE(writer.ok());
  SampleBatch sample(4, 1);
  RecordBatch wrong_rows = sample.View();
  wrong_rows.num_rows = 5;
  EXPECT_EQ((*writer)->WriteRecordBatch(wrong_rows).status().code(), StatusCode::kInvalidArgument);
  RecordBatch missing_column = sample.View();
  missing_column.columns.pop_back();
  EXPECT_EQ((*writer)->WriteRecordBatch(missing_column).status().code(),
            StatusCode::kInvalidArgument);
  sample.blob_offsets[2] = 1000;
  const Status bad_offsets = (*writer)->WriteRecordBatch(sample.View()).status();
  EXPECT_EQ(bad_offsets.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(bad_offsets.ToString().find("blob"), std::string::npos) << bad_offsets.ToString();
  Schema bad_list;
  bad_list.fields = {Field{"l", TypeId::kList, true, {}, {}}};
  EXPECT_FALSE(IpcWriter::Create(std::make_unique<MemorySink>(), bad_list).ok());
}

// A store sink over a FileStore: the file appears only on Finish.
class ArrowFileSinkTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::path(::testing::TempDir()) /
           ("arrow_sink_test." + std::to_string(::getpid()));
    std::filesystem::remove_all(dir_);
    store_ = *store::FileStore::Open(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::size_t EntryCount() const {
    return static_cast<std::size_t>(std::distance(std::filesystem::directory_iterator(dir_), {}));
  }
  std::filesystem::path dir_;
  std::shared_ptr<store::FileStore> store_;
};

TEST_F(ArrowFileSinkTest, OutputAppearsOnlyOnFinish) {
  const std::filesystem::path path = dir_ / "shard.arrow";
  auto sink = CreateStoreSink(store_, "shard.arrow");
  ASSERT_TRUE(sink.ok());
  auto writer = IpcWriter::Create(std::move(*sink), SampleSchema());
  ASSERT_TRUE(writer.ok());
  const SampleBatch sample(6, 2);
  ASSERT_TRUE((*writer)->WriteRecordBatch(sample.View()).ok());
  EXPECT_FALSE(std::filesystem::exists(path));
  ASSERT_TRUE((*writer)->Finish().ok());
  ASSERT_TRUE(std::filesystem::exists(path));
  EXPECT_EQ(EntryCount(), 1u);
  auto source = OpenStoreSource(store_, "shard.arrow");
  ASSERT_TRUE(source.ok());
  auto reader = IpcFileReader::Open(*source);
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  auto batch = reader->ReadRecordBatch(0);
  ASSERT_TRUE(batch.ok());
  ExpectSampleValues(*batch, 6, 2);
  // An existing output is refused without overwrite and replaced with it.
  EXPECT_EQ(CreateStoreSink(store_, "shard.arrow").status().code(), StatusCode::kInvalidArgument);
  EXPECT_TRUE(CreateStoreSink(store_, "shard.arrow", {.overwrite = true}).ok());
  EXPECT_EQ(OpenStoreSource(store_, "none.arrow").status().code(), StatusCode::kNotFound);
}

TEST_F(ArrowFileSinkTest, AbandonedWriterLeavesNothing) {
  {
    auto sink = CreateStoreSink(store_, "never.arrow");
    ASSERT_TRUE(sink.ok());
    auto writer = IpcWriter::Create(std::move(*sink), SampleSchema());
    ASSERT_TRUE(writer.ok());
    // Large enough to go past the sink's gathering buffer.
    const SampleBatch sample(40000, 3);
    ASSERT_TRUE((*writer)->WriteRecordBatch(sample.View()).ok());
  }
  EXPECT_EQ(EntryCount(), 0u);
}

}  // namespace
}  // namespace chunkwise::formats::arrow
