// ReadTable: footer, schema checks, then each wanted column chunk page by page.
#include <algorithm>
#include <string>

#include "formats/parquet/encodings.h"
#include "formats/parquet/table.h"
#include "page_compression.h"

namespace chunkwise::formats::parquet {
namespace {

constexpr std::string_view kMagic = "PAR1";

// The dictionary of a column chunk, PLAIN-decoded.
struct DictionaryValues {
  bool loaded = false;
  std::vector<std::int64_t> integers;
  ByteArrays byte_arrays;
  std::size_t size() const { return integers.size() + byte_arrays.size(); }
};

class ChunkReader {
 public:
  ChunkReader(Column& column, std::int32_t codec, std::string what)
      : column_(column), codec_(codec), what_(std::move(what)) {}

  // Decodes pages from `chunk` until `rows` rows were appended to the column.
  Status Read(ByteView chunk, std::int64_t rows);

 private:
  Status ReadDictionaryPage(const PageHeader& header, ByteView page, const std::string& where);
  Status ReadDataPage(const PageHeader& header, ByteView page, std::int64_t rows_left,
                      const std::string& where);
  Status AppendRows(std::span<const std::uint32_t> present, std::int32_t encoding, ByteView values,
                    const std::string& where);
  Status AppendDictionaryRows(std::span<const std::uint32_t> present, ByteView values,
                              const std::string& where);

  Column& column_;
  std::int32_t codec_;
  std::string what_;
  DictionaryValues dictionary_;
  bool saw_data_page_ = false;
};

Status ChunkReader::Read(ByteView chunk, std::int64_t rows) {
  std::size_t position = 0;
  std::int64_t done = 0;
  for (int page = 0; done < rows; ++page) {
    const std::string where = what_ + ", page " + std::to_string(page);
    if (position >= chunk.size()) {
      return Status::Corruption(where + ": the column chunk ends after " + std::to_string(done) +
                                " of " + std::to_string(rows) + " values");
    }
    std::size_t consumed = 0;
    CHUNKWISE_ASSIGN_OR_RETURN(const PageHeader header,
                               DecodePageHeader(chunk.subspan(position), where, &consumed));
    position += consumed;
    if (header.compressed_page_size < 0 || header.uncompressed_page_size < 0 ||
        static_cast<std::size_t>(header.compressed_page_size) > chunk.size() - position) {
      return Status::Corruption(where + ": page size " +
                                std::to_string(header.compressed_page_size) +
                                " runs past the column chunk");
    }
    const ByteView body = chunk.subspan(position, header.compressed_page_size);
    position += header.compressed_page_size;
    const std::size_t before = column_.rows();
    if (header.type == static_cast<std::int32_t>(PageType::kDictionaryPage)) {
      CHUNKWISE_RETURN_IF_ERROR(ReadDictionaryPage(header, body, where));
    } else if (header.type == static_cast<std::int32_t>(PageType::kDataPage) ||
               header.type == static_cast<std::int32_t>(PageType::kDataPageV2)) {
      CHUNKWISE_RETURN_IF_ERROR(ReadDataPage(header, body, rows - done, where));
    }  // Other page types (index pages) carry no values.
    done += static_cast<std::int64_t>(column_.rows() - before);
  }
  return Status::Ok();
}

Status ChunkReader::ReadDictionaryPage(const PageHeader& header, ByteView page,
                                       const std::string& where) {
  if (!header.dictionary_page_header)
    return Status::Corruption(where + ": dictionary page without its header");
  if (dictionary_.loaded || saw_data_page_) {
    return Status::Corruption(where +
                              ": a dictionary page must be the first page and the only one");
  }
  const DictionaryPageHeader& dict = *header.dictionary_page_header;
  if (dict.encoding != static_cast<std::int32_t>(Encoding::kPlain) &&
      dict.encoding != static_cast<std::int32_t>(Encoding::kPlainDictionary)) {
    return Status::Unsupported(where + ": dictionary encoding " + std::to_string(dict.encoding));
  }
  if (dict.num_values < 0) return Status::Corruption(where + ": negative dictionary size");
  CHUNKWISE_ASSIGN_OR_RETURN(const Bytes plain,
                             DecompressPage(page, codec_, header.uncompressed_page_size, where));
  if (column_.type == PhysicalType::kByteArray) {
    CHUNKWISE_RETURN_IF_ERROR(
        DecodePlainByteArrays(plain, dict.num_values, dictionary_.byte_arrays, where).status());
  } else {
    CHUNKWISE_RETURN_IF_ERROR(
        DecodePlainIntegers(plain, column_.type, dict.num_values, dictionary_.integers, where)
            .status());
  }
  dictionary_.loaded = true;
  return Status::Ok();
}

// The page's definition levels, values bytes and encoding, v1 or v2 layout.
struct DataPageParts {
  std::int32_t num_values = 0;
  std::int32_t encoding = 0;
  ByteView levels;  // Hybrid, bit width 1; empty for REQUIRED columns.
  ByteView values;
};

Status SplitV1(const Bytes& body, bool optional, DataPageParts& parts, const std::string& where) {
  if (!optional) {
    parts.values = body;
    return Status::Ok();
  }
  if (body.size() < 4) return Status::Corruption(where + ": no definition-level length");
  const std::uint32_t length = LoadLittleEndian<std::uint32_t>(body.data());
  if (length > body.size() - 4)
    return Status::Corruption(where + ": definition levels run past the page");
  parts.levels = ByteView(body).subspan(4, length);
  parts.values = ByteView(body).subspan(4 + length);
  return Status::Ok();
}

Status ChunkReader::ReadDataPage(const PageHeader& header, ByteView page, std::int64_t rows_left,
                                 const std::string& where) {
  saw_data_page_ = true;
  DataPageParts parts;
  Bytes body;  // Owns the decompressed bytes the parts point into.
  if (const auto& v1 = header.data_page_header) {
    parts.num_values = v1->num_values;
    parts.encoding = v1->encoding;
    if (column_.optional &&
        v1->definition_level_encoding != static_cast<std::int32_t>(Encoding::kRle)) {
      return Status::Unsupported(where + ": definition levels encoded as " +
                                 std::to_string(v1->definition_level_encoding));
    }
    CHUNKWISE_ASSIGN_OR_RETURN(body,
                               DecompressPage(page, codec_, header.uncompressed_page_size, where));
    CHUNKWISE_RETURN_IF_ERROR(SplitV1(body, column_.optional, parts, where));
  } else if (const auto& v2 = header.data_page_header_v2) {
    parts.num_values = v2->num_values;
    parts.encoding = v2->encoding;
    const std::int64_t levels =
        std::int64_t{v2->definition_levels_byte_length} + v2->repetition_levels_byte_length;
    if (v2->definition_levels_byte_length < 0 || v2->repetition_levels_byte_length < 0 ||
        levels > header.compressed_page_size || levels > header.uncompressed_page_size) {
      return Status::Corruption(where + ": level lengths exceed the page");
    }
    parts.levels =
        page.subspan(v2->repetition_levels_byte_length, v2->definition_levels_byte_length);
    const std::size_t values_size = header.uncompressed_page_size - levels;
    if (v2->is_compressed) {
      CHUNKWISE_ASSIGN_OR_RETURN(body,
                                 DecompressPage(page.subspan(levels), codec_, values_size, where));
    } else {
      CHUNKWISE_ASSIGN_OR_RETURN(body, DecompressPage(page.subspan(levels), 0, values_size, where));
    }
    parts.values = body;
  } else {
    return Status::Corruption(where + ": data page without its header");
  }
  if (parts.num_values < 0 || parts.num_values > rows_left) {
    return Status::Corruption(where + ": page holds " + std::to_string(parts.num_values) +
                              " values, the column chunk has " + std::to_string(rows_left) +
                              " left");
  }
  std::vector<std::uint32_t> present(parts.num_values, 1);
  if (column_.optional) {
    CHUNKWISE_RETURN_IF_ERROR(DecodeHybrid(parts.levels, 1, present, where + " definition levels"));
  }
  return AppendRows(present, parts.encoding, parts.values, where);
}

Status ChunkReader::AppendRows(std::span<const std::uint32_t> present, std::int32_t encoding,
                               ByteView values, const std::string& where) {
  if (encoding == static_cast<std::int32_t>(Encoding::kRleDictionary) ||
      encoding == static_cast<std::int32_t>(Encoding::kPlainDictionary)) {
    return AppendDictionaryRows(present, values, where);
  }
  if (encoding != static_cast<std::int32_t>(Encoding::kPlain)) {
    return Status::Unsupported(where + ": value encoding " + std::to_string(encoding) +
                               " (only PLAIN and dictionary are read)");
  }
  const std::size_t count = std::count(present.begin(), present.end(), 1u);
  ByteArrays bytes;
  std::vector<std::int64_t> integers;
  if (column_.type == PhysicalType::kByteArray) {
    CHUNKWISE_RETURN_IF_ERROR(DecodePlainByteArrays(values, count, bytes, where).status());
  } else {
    CHUNKWISE_RETURN_IF_ERROR(
        DecodePlainIntegers(values, column_.type, count, integers, where).status());
  }
  std::size_t next = 0;
  for (const std::uint32_t flag : present) {
    column_.present.push_back(static_cast<std::uint8_t>(flag));
    if (column_.type == PhysicalType::kByteArray) {
      flag ? column_.byte_arrays.Append(bytes[next]) : column_.byte_arrays.AppendEmpty();
    } else {
      column_.integers.push_back(flag ? integers[next] : 0);
    }
    next += flag;
  }
  return Status::Ok();
}

Status ChunkReader::AppendDictionaryRows(std::span<const std::uint32_t> present, ByteView values,
                                         const std::string& where) {
  if (!dictionary_.loaded)
    return Status::Corruption(where + ": dictionary-encoded page without a dictionary");
  const std::size_t count = std::count(present.begin(), present.end(), 1u);
  std::vector<std::uint32_t> indices(count);
  if (count > 0) {
    if (values.empty()) return Status::Corruption(where + ": no bit width byte");
    CHUNKWISE_RETURN_IF_ERROR(
        DecodeHybrid(values.subspan(1), values[0], indices, where + " indices"));
  }
  std::size_t next = 0;
  for (const std::uint32_t flag : present) {
    column_.present.push_back(static_cast<std::uint8_t>(flag));
    const bool bytes = column_.type == PhysicalType::kByteArray;
    if (!flag) {
      bytes ? column_.byte_arrays.AppendEmpty() : column_.integers.push_back(0);
      continue;
    }
    const std::uint32_t index = indices[next++];
    if (index >= dictionary_.size()) {
      return Status::Corruption(where + ": dictionary index " + std::to_string(index) +
                                " past the " + std::to_string(dictionary_.size()) + " entries");
    }
    bytes ? column_.byte_arrays.Append(dictionary_.byte_arrays[index])
          : column_.integers.push_back(dictionary_.integers[index]);
  }
  return Status::Ok();
}

Result<Column> ColumnFromSchema(const SchemaElement& element, const std::string& what) {
  Column column;
  column.name = element.name;
  if (element.num_children.value_or(0) > 0 || !element.type) {
    return Status::Unsupported(what + ": nested column '" + element.name + "'");
  }
  const std::int32_t repetition = element.repetition_type.value_or(0);
  if (repetition == static_cast<std::int32_t>(Repetition::kRepeated) || repetition < 0 ||
      repetition > 2) {
    return Status::Unsupported(what + ": repeated column '" + element.name + "'");
  }
  const auto type = static_cast<PhysicalType>(*element.type);
  if (type != PhysicalType::kInt32 && type != PhysicalType::kInt64 &&
      type != PhysicalType::kByteArray) {
    return Status::Unsupported(what + ": column '" + element.name + "' has physical type " +
                               std::to_string(*element.type));
  }
  column.type = type;
  column.optional = repetition == static_cast<std::int32_t>(Repetition::kOptional);
  column.utf8 =
      element.converted_type == kConvertedTypeUtf8 || element.logical_type == kLogicalTypeString;
  column.null_type = element.logical_type == kLogicalTypeUnknown;
  return column;
}

// The byte range of a column chunk, checked against the data region of the file.
Result<ByteView> ChunkBytes(ByteView file, std::size_t data_end, const ColumnMetaData& meta,
                            const std::string& what) {
  std::int64_t start = meta.data_page_offset;
  if (meta.dictionary_page_offset && *meta.dictionary_page_offset > 0 &&
      *meta.dictionary_page_offset < start) {
    start = *meta.dictionary_page_offset;
  }
  if (start < 4 || meta.total_compressed_size < 0 || static_cast<std::uint64_t>(start) > data_end ||
      static_cast<std::uint64_t>(meta.total_compressed_size) > data_end - start) {
    return Status::Corruption(what + ": column chunk [" + std::to_string(start) + ", +" +
                              std::to_string(meta.total_compressed_size) +
                              ") lies outside the data");
  }
  return file.subspan(start, meta.total_compressed_size);
}

}  // namespace

const Column* Table::Find(std::string_view name) const {
  for (const Column& column : columns) {
    if (column.name == name) return &column;
  }
  return nullptr;
}

Result<FileMetaData> ReadFileMetaData(ByteView file, const std::string& name_for_errors) {
  if (file.size() < 12 || AsChars(file.first(4)) != kMagic || AsChars(file.last(4)) != kMagic) {
    return Status::Corruption(name_for_errors + ": not a Parquet file (no PAR1 at both ends)");
  }
  const std::uint32_t length = LoadLittleEndian<std::uint32_t>(file.data() + file.size() - 8);
  if (length > file.size() - 12) {
    return Status::Corruption(name_for_errors + ": footer length " + std::to_string(length) +
                              " exceeds the file");
  }
  return DecodeFileMetaData(file.subspan(file.size() - 8 - length, length), name_for_errors);
}

namespace {

Status CheckRowCounts(const FileMetaData& metadata, std::int64_t max_rows,
                      const std::string& what) {
  std::int64_t total = 0;
  for (const RowGroup& group : metadata.row_groups) {
    if (group.num_rows < 0 || group.num_rows > max_rows - total) {
      return Status::Corruption(what + ": row groups hold more than " + std::to_string(max_rows) +
                                " rows");
    }
    total += group.num_rows;
  }
  if (total != metadata.num_rows) {
    return Status::Corruption(what + ": row groups hold " + std::to_string(total) +
                              " rows, the footer says " + std::to_string(metadata.num_rows));
  }
  return Status::Ok();
}

Status ReadColumn(ByteView file, const FileMetaData& metadata, std::size_t index, Column& column,
                  const std::string& what) {
  const std::size_t data_end =
      file.size() - 8 - LoadLittleEndian<std::uint32_t>(file.data() + file.size() - 8);
  for (std::size_t g = 0; g < metadata.row_groups.size(); ++g) {
    const RowGroup& group = metadata.row_groups[g];
    const std::string where =
        what + ", column '" + column.name + "', row group " + std::to_string(g);
    if (group.columns.size() + 1 != metadata.schema.size() || !group.columns[index].meta_data) {
      return Status::Corruption(where + ": column chunk missing");
    }
    const ColumnMetaData& meta = *group.columns[index].meta_data;
    if (meta.type != static_cast<std::int32_t>(column.type) || meta.num_values != group.num_rows) {
      return Status::Corruption(where + ": chunk type or value count disagrees with the schema");
    }
    CHUNKWISE_ASSIGN_OR_RETURN(const ByteView chunk, ChunkBytes(file, data_end, meta, where));
    CHUNKWISE_RETURN_IF_ERROR(ChunkReader(column, meta.codec, where).Read(chunk, group.num_rows));
  }
  return Status::Ok();
}

}  // namespace

Result<Table> ReadTable(ByteView file, const std::string& name_for_errors,
                        std::span<const std::string> wanted, std::int64_t max_rows) {
  CHUNKWISE_ASSIGN_OR_RETURN(const FileMetaData metadata, ReadFileMetaData(file, name_for_errors));
  const auto& schema = metadata.schema;
  if (schema.empty() ||
      schema[0].num_children.value_or(-1) != static_cast<std::int32_t>(schema.size() - 1)) {
    return Status::Unsupported(
        name_for_errors + ": not a flat schema (root children " +
        std::to_string(schema.empty() ? -1 : schema[0].num_children.value_or(-1)) + ", " +
        std::to_string(schema.size()) + " elements)");
  }
  CHUNKWISE_RETURN_IF_ERROR(CheckRowCounts(metadata, max_rows, name_for_errors));
  Table table;
  table.num_rows = metadata.num_rows;
  auto read_one = [&](std::size_t index) -> Status {
    CHUNKWISE_ASSIGN_OR_RETURN(Column column, ColumnFromSchema(schema[index + 1], name_for_errors));
    column.present.reserve(metadata.num_rows);
    CHUNKWISE_RETURN_IF_ERROR(ReadColumn(file, metadata, index, column, name_for_errors));
    table.columns.push_back(std::move(column));
    return Status::Ok();
  };
  if (wanted.empty()) {
    for (std::size_t i = 0; i + 1 < schema.size(); ++i) CHUNKWISE_RETURN_IF_ERROR(read_one(i));
    return table;
  }
  for (const std::string& name : wanted) {
    for (std::size_t i = 0; i + 1 < schema.size(); ++i) {
      if (schema[i + 1].name == name) {
        CHUNKWISE_RETURN_IF_ERROR(read_one(i));
        break;
      }
    }
  }
  return table;
}

}  // namespace chunkwise::formats::parquet
