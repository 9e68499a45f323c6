#include <gtest/gtest.h>

#include <string>

#include "formats/parquet/table.h"

namespace chunkwise::formats::parquet {
namespace {

// A table with every column kind: OPTIONAL UTF8 strings (repetitive, with
// nulls), REQUIRED INT64, OPTIONAL INT32, OPTIONAL binary, a null-type column.
std::vector<Column> SampleColumns(std::size_t rows) {
  Column text = Column::Named("path", PhysicalType::kByteArray, true);
  text.utf8 = true;
  text.dictionary = true;
  Column big = Column::Named("offset", PhysicalType::kInt64);
  Column small = Column::Named("small", PhysicalType::kInt32, true);
  small.dictionary = true;
  Column blob = Column::Named("raw", PhysicalType::kByteArray, true);
  Column nothing = Column::Named("nothing", PhysicalType::kInt32, true);
  nothing.null_type = true;
  for (std::size_t row = 0; row < rows; ++row) {
    const bool text_present = row % 5 != 3;
    text.present.push_back(text_present);
    const std::string url = "s3://bucket/file" + std::to_string(row % 7) + ".nc";
    text_present ? text.byte_arrays.Append(AsBytes(url)) : text.byte_arrays.AppendEmpty();
    big.present.push_back(1);
    big.integers.push_back(static_cast<std::int64_t>(row) * 1000003 - 5);
    small.present.push_back(row % 2);
    small.integers.push_back(row % 2 ? -static_cast<std::int64_t>(row % 11) : 0);
    blob.present.push_back(row % 3 == 0);
    const std::string bytes(row % 4, static_cast<char>(row));
    row % 3 == 0 ? blob.byte_arrays.Append(AsBytes(bytes)) : blob.byte_arrays.AppendEmpty();
    nothing.present.push_back(0);
    nothing.integers.push_back(0);
  }
  std::vector<Column> columns;
  for (Column* column : {&text, &big, &small, &blob, &nothing})
    columns.push_back(std::move(*column));
  return columns;
}

void ExpectSameColumns(const std::vector<Column>& expected, const Table& table) {
  ASSERT_EQ(table.columns.size(), expected.size());
  for (std::size_t c = 0; c < expected.size(); ++c) {
    const Column& want = expected[c];
    const Column& got = table.columns[c];
    SCOPED_TRACE(want.name);
    EXPECT_EQ(got.name, want.name);
    EXPECT_EQ(got.type, want.type);
    EXPECT_EQ(got.optional, want.optional);
    EXPECT_EQ(got.utf8, want.utf8);
    EXPECT_EQ(got.null_type, want.null_type);
    ASSERT_EQ(got.present, want.present);
    for (std::size_t row = 0; row < want.rows(); ++row) {
      if (!want.is_present(row)) continue;
      if (want.type == PhysicalType::kByteArray) {
        ASSERT_EQ(AsChars(got.byte_arrays[row]), AsChars(want.byte_arrays[row])) << row;
      } else {
        ASSERT_EQ(got.integers[row], want.integers[row]) << row;
      }
    }
  }
}

struct Variant {
  const char* name;
  WriteOptions options;
};

TEST(ParquetTable, RoundTripsEveryWriterVariant) {
  std::vector<Variant> variants;
  for (const Compression codec :
       {Compression::kUncompressed, Compression::kZstd, Compression::kGzip, Compression::kSnappy}) {
    WriteOptions options;
    options.compression = codec;
    options.rows_per_page = 97;
    variants.push_back({"codec", options});
  }
  WriteOptions v2;
  v2.data_page_v2 = true;
  v2.rows_per_page = 64;
  variants.push_back({"v2", v2});
  WriteOptions fastparquet_like;  // PLAIN_DICTIONARY, 8 zero bytes after each page, one page.
  fastparquet_like.legacy_plain_dictionary = true;
  fastparquet_like.page_padding_bytes = 8;
  fastparquet_like.rows_per_page = 1 << 20;
  variants.push_back({"fastparquet", fastparquet_like});
  WriteOptions pyarrow_like;  // version 2, several row groups, small pages.
  pyarrow_like.version = 2;
  pyarrow_like.rows_per_row_group = 300;
  pyarrow_like.rows_per_page = 50;
  variants.push_back({"pyarrow", pyarrow_like});
  WriteOptions fallback;  // The dictionary overflows after the first page: PLAIN from then on.
  fallback.max_dictionary_bytes = 40;
  fallback.rows_per_page = 10;
  variants.push_back({"fallback", fallback});
  WriteOptions plain;
  plain.dictionary = false;
  variants.push_back({"plain", plain});

  const std::vector<Column> columns = SampleColumns(1000);
  for (const Variant& variant : variants) {
    SCOPED_TRACE(variant.name);
    auto file = WriteTable(columns, variant.options);
    ASSERT_TRUE(file.ok()) << file.status().ToString();
    auto table = ReadTable(*file, "t.parq");
    ASSERT_TRUE(table.ok()) << table.status().ToString();
    EXPECT_EQ(table->num_rows, 1000);
    ExpectSameColumns(columns, *table);
  }
}

TEST(ParquetTable, DictionaryFallbackIsVisibleInTheFooter) {
  WriteOptions options;
  options.max_dictionary_bytes = 40;
  options.rows_per_page = 10;
  auto file = WriteTable(SampleColumns(100), options);
  ASSERT_TRUE(file.ok());
  auto metadata = ReadFileMetaData(*file, "t.parq");
  ASSERT_TRUE(metadata.ok());
  // "small" holds 5 distinct values in rows 0-9 (20 bytes), 5 more in 10-19
  // (40 bytes, the limit), then -10 in row 21: PLAIN from the third page on.
  const ColumnMetaData& small = *metadata->row_groups[0].columns[2].meta_data;
  EXPECT_TRUE(small.dictionary_page_offset.has_value());
  const auto& encodings = small.encodings;
  EXPECT_NE(std::find(encodings.begin(), encodings.end(), 8), encodings.end());  // RLE_DICTIONARY
  EXPECT_NE(std::find(encodings.begin(), encodings.end(), 0), encodings.end());  // PLAIN pages too
}

// fastparquet (fsspec's Parquet reference reader) types an integer column
// without Statistics.null_count as possibly null, so every chunk states it.
TEST(ParquetTable, EveryColumnChunkStatesItsNullCount) {
  auto file = WriteTable(SampleColumns(100), {});
  ASSERT_TRUE(file.ok());
  auto metadata = ReadFileMetaData(*file, "t.parq");
  ASSERT_TRUE(metadata.ok());
  std::vector<std::optional<std::int64_t>> counts;
  for (const ColumnChunk& chunk : metadata->row_groups[0].columns) {
    counts.push_back(chunk.meta_data->null_count);
  }
  // path: rows 3, 8, ... absent (20); offset: none; small: odd rows only (50);
  // raw: every third row present (66 absent); nothing: all 100.
  EXPECT_EQ(counts, (std::vector<std::optional<std::int64_t>>{20, 0, 50, 66, 100}));
}

TEST(ParquetTable, ReadsOnlyWantedColumnsInTheirOrder) {
  auto file = WriteTable(SampleColumns(20), {});
  ASSERT_TRUE(file.ok());
  const std::string wanted[] = {"raw", "missing", "path"};
  auto table = ReadTable(*file, "t.parq", wanted);
  ASSERT_TRUE(table.ok());
  ASSERT_EQ(table->columns.size(), 2u);
  EXPECT_EQ(table->columns[0].name, "raw");
  EXPECT_EQ(table->columns[1].name, "path");
  EXPECT_EQ(table->Find("missing"), nullptr);
}

TEST(ParquetTable, EmptyTableRoundTrips) {
  auto file = WriteTable(SampleColumns(0), {});
  ASSERT_TRUE(file.ok());
  auto table = ReadTable(*file, "t.parq");
  ASSERT_TRUE(table.ok()) << table.status().ToString();
  EXPECT_EQ(table->num_rows, 0);
  EXPECT_EQ(table->columns.size(), 5u);
}

TEST(ParquetTable, WriterRejectsBadColumns) {
  std::vector<Column> columns = SampleColumns(3);
  columns[1].present[1] = 0;  // REQUIRED with a null
  EXPECT_EQ(WriteTable(columns, {}).status().code(), StatusCode::kInvalidArgument);
  columns = SampleColumns(3);
  columns[2].integers[1] = 1LL << 40;  // INT32 overflow
  columns[2].present[1] = 1;
  EXPECT_EQ(WriteTable(columns, {}).status().code(), StatusCode::kInvalidArgument);
  columns = SampleColumns(3);
  columns[3].name = "path";
  EXPECT_EQ(WriteTable(columns, {}).status().code(), StatusCode::kInvalidArgument);
}

TEST(ParquetTable, EveryTruncationAndManyBitFlipsFailCleanly) {
  WriteOptions options;
  options.rows_per_page = 16;
  auto file = WriteTable(SampleColumns(64), options);
  ASSERT_TRUE(file.ok());
  for (std::size_t n = 0; n < file->size(); n += 3) {
    EXPECT_FALSE(ReadTable(ByteView(*file).first(n), "t.parq").ok()) << n;
  }
  // Flips must never crash; most are caught (zstd frames have no checksum, so not all).
  int failures = 0;
  for (std::size_t at = 0; at < file->size(); ++at) {
    Bytes copy = *file;
    copy[at] ^= 0x5A;
    failures += ReadTable(copy, "t.parq").ok() ? 0 : 1;
  }
  EXPECT_GT(failures, 0);
}

TEST(ParquetTable, ErrorsNameFileColumnAndPage) {
  WriteOptions options;
  options.compression = Compression::kUncompressed;
  std::vector<Column> columns = SampleColumns(10);
  columns.resize(2);
  auto file = WriteTable(columns, options);
  ASSERT_TRUE(file.ok());
  // Claim a larger uncompressed size for the second column's page: find the
  // offset column's first page header and corrupt its size field.
  auto metadata = ReadFileMetaData(*file, "t.parq");
  ASSERT_TRUE(metadata.ok());
  const std::int64_t page = metadata->row_groups[0].columns[1].meta_data->data_page_offset;
  Bytes copy = *file;
  // Header bytes: 0x15 type, 0x15 then the uncompressed size (160 = 80 zigzag, 2 bytes).
  ASSERT_EQ(copy[page + 2], 0x15);
  copy[page + 3] = static_cast<std::uint8_t>(copy[page + 3] + 2);
  auto table = ReadTable(copy, "t.parq");
  ASSERT_FALSE(table.ok());
  const std::string message(table.status().message());
  EXPECT_NE(message.find("t.parq"), std::string::npos) << message;
  EXPECT_NE(message.find("column 'offset'"), std::string::npos) << message;
  EXPECT_NE(message.find("page 0"), std::string::npos) << message;
}

TEST(ParquetTable, RefusesFilesClaimingTooManyRows) {
  auto file = WriteTable(SampleColumns(100), {});
  ASSERT_TRUE(file.ok());
  EXPECT_EQ(ReadTable(*file, "t.parq", {}, 99).status().code(), StatusCode::kCorruption);
  EXPECT_TRUE(ReadTable(*file, "t.parq", {}, 100).ok());
}

}  // namespace
}  // namespace chunkwise::formats::parquet
