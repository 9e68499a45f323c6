// Compact-protocol encoding of the footer and page headers.
#include "formats/parquet/file_metadata.h"
#include "formats/parquet/thrift_compact.h"

namespace chunkwise::formats::parquet {
namespace {

void WriteSchemaElement(const SchemaElement& element, ThriftWriter& writer) {
  writer.BeginStruct();
  if (element.type) writer.I32Field(1, *element.type);
  if (element.type_length) writer.I32Field(2, *element.type_length);
  if (element.repetition_type) writer.I32Field(3, *element.repetition_type);
  writer.BinaryField(4, element.name);
  if (element.num_children) writer.I32Field(5, *element.num_children);
  if (element.converted_type) writer.I32Field(6, *element.converted_type);
  if (element.logical_type) {
    writer.StructField(10);
    writer.StructField(*element.logical_type);  // StringType{} / NullType{}: empty structs.
    writer.EndStruct();
    writer.EndStruct();
  }
  writer.EndStruct();
}

void WriteColumnMetaData(const ColumnMetaData& column, ThriftWriter& writer) {
  writer.I32Field(1, column.type);
  writer.ListField(2, ThriftType::kI32, column.encodings.size());
  for (const std::int32_t encoding : column.encodings) writer.I32Element(encoding);
  writer.ListField(3, ThriftType::kBinary, column.path_in_schema.size());
  for (const std::string& part : column.path_in_schema) writer.BinaryElement(part);
  writer.I32Field(4, column.codec);
  writer.I64Field(5, column.num_values);
  writer.I64Field(6, column.total_uncompressed_size);
  writer.I64Field(7, column.total_compressed_size);
  writer.I64Field(9, column.data_page_offset);
  if (column.dictionary_page_offset) writer.I64Field(11, *column.dictionary_page_offset);
  if (column.null_count) {
    writer.StructField(12);
    writer.I64Field(3, *column.null_count);
    writer.EndStruct();
  }
}

void WriteRowGroup(const RowGroup& group, ThriftWriter& writer) {
  writer.BeginStruct();
  writer.ListField(1, ThriftType::kStruct, group.columns.size());
  for (const ColumnChunk& chunk : group.columns) {
    writer.BeginStruct();
    writer.I64Field(2, chunk.file_offset);
    if (chunk.meta_data) {
      writer.StructField(3);
      WriteColumnMetaData(*chunk.meta_data, writer);
      writer.EndStruct();
    }
    writer.EndStruct();
  }
  writer.I64Field(2, group.total_byte_size);
  writer.I64Field(3, group.num_rows);
  writer.EndStruct();
}

}  // namespace

void AppendFileMetaData(const FileMetaData& metadata, Bytes& out) {
  ThriftWriter writer(out);
  writer.BeginStruct();
  writer.I32Field(1, metadata.version);
  writer.ListField(2, ThriftType::kStruct, metadata.schema.size());
  for (const SchemaElement& element : metadata.schema) WriteSchemaElement(element, writer);
  writer.I64Field(3, metadata.num_rows);
  writer.ListField(4, ThriftType::kStruct, metadata.row_groups.size());
  for (const RowGroup& group : metadata.row_groups) WriteRowGroup(group, writer);
  if (!metadata.key_value_metadata.empty()) {
    writer.ListField(5, ThriftType::kStruct, metadata.key_value_metadata.size());
    for (const auto& [key, value] : metadata.key_value_metadata) {
      writer.BeginStruct();
      writer.BinaryField(1, key);
      writer.BinaryField(2, value);
      writer.EndStruct();
    }
  }
  if (metadata.created_by) writer.BinaryField(6, *metadata.created_by);
  writer.EndStruct();
}

void AppendPageHeader(const PageHeader& header, Bytes& out) {
  ThriftWriter writer(out);
  writer.BeginStruct();
  writer.I32Field(1, header.type);
  writer.I32Field(2, header.uncompressed_page_size);
  writer.I32Field(3, header.compressed_page_size);
  if (const auto& page = header.data_page_header) {
    writer.StructField(5);
    writer.I32Field(1, page->num_values);
    writer.I32Field(2, page->encoding);
    writer.I32Field(3, page->definition_level_encoding);
    writer.I32Field(4, page->repetition_level_encoding);
    writer.EndStruct();
  }
  if (const auto& page = header.dictionary_page_header) {
    writer.StructField(7);
    writer.I32Field(1, page->num_values);
    writer.I32Field(2, page->encoding);
    writer.EndStruct();
  }
  if (const auto& page = header.data_page_header_v2) {
    writer.StructField(8);
    writer.I32Field(1, page->num_values);
    writer.I32Field(2, page->num_nulls);
    writer.I32Field(3, page->num_rows);
    writer.I32Field(4, page->encoding);
    writer.I32Field(5, page->definition_levels_byte_length);
    writer.I32Field(6, page->repetition_levels_byte_length);
    writer.BoolField(7, page->is_compressed);
    writer.EndStruct();
  }
  writer.EndStruct();
}

}  // namespace chunkwise::formats::parquet
