// Compact-protocol decoding of the footer and page headers: required fields
// checked, unknown ones skipped.
#include <string>

#include "formats/parquet/file_metadata.h"
#include "formats/parquet/thrift_compact.h"

namespace chunkwise::formats::parquet {

namespace {

using Field = ThriftReader::Field;

// Tracks which required field ids a struct has seen.
class RequiredFields {
 public:
  explicit RequiredFields(std::uint32_t mask) : missing_(mask) {}
  void Saw(std::int16_t id) {
    if (id >= 0 && id < 32) missing_ &= ~(1u << id);
  }
  Status Check(const ThriftReader& reader, std::string_view struct_name) const {
    if (missing_ == 0) return Status::Ok();
    for (int id = 0; id < 32; ++id) {
      if (missing_ & (1u << id)) {
        return reader.Error(std::string(struct_name) + " lacks required field " +
                            std::to_string(id));
      }
    }
    return Status::Ok();
  }

 private:
  std::uint32_t missing_;
};

constexpr std::uint32_t Bits(std::initializer_list<int> ids) {
  std::uint32_t mask = 0;
  for (const int id : ids) mask |= 1u << id;
  return mask;
}

// Reads one struct field by field through `read_field`, then checks that
// every id in `required_ids` was present. A template over the struct type
// only; the field readers hold what differs.
template <typename T>
Result<T> ReadStruct(ThriftReader& reader, std::uint32_t required_ids, std::string_view name,
                     Status (*read_field)(ThriftReader&, const Field&, T&)) {
  CHUNKWISE_RETURN_IF_ERROR(reader.BeginStruct());
  T value;
  RequiredFields required(required_ids);
  while (true) {
    CHUNKWISE_ASSIGN_OR_RETURN(const Field field, reader.NextField());
    if (field.type == ThriftType::kStop) break;
    required.Saw(field.id);
    CHUNKWISE_RETURN_IF_ERROR(read_field(reader, field, value));
  }
  CHUNKWISE_RETURN_IF_ERROR(required.Check(reader, name));
  return value;
}

Result<std::int32_t> I32(ThriftReader& reader, const Field& field) {
  CHUNKWISE_RETURN_IF_ERROR(reader.ExpectType(field, ThriftType::kI32));
  return reader.ReadI32();
}
Result<std::int64_t> I64(ThriftReader& reader, const Field& field) {
  CHUNKWISE_RETURN_IF_ERROR(reader.ExpectType(field, ThriftType::kI64));
  return reader.ReadI64();
}
Result<std::string> Binary(ThriftReader& reader, const Field& field) {
  CHUNKWISE_RETURN_IF_ERROR(reader.ExpectType(field, ThriftType::kBinary));
  CHUNKWISE_ASSIGN_OR_RETURN(const std::string_view value, reader.ReadBinary());
  return std::string(value);
}

// Reads a list header and checks its element type.
Result<std::uint32_t> ListOf(ThriftReader& reader, const Field& field, ThriftType element) {
  CHUNKWISE_RETURN_IF_ERROR(reader.ExpectType(field, ThriftType::kList));
  CHUNKWISE_ASSIGN_OR_RETURN(const ThriftReader::ListHeader list, reader.ReadListHeader());
  if (list.element_type != element && list.count > 0) {
    return reader.Error("list of field " + std::to_string(field.id) + " has the wrong type");
  }
  return list.count;
}

// The id of the one member set in a LogicalType union (members are empty structs or skipped).
Result<std::int16_t> ReadLogicalType(ThriftReader& reader, const Field& field) {
  CHUNKWISE_RETURN_IF_ERROR(reader.ExpectType(field, ThriftType::kStruct));
  CHUNKWISE_RETURN_IF_ERROR(reader.BeginStruct());
  std::int16_t member = -1;
  while (true) {
    CHUNKWISE_ASSIGN_OR_RETURN(const Field inner, reader.NextField());
    if (inner.type == ThriftType::kStop) break;
    member = inner.id;
    CHUNKWISE_RETURN_IF_ERROR(reader.Skip(inner.type));
  }
  return member;
}

Status ReadSchemaField(ThriftReader& reader, const Field& field, SchemaElement& element) {
  switch (field.id) {
    case 1: {
      CHUNKWISE_ASSIGN_OR_RETURN(element.type, I32(reader, field));
      break;
    }
    case 2: {
      CHUNKWISE_ASSIGN_OR_RETURN(element.type_length, I32(reader, field));
      break;
    }
    case 3: {
      CHUNKWISE_ASSIGN_OR_RETURN(element.repetition_type, I32(reader, field));
      break;
    }
    case 4: {
      CHUNKWISE_ASSIGN_OR_RETURN(element.name, Binary(reader, field));
      break;
    }
    case 5: {
      CHUNKWISE_ASSIGN_OR_RETURN(element.num_children, I32(reader, field));
      break;
    }
    case 6: {
      CHUNKWISE_ASSIGN_OR_RETURN(element.converted_type, I32(reader, field));
      break;
    }
    case 10: {
      CHUNKWISE_ASSIGN_OR_RETURN(element.logical_type, ReadLogicalType(reader, field));
      break;
    }
    default:
      return reader.Skip(field.type);
  }
  return Status::Ok();
}

Result<SchemaElement> ReadSchemaElement(ThriftReader& reader) {
  return ReadStruct<SchemaElement>(reader, Bits({4}), "SchemaElement", ReadSchemaField);
}

Status ReadStatisticsField(ThriftReader& reader, const Field& field,
                           std::optional<std::int64_t>& null_count) {
  if (field.id != 3) return reader.Skip(field.type);
  CHUNKWISE_ASSIGN_OR_RETURN(null_count, I64(reader, field));
  return Status::Ok();
}

Status ReadColumnMetaDataField(ThriftReader& reader, const Field& field, ColumnMetaData& column) {
  switch (field.id) {
    case 1: {
      CHUNKWISE_ASSIGN_OR_RETURN(column.type, I32(reader, field));
      break;
    }
    case 2: {
      CHUNKWISE_ASSIGN_OR_RETURN(const std::uint32_t count,
                                 ListOf(reader, field, ThriftType::kI32));
      for (std::uint32_t i = 0; i < count; ++i) {
        CHUNKWISE_ASSIGN_OR_RETURN(const std::int32_t encoding, reader.ReadI32());
        column.encodings.push_back(encoding);
      }
      break;
    }
    case 3: {
      CHUNKWISE_ASSIGN_OR_RETURN(const std::uint32_t count,
                                 ListOf(reader, field, ThriftType::kBinary));
      for (std::uint32_t i = 0; i < count; ++i) {
        CHUNKWISE_ASSIGN_OR_RETURN(const std::string_view part, reader.ReadBinary());
        column.path_in_schema.emplace_back(part);
      }
      break;
    }
    case 4: {
      CHUNKWISE_ASSIGN_OR_RETURN(column.codec, I32(reader, field));
      break;
    }
    case 5: {
      CHUNKWISE_ASSIGN_OR_RETURN(column.num_values, I64(reader, field));
      break;
    }
    case 6: {
      CHUNKWISE_ASSIGN_OR_RETURN(column.total_uncompressed_size, I64(reader, field));
      break;
    }
    case 7: {
      CHUNKWISE_ASSIGN_OR_RETURN(column.total_compressed_size, I64(reader, field));
      break;
    }
    case 9: {
      CHUNKWISE_ASSIGN_OR_RETURN(column.data_page_offset, I64(reader, field));
      break;
    }
    case 11: {
      CHUNKWISE_ASSIGN_OR_RETURN(column.dictionary_page_offset, I64(reader, field));
      break;
    }
    case 12: {
      CHUNKWISE_RETURN_IF_ERROR(reader.ExpectType(field, ThriftType::kStruct));
      CHUNKWISE_ASSIGN_OR_RETURN(
          column.null_count,
          ReadStruct<std::optional<std::int64_t>>(reader, 0, "Statistics", ReadStatisticsField));
      break;
    }
    default:
      return reader.Skip(field.type);
  }
  return Status::Ok();
}

Result<ColumnMetaData> ReadColumnMetaData(ThriftReader& reader) {
  return ReadStruct<ColumnMetaData>(reader, Bits({1, 2, 3, 4, 5, 6, 7, 9}), "ColumnMetaData",
                                    ReadColumnMetaDataField);
}

Status ReadColumnChunkField(ThriftReader& reader, const Field& field, ColumnChunk& chunk) {
  if (field.id == 2) {
    CHUNKWISE_ASSIGN_OR_RETURN(chunk.file_offset, I64(reader, field));
    return Status::Ok();
  }
  if (field.id == 3) {
    CHUNKWISE_RETURN_IF_ERROR(reader.ExpectType(field, ThriftType::kStruct));
    CHUNKWISE_ASSIGN_OR_RETURN(chunk.meta_data, ReadColumnMetaData(reader));
    return Status::Ok();
  }
  return reader.Skip(field.type);
}

Result<ColumnChunk> ReadColumnChunk(ThriftReader& reader) {
  return ReadStruct<ColumnChunk>(reader, 0, "ColumnChunk", ReadColumnChunkField);
}

Status ReadRowGroupField(ThriftReader& reader, const Field& field, RowGroup& group) {
  if (field.id == 1) {
    CHUNKWISE_ASSIGN_OR_RETURN(const std::uint32_t count,
                               ListOf(reader, field, ThriftType::kStruct));
    for (std::uint32_t i = 0; i < count; ++i) {
      CHUNKWISE_ASSIGN_OR_RETURN(ColumnChunk chunk, ReadColumnChunk(reader));
      group.columns.push_back(std::move(chunk));
    }
    return Status::Ok();
  }
  if (field.id == 2) {
    CHUNKWISE_ASSIGN_OR_RETURN(group.total_byte_size, I64(reader, field));
    return Status::Ok();
  }
  if (field.id == 3) {
    CHUNKWISE_ASSIGN_OR_RETURN(group.num_rows, I64(reader, field));
    return Status::Ok();
  }
  return reader.Skip(field.type);
}

Result<RowGroup> ReadRowGroup(ThriftReader& reader) {
  return ReadStruct<RowGroup>(reader, Bits({1, 2, 3}), "RowGroup", ReadRowGroupField);
}

Status ReadKeyValues(ThriftReader& reader, const Field& field, FileMetaData& metadata) {
  CHUNKWISE_ASSIGN_OR_RETURN(const std::uint32_t count, ListOf(reader, field, ThriftType::kStruct));
  for (std::uint32_t i = 0; i < count; ++i) {
    CHUNKWISE_RETURN_IF_ERROR(reader.BeginStruct());
    std::pair<std::string, std::string> entry;
    while (true) {
      CHUNKWISE_ASSIGN_OR_RETURN(const Field inner, reader.NextField());
      if (inner.type == ThriftType::kStop) break;
      if (inner.id == 1) {
        CHUNKWISE_ASSIGN_OR_RETURN(entry.first, Binary(reader, inner));
      } else if (inner.id == 2) {
        CHUNKWISE_ASSIGN_OR_RETURN(entry.second, Binary(reader, inner));
      } else {
        CHUNKWISE_RETURN_IF_ERROR(reader.Skip(inner.type));
      }
    }
    metadata.key_value_metadata.push_back(std::move(entry));
  }
  return Status::Ok();
}

Status ReadFileMetaDataField(ThriftReader& reader, const Field& field, FileMetaData& metadata) {
  switch (field.id) {
    case 1: {
      CHUNKWISE_ASSIGN_OR_RETURN(metadata.version, I32(reader, field));
      break;
    }
    case 2: {
      CHUNKWISE_ASSIGN_OR_RETURN(const std::uint32_t count,
                                 ListOf(reader, field, ThriftType::kStruct));
      for (std::uint32_t i = 0; i < count; ++i) {
        CHUNKWISE_ASSIGN_OR_RETURN(SchemaElement element, ReadSchemaElement(reader));
        metadata.schema.push_back(std::move(element));
      }
      break;
    }
    case 3: {
      CHUNKWISE_ASSIGN_OR_RETURN(metadata.num_rows, I64(reader, field));
      break;
    }
    case 4: {
      CHUNKWISE_ASSIGN_OR_RETURN(const std::uint32_t count,
                                 ListOf(reader, field, ThriftType::kStruct));
      for (std::uint32_t i = 0; i < count; ++i) {
        CHUNKWISE_ASSIGN_OR_RETURN(RowGroup group, ReadRowGroup(reader));
        metadata.row_groups.push_back(std::move(group));
      }
      break;
    }
    case 5:
      return ReadKeyValues(reader, field, metadata);
    case 6: {
      CHUNKWISE_ASSIGN_OR_RETURN(metadata.created_by, Binary(reader, field));
      break;
    }
    default:
      return reader.Skip(field.type);
  }
  return Status::Ok();
}

Status ReadDataPageHeaderField(ThriftReader& reader, const Field& field, DataPageHeader& page) {
  std::int32_t* targets[] = {nullptr, &page.num_values, &page.encoding,
                             &page.definition_level_encoding, &page.repetition_level_encoding};
  if (field.id >= 1 && field.id <= 4) {
    CHUNKWISE_ASSIGN_OR_RETURN(*targets[field.id], I32(reader, field));
    return Status::Ok();
  }
  return reader.Skip(field.type);
}

Result<DataPageHeader> ReadDataPageHeader(ThriftReader& reader) {
  return ReadStruct<DataPageHeader>(reader, Bits({1, 2}), "DataPageHeader",
                                    ReadDataPageHeaderField);
}

Status ReadDictionaryPageHeaderField(ThriftReader& reader, const Field& field,
                                     DictionaryPageHeader& page) {
  if (field.id == 1 || field.id == 2) {
    std::int32_t& target = field.id == 1 ? page.num_values : page.encoding;
    CHUNKWISE_ASSIGN_OR_RETURN(target, I32(reader, field));
    return Status::Ok();
  }
  return reader.Skip(field.type);
}

Result<DictionaryPageHeader> ReadDictionaryPageHeader(ThriftReader& reader) {
  return ReadStruct<DictionaryPageHeader>(reader, Bits({1, 2}), "DictionaryPageHeader",
                                          ReadDictionaryPageHeaderField);
}

Status ReadDataPageHeaderV2Field(ThriftReader& reader, const Field& field, DataPageHeaderV2& page) {
  std::int32_t* targets[] = {nullptr,
                             &page.num_values,
                             &page.num_nulls,
                             &page.num_rows,
                             &page.encoding,
                             &page.definition_levels_byte_length,
                             &page.repetition_levels_byte_length};
  if (field.id >= 1 && field.id <= 6) {
    CHUNKWISE_ASSIGN_OR_RETURN(*targets[field.id], I32(reader, field));
    return Status::Ok();
  }
  if (field.id == 7) {
    CHUNKWISE_RETURN_IF_ERROR(reader.ExpectType(field, ThriftType::kBoolTrue));
    page.is_compressed = field.bool_value;
    return Status::Ok();
  }
  return reader.Skip(field.type);
}

Result<DataPageHeaderV2> ReadDataPageHeaderV2(ThriftReader& reader) {
  return ReadStruct<DataPageHeaderV2>(reader, Bits({1, 2, 3, 4, 5, 6}), "DataPageHeaderV2",
                                      ReadDataPageHeaderV2Field);
}

Status ReadPageHeaderField(ThriftReader& reader, const Field& field, PageHeader& header) {
  switch (field.id) {
    case 1: {
      CHUNKWISE_ASSIGN_OR_RETURN(header.type, I32(reader, field));
      break;
    }
    case 2: {
      CHUNKWISE_ASSIGN_OR_RETURN(header.uncompressed_page_size, I32(reader, field));
      break;
    }
    case 3: {
      CHUNKWISE_ASSIGN_OR_RETURN(header.compressed_page_size, I32(reader, field));
      break;
    }
    case 5: {
      CHUNKWISE_RETURN_IF_ERROR(reader.ExpectType(field, ThriftType::kStruct));
      CHUNKWISE_ASSIGN_OR_RETURN(header.data_page_header, ReadDataPageHeader(reader));
      break;
    }
    case 7: {
      CHUNKWISE_RETURN_IF_ERROR(reader.ExpectType(field, ThriftType::kStruct));
      CHUNKWISE_ASSIGN_OR_RETURN(header.dictionary_page_header, ReadDictionaryPageHeader(reader));
      break;
    }
    case 8: {
      CHUNKWISE_RETURN_IF_ERROR(reader.ExpectType(field, ThriftType::kStruct));
      CHUNKWISE_ASSIGN_OR_RETURN(header.data_page_header_v2, ReadDataPageHeaderV2(reader));
      break;
    }
    default:
      return reader.Skip(field.type);
  }
  return Status::Ok();
}

}  // namespace

Result<FileMetaData> DecodeFileMetaData(ByteView data, const std::string& what) {
  ThriftReader reader(data, "parquet footer of " + what);
  return ReadStruct<FileMetaData>(reader, Bits({1, 2, 3, 4}), "FileMetaData",
                                  ReadFileMetaDataField);
}

Result<PageHeader> DecodePageHeader(ByteView data, const std::string& what, std::size_t* consumed) {
  ThriftReader reader(data, what);
  CHUNKWISE_ASSIGN_OR_RETURN(
      PageHeader header,
      ReadStruct<PageHeader>(reader, Bits({1, 2, 3}), "PageHeader", ReadPageHeaderField));
  *consumed = reader.position();
  return header;
}

}  // namespace chunkwise::formats::parquet
