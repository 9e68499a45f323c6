// WriteTable: column chunks of PLAIN or dictionary pages, then the footer.
#include <algorithm>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

#include "formats/parquet/encodings.h"
#include "formats/parquet/table.h"
#include "page_compression.h"

namespace chunkwise::formats::parquet {
namespace {

constexpr std::string_view kMagic = "PAR1";

// The bytes a value is compared by when building a dictionary: the BYTE_ARRAY
// itself, or the 8 bytes of the integer as held in the column.
std::string_view DictionaryKey(const Column& column, std::size_t row) {
  if (column.type == PhysicalType::kByteArray) return AsChars(column.byte_arrays[row]);
  return {reinterpret_cast<const char*>(&column.integers[row]), sizeof(std::int64_t)};
}

std::size_t PlainSize(const Column& column, std::size_t row) {
  if (column.type == PhysicalType::kByteArray) return 4 + column.byte_arrays[row].size();
  return column.type == PhysicalType::kInt32 ? 4 : 8;
}

// The dictionary of one column chunk and where the chunk falls back to PLAIN.
struct Dictionary {
  std::vector<std::size_t> entry_rows;  // The row holding each entry, in index order.
  std::unordered_map<std::string_view, std::uint32_t> index;
  std::size_t plain_from_row = 0;  // Rows from here on are written as PLAIN pages.
};

Dictionary BuildDictionary(const Column& column, std::size_t begin, std::size_t end,
                           const WriteOptions& options) {
  Dictionary dictionary;
  dictionary.plain_from_row = end;
  std::size_t bytes = 0;
  for (std::size_t page = begin; page < end; page += options.rows_per_page) {
    const std::size_t page_end = std::min(end, page + options.rows_per_page);
    const std::size_t entries_before = dictionary.entry_rows.size();
    const std::size_t bytes_before = bytes;
    for (std::size_t row = page; row < page_end; ++row) {
      if (!column.is_present(row)) continue;
      const auto [it, added] = dictionary.index.try_emplace(
          DictionaryKey(column, row), static_cast<std::uint32_t>(dictionary.entry_rows.size()));
      if (!added) continue;
      dictionary.entry_rows.push_back(row);
      bytes += PlainSize(column, row);
    }
    if (bytes > options.max_dictionary_bytes) {
      // This page overflowed: drop its new entries; it and the rest go PLAIN.
      for (std::size_t e = entries_before; e < dictionary.entry_rows.size(); ++e) {
        dictionary.index.erase(DictionaryKey(column, dictionary.entry_rows[e]));
      }
      dictionary.entry_rows.resize(entries_before);
      bytes = bytes_before;
      dictionary.plain_from_row = page;
      break;
    }
  }
  return dictionary;
}

void AppendPlainValue(const Column& column, std::size_t row, Bytes& out) {
  if (column.type == PhysicalType::kByteArray) {
    AppendPlainByteArray(column.byte_arrays[row], out);
  } else {
    AppendPlainIntegers(std::span(&column.integers[row], 1), column.type, out);
  }
}

class ChunkWriter {
 public:
  ChunkWriter(const Column& column, const WriteOptions& options, Bytes& out)
      : column_(column), options_(options), out_(out) {}

  Result<ColumnMetaData> Write(std::size_t begin, std::size_t end);

 private:
  Status WriteDictionaryPage(const Dictionary& dictionary);
  Status WriteDataPage(std::size_t begin, std::size_t end, const Dictionary* dictionary);
  Bytes Levels(std::size_t begin, std::size_t end) const;
  Bytes Values(std::size_t begin, std::size_t end, const Dictionary* dictionary) const;
  Status AppendPage(PageHeader header, ByteView levels, ByteView values);

  const Column& column_;
  const WriteOptions& options_;
  Bytes& out_;
  std::int64_t uncompressed_total_ = 0;
  std::unordered_set<std::int32_t> encodings_;
};

Bytes ChunkWriter::Levels(std::size_t begin, std::size_t end) const {
  Bytes levels;
  if (!column_.optional) return levels;
  std::vector<std::uint32_t> flags(column_.present.begin() + begin, column_.present.begin() + end);
  AppendHybrid(flags, 1, levels);
  return levels;
}

Bytes ChunkWriter::Values(std::size_t begin, std::size_t end, const Dictionary* dictionary) const {
  Bytes values;
  if (dictionary == nullptr) {
    for (std::size_t row = begin; row < end; ++row) {
      if (column_.is_present(row)) AppendPlainValue(column_, row, values);
    }
    return values;
  }
  std::vector<std::uint32_t> indices;
  for (std::size_t row = begin; row < end; ++row) {
    if (column_.is_present(row))
      indices.push_back(dictionary->index.at(DictionaryKey(column_, row)));
  }
  const int bit_width = BitWidthFor(
      static_cast<std::uint32_t>(std::max<std::size_t>(dictionary->entry_rows.size(), 1) - 1));
  values.push_back(static_cast<std::uint8_t>(bit_width));
  AppendHybrid(indices, bit_width, values);
  return values;
}

Status ChunkWriter::AppendPage(PageHeader header, ByteView levels, ByteView values) {
  Bytes body;
  Bytes compressed;
  if (header.data_page_header_v2) {
    CHUNKWISE_ASSIGN_OR_RETURN(Bytes packed,
                               CompressPage(values, options_.compression, options_.zstd_level));
    header.uncompressed_page_size = static_cast<std::int32_t>(levels.size() + values.size());
    header.compressed_page_size = static_cast<std::int32_t>(levels.size() + packed.size());
    compressed = CopyToBytes(levels);
    AppendBytes(compressed, packed);
  } else {
    body = CopyToBytes(levels);
    AppendBytes(body, values);
    if (header.data_page_header) body.resize(body.size() + options_.page_padding_bytes, 0);
    CHUNKWISE_ASSIGN_OR_RETURN(compressed,
                               CompressPage(body, options_.compression, options_.zstd_level));
    header.uncompressed_page_size = static_cast<std::int32_t>(body.size());
    header.compressed_page_size = static_cast<std::int32_t>(compressed.size());
  }
  const std::size_t header_start = out_.size();
  AppendPageHeader(header, out_);
  uncompressed_total_ +=
      static_cast<std::int64_t>(out_.size() - header_start) + header.uncompressed_page_size;
  AppendBytes(out_, compressed);
  return Status::Ok();
}

Status ChunkWriter::WriteDictionaryPage(const Dictionary& dictionary) {
  Bytes entries;
  for (const std::size_t row : dictionary.entry_rows) AppendPlainValue(column_, row, entries);
  const auto encoding =
      options_.legacy_plain_dictionary ? Encoding::kPlainDictionary : Encoding::kPlain;
  encodings_.insert(static_cast<std::int32_t>(encoding));
  PageHeader header;
  header.type = static_cast<std::int32_t>(PageType::kDictionaryPage);
  header.dictionary_page_header = DictionaryPageHeader{
      static_cast<std::int32_t>(dictionary.entry_rows.size()), static_cast<std::int32_t>(encoding)};
  return AppendPage(std::move(header), {}, entries);
}

Status ChunkWriter::WriteDataPage(std::size_t begin, std::size_t end,
                                  const Dictionary* dictionary) {
  const Bytes levels = Levels(begin, end);
  const Bytes values = Values(begin, end, dictionary);
  Encoding encoding = Encoding::kPlain;
  if (dictionary != nullptr) {
    encoding =
        options_.legacy_plain_dictionary ? Encoding::kPlainDictionary : Encoding::kRleDictionary;
  }
  encodings_.insert(static_cast<std::int32_t>(encoding));
  encodings_.insert(static_cast<std::int32_t>(Encoding::kRle));
  const auto count = static_cast<std::int32_t>(end - begin);
  PageHeader header;
  if (options_.data_page_v2) {
    std::int32_t nulls = 0;
    for (std::size_t row = begin; row < end; ++row) nulls += column_.is_present(row) ? 0 : 1;
    header.type = static_cast<std::int32_t>(PageType::kDataPageV2);
    header.data_page_header_v2 = DataPageHeaderV2{count,
                                                  nulls,
                                                  count,
                                                  static_cast<std::int32_t>(encoding),
                                                  static_cast<std::int32_t>(levels.size()),
                                                  0,
                                                  true};
    return AppendPage(std::move(header), levels, values);
  }
  header.type = static_cast<std::int32_t>(PageType::kDataPage);
  header.data_page_header = DataPageHeader{count, static_cast<std::int32_t>(encoding),
                                           static_cast<std::int32_t>(Encoding::kRle),
                                           static_cast<std::int32_t>(Encoding::kRle)};
  Bytes prefixed_levels;
  if (column_.optional) {
    AppendLittleEndian(static_cast<std::uint32_t>(levels.size()), prefixed_levels);
    AppendBytes(prefixed_levels, levels);
  }
  return AppendPage(std::move(header), prefixed_levels, values);
}

Result<ColumnMetaData> ChunkWriter::Write(std::size_t begin, std::size_t end) {
  const std::int64_t chunk_start = static_cast<std::int64_t>(out_.size());
  Dictionary dictionary;
  dictionary.plain_from_row = begin;
  if (options_.dictionary && column_.dictionary && !column_.null_type) {
    dictionary = BuildDictionary(column_, begin, end, options_);
  }
  ColumnMetaData meta;
  if (dictionary.plain_from_row > begin) {
    meta.dictionary_page_offset = chunk_start;
    CHUNKWISE_RETURN_IF_ERROR(WriteDictionaryPage(dictionary));
  }
  meta.data_page_offset = static_cast<std::int64_t>(out_.size());
  for (std::size_t page = begin; page < end || page == begin; page += options_.rows_per_page) {
    const std::size_t page_end = std::min(end, page + options_.rows_per_page);
    CHUNKWISE_RETURN_IF_ERROR(
        WriteDataPage(page, page_end, page < dictionary.plain_from_row ? &dictionary : nullptr));
    if (page_end == end) break;
  }
  meta.type = static_cast<std::int32_t>(column_.type);
  meta.encodings.assign(encodings_.begin(), encodings_.end());
  std::sort(meta.encodings.begin(), meta.encodings.end());
  meta.path_in_schema = {column_.name};
  meta.codec = static_cast<std::int32_t>(options_.compression);
  meta.num_values = static_cast<std::int64_t>(end - begin);
  meta.null_count = 0;
  for (std::size_t row = begin; row < end; ++row)
    *meta.null_count += column_.is_present(row) ? 0 : 1;
  meta.total_uncompressed_size = uncompressed_total_;
  meta.total_compressed_size = static_cast<std::int64_t>(out_.size()) - chunk_start;
  return meta;
}

Status ValidateColumns(std::span<const Column> columns, const WriteOptions& options) {
  if (columns.empty()) return Status::InvalidArgument("parquet table without columns");
  if (options.rows_per_page == 0) return Status::InvalidArgument("parquet rows_per_page is 0");
  std::unordered_set<std::string_view> names;
  for (const Column& column : columns) {
    const std::string what = "parquet column '" + column.name + "'";
    if (column.name.empty() || !names.insert(column.name).second) {
      return Status::InvalidArgument(what + ": names must be non-empty and distinct");
    }
    if (column.rows() != columns[0].rows()) {
      return Status::InvalidArgument(what + " has " + std::to_string(column.rows()) + " rows, '" +
                                     columns[0].name + "' has " +
                                     std::to_string(columns[0].rows()));
    }
    const bool bytes = column.type == PhysicalType::kByteArray;
    if (bytes ? column.byte_arrays.size() != column.rows()
              : column.integers.size() != column.rows()) {
      return Status::InvalidArgument(what + ": values and presence flags differ in count");
    }
    for (std::size_t row = 0; row < column.rows(); ++row) {
      if (!column.optional && !column.is_present(row)) {
        return Status::InvalidArgument(what + " is REQUIRED but row " + std::to_string(row) +
                                       " is null");
      }
      if (column.type == PhysicalType::kInt32 && column.is_present(row) &&
          (column.integers[row] < INT32_MIN || column.integers[row] > INT32_MAX)) {
        return Status::InvalidArgument(what + ": row " + std::to_string(row) + " exceeds INT32");
      }
    }
    if (column.null_type && (column.type != PhysicalType::kInt32 || !column.optional)) {
      return Status::InvalidArgument(what + ": a null-type column is OPTIONAL INT32");
    }
  }
  return Status::Ok();
}

SchemaElement SchemaFor(const Column& column) {
  SchemaElement element;
  element.type = static_cast<std::int32_t>(column.type);
  element.repetition_type =
      static_cast<std::int32_t>(column.optional ? Repetition::kOptional : Repetition::kRequired);
  element.name = column.name;
  if (column.utf8) {
    element.converted_type = kConvertedTypeUtf8;
    element.logical_type = kLogicalTypeString;
  }
  if (column.null_type) element.logical_type = kLogicalTypeUnknown;
  return element;
}

}  // namespace

Result<Bytes> WriteTable(std::span<const Column> columns, const WriteOptions& options) {
  CHUNKWISE_RETURN_IF_ERROR(ValidateColumns(columns, options));
  FileMetaData metadata;
  metadata.version = options.version;
  metadata.created_by = "chunkwise";
  metadata.schema.push_back(SchemaElement{});
  metadata.schema[0].name = "schema";
  metadata.schema[0].num_children = static_cast<std::int32_t>(columns.size());
  for (const Column& column : columns) metadata.schema.push_back(SchemaFor(column));
  const std::size_t rows = columns[0].rows();
  metadata.num_rows = static_cast<std::int64_t>(rows);
  const std::size_t group_rows =
      options.rows_per_row_group == 0 ? std::max<std::size_t>(rows, 1) : options.rows_per_row_group;
  Bytes out = CopyToBytes(AsBytes(kMagic));
  for (std::size_t begin = 0; begin < rows || begin == 0; begin += group_rows) {
    const std::size_t end = std::min(rows, begin + group_rows);
    RowGroup group;
    group.num_rows = static_cast<std::int64_t>(end - begin);
    for (const Column& column : columns) {
      CHUNKWISE_ASSIGN_OR_RETURN(ColumnMetaData meta,
                                 ChunkWriter(column, options, out).Write(begin, end));
      group.total_byte_size += meta.total_uncompressed_size;
      const std::int64_t chunk_start = meta.dictionary_page_offset.value_or(meta.data_page_offset);
      group.columns.push_back(ColumnChunk{chunk_start, std::move(meta)});
    }
    metadata.row_groups.push_back(std::move(group));
    if (end == rows) break;
  }
  const std::size_t footer_start = out.size();
  AppendFileMetaData(metadata, out);
  AppendLittleEndian(static_cast<std::uint32_t>(out.size() - footer_start), out);
  AppendBytes(out, AsBytes(kMagic));
  return out;
}

}  // namespace chunkwise::formats::parquet
