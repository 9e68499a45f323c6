#include <gtest/gtest.h>

#include "formats/parquet/file_metadata.h"
#include "formats/parquet/thrift_compact.h"

namespace chunkwise::formats::parquet {
namespace {

TEST(ThriftCompact, FieldHeadersUseDeltasAndLongForm) {
  Bytes out;
  ThriftWriter writer(out);
  writer.BeginStruct();
  writer.I32Field(1, 5);    // delta 1: 0x15, zigzag 10
  writer.I64Field(20, -1);  // delta 19: long form 0x06, zigzag id 40, zigzag -1 = 1
  writer.BoolField(21, true);
  writer.EndStruct();
  EXPECT_EQ(out, (Bytes{0x15, 10, 0x06, 40, 1, 0x11, 0x00}));

  ThriftReader reader(out, "test");
  ASSERT_TRUE(reader.BeginStruct().ok());
  auto field = reader.NextField();
  ASSERT_TRUE(field.ok());
  EXPECT_EQ(field->id, 1);
  EXPECT_EQ(*reader.ReadI32(), 5);
  field = reader.NextField();
  EXPECT_EQ(field->id, 20);
  EXPECT_EQ(*reader.ReadI64(), -1);
  field = reader.NextField();
  EXPECT_EQ(field->id, 21);
  EXPECT_TRUE(field->bool_value);
  field = reader.NextField();
  EXPECT_EQ(field->type, ThriftType::kStop);
}

TEST(ThriftCompact, LongListsAndSkipping) {
  Bytes out;
  ThriftWriter writer(out);
  writer.BeginStruct();
  writer.ListField(7, ThriftType::kI32, 20);
  for (int i = 0; i < 20; ++i) writer.I32Element(i);
  writer.StructField(8);
  writer.BinaryField(1, "nested");
  writer.EndStruct();
  writer.I32Field(9, 42);
  writer.EndStruct();
  ThriftReader reader(out, "test");
  ASSERT_TRUE(reader.BeginStruct().ok());
  for (int i = 0; i < 2; ++i) {
    auto field = reader.NextField();
    ASSERT_TRUE(field.ok());
    ASSERT_TRUE(reader.Skip(field->type).ok());
  }
  auto field = reader.NextField();
  EXPECT_EQ(field->id, 9);
  EXPECT_EQ(*reader.ReadI32(), 42);
}

TEST(ThriftCompact, TruncatedAndHostileInputFail) {
  const Bytes truncated_varint = {0x15, 0x80};
  ThriftReader a(truncated_varint, "x");
  ASSERT_TRUE(a.BeginStruct().ok());
  ASSERT_TRUE(a.NextField().ok());
  EXPECT_EQ(a.ReadI32().status().code(), StatusCode::kCorruption);

  const Bytes huge_binary = {0x18, 0xFF, 0xFF, 0x03, 'a'};
  ThriftReader b(huge_binary, "x");
  ASSERT_TRUE(b.BeginStruct().ok());
  ASSERT_TRUE(b.NextField().ok());
  EXPECT_FALSE(b.ReadBinary().ok());

  const Bytes huge_list = {0xF5, 0xFF, 0xFF, 0xFF, 0x0F};
  ThriftReader c(huge_list, "x");
  EXPECT_FALSE(c.ReadListHeader().ok());

  Bytes deep(200, 0x1C);  // struct field inside struct field ...
  ThriftReader d(deep, "x");
  ASSERT_TRUE(d.BeginStruct().ok());
  auto field = d.NextField();
  ASSERT_TRUE(field.ok());
  const Status status = d.Skip(field->type);
  EXPECT_EQ(status.code(), StatusCode::kCorruption);
  EXPECT_NE(status.message().find("deep"), std::string_view::npos) << status.ToString();
}

TEST(ParquetMetadata, FileMetaDataRoundTrips) {
  FileMetaData metadata;
  metadata.version = 2;
  metadata.num_rows = 7;
  metadata.schema.resize(2);
  metadata.schema[0].name = "schema";
  metadata.schema[0].num_children = 1;
  metadata.schema[1] =
      SchemaElement{6, std::nullopt, 1, "path", std::nullopt, 0, kLogicalTypeString};
  ColumnMetaData column;
  column.type = 6;
  column.encodings = {0, 3, 8};
  column.path_in_schema = {"path"};
  column.codec = 6;
  column.num_values = 7;
  column.total_uncompressed_size = 100;
  column.total_compressed_size = 80;
  column.data_page_offset = 30;
  column.dictionary_page_offset = 4;
  column.null_count = 2;
  metadata.row_groups.push_back(RowGroup{{ColumnChunk{4, column}}, 100, 7});
  metadata.key_value_metadata = {{"pandas", "{}"}};
  metadata.created_by = "test";
  Bytes out;
  AppendFileMetaData(metadata, out);
  auto decoded = DecodeFileMetaData(out, "f.parq");
  ASSERT_TRUE(decoded.ok()) << decoded.status().ToString();
  EXPECT_EQ(decoded->version, 2);
  EXPECT_EQ(decoded->num_rows, 7);
  ASSERT_EQ(decoded->schema.size(), 2u);
  EXPECT_EQ(decoded->schema[1].name, "path");
  EXPECT_EQ(decoded->schema[1].logical_type, kLogicalTypeString);
  EXPECT_EQ(decoded->schema[1].converted_type, 0);
  const ColumnMetaData& back = *decoded->row_groups.at(0).columns.at(0).meta_data;
  EXPECT_EQ(back.encodings, (std::vector<std::int32_t>{0, 3, 8}));
  EXPECT_EQ(back.dictionary_page_offset, 4);
  EXPECT_EQ(back.data_page_offset, 30);
  EXPECT_EQ(back.null_count, 2);
  EXPECT_EQ(decoded->key_value_metadata.at(0).first, "pandas");
  EXPECT_EQ(decoded->created_by, "test");

  // Every truncation fails cleanly.
  for (std::size_t n = 0; n < out.size(); ++n) {
    EXPECT_FALSE(DecodeFileMetaData(ByteView(out).first(n), "f.parq").ok()) << n;
  }
}

TEST(ParquetMetadata, MissingRequiredFieldIsNamed) {
  Bytes out;
  ThriftWriter writer(out);
  writer.BeginStruct();
  writer.I32Field(1, 1);
  writer.EndStruct();
  const auto decoded = DecodeFileMetaData(out, "f.parq");
  ASSERT_FALSE(decoded.ok());
  EXPECT_NE(decoded.status().message().find("FileMetaData lacks required field 2"),
            std::string::npos)
      << decoded.status().ToString();
  EXPECT_NE(decoded.status().message().find("f.parq"), std::string::npos);
}

TEST(ParquetMetadata, PageHeadersRoundTrip) {
  PageHeader header;
  header.type = 3;
  header.uncompressed_page_size = 50;
  header.compressed_page_size = 40;
  header.data_page_header_v2 = DataPageHeaderV2{10, 2, 10, 8, 3, 0, false};
  Bytes out;
  AppendPageHeader(header, out);
  out.push_back(0xAB);  // page bytes follow the header
  std::size_t consumed = 0;
  auto decoded = DecodePageHeader(out, "page", &consumed);
  ASSERT_TRUE(decoded.ok()) << decoded.status().ToString();
  EXPECT_EQ(consumed, out.size() - 1);
  ASSERT_TRUE(decoded->data_page_header_v2);
  EXPECT_EQ(decoded->data_page_header_v2->num_nulls, 2);
  EXPECT_EQ(decoded->data_page_header_v2->definition_levels_byte_length, 3);
  EXPECT_FALSE(decoded->data_page_header_v2->is_compressed);
}

}  // namespace
}  // namespace chunkwise::formats::parquet
