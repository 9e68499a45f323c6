// The Parquet footer and page headers: the fields of parquet.thrift that a
// flat table needs, and their compact-protocol encoding.
//
// Spec: docs/formats/parquet.md, "What we read and write" (from
// parquet-format's parquet.thrift). Unknown fields are skipped when reading;
// required fields that are absent are Corruption. Nested schemas (groups below
// the root, repeated fields) are read but rejected by the table reader.
#ifndef CHUNKWISE_FORMATS_PARQUET_FILE_METADATA_H_
#define CHUNKWISE_FORMATS_PARQUET_FILE_METADATA_H_

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "chunkwise/core/bytes.h"
#include "chunkwise/core/result.h"

namespace chunkwise::formats::parquet {

// parquet.thrift enums, values as stored.
enum class PhysicalType : std::int32_t { kBoolean = 0, kInt32 = 1, kInt64 = 2, kByteArray = 6 };
enum class Repetition : std::int32_t { kRequired = 0, kOptional = 1, kRepeated = 2 };
enum class Encoding : std::int32_t {
  kPlain = 0,
  kPlainDictionary = 2,
  kRle = 3,
  kBitPacked = 4,
  kRleDictionary = 8,
};
enum class PageType : std::int32_t { kDataPage = 0, kDictionaryPage = 2, kDataPageV2 = 3 };
enum class Compression : std::int32_t { kUncompressed = 0, kSnappy = 1, kGzip = 2, kZstd = 6 };
inline constexpr std::int32_t kConvertedTypeUtf8 = 0;
// LogicalType union members.
inline constexpr std::int16_t kLogicalTypeString = 1;
inline constexpr std::int16_t kLogicalTypeUnknown = 11;

struct SchemaElement {
  std::optional<std::int32_t> type;  // PhysicalType; absent for groups (the root).
  std::optional<std::int32_t> type_length;
  std::optional<std::int32_t> repetition_type;
  std::string name;
  std::optional<std::int32_t> num_children;
  std::optional<std::int32_t> converted_type;
  std::optional<std::int16_t> logical_type;  // The id of the LogicalType union member set.
};

struct ColumnMetaData {
  std::int32_t type = 0;
  std::vector<std::int32_t> encodings;
  std::vector<std::string> path_in_schema;
  std::int32_t codec = 0;
  std::int64_t num_values = 0;               // Nulls included.
  std::int64_t total_uncompressed_size = 0;  // Page headers included.
  std::int64_t total_compressed_size = 0;    // Page headers included.
  std::int64_t data_page_offset = 0;
  std::optional<std::int64_t> dictionary_page_offset;
  // Statistics.null_count (field 12, its field 3). fastparquet, and so fsspec's
  // Parquet references, reads an integer column without it as possibly null
  // (float64 or a masked type), so the writer always sets it.
  std::optional<std::int64_t> null_count;
};

struct ColumnChunk {
  std::int64_t file_offset = 0;
  std::optional<ColumnMetaData> meta_data;
};

struct RowGroup {
  std::vector<ColumnChunk> columns;
  std::int64_t total_byte_size = 0;
  std::int64_t num_rows = 0;
};

struct FileMetaData {
  std::int32_t version = 1;
  std::vector<SchemaElement> schema;  // Depth-first, the root first.
  std::int64_t num_rows = 0;
  std::vector<RowGroup> row_groups;
  std::vector<std::pair<std::string, std::string>> key_value_metadata;
  std::optional<std::string> created_by;
};

struct DataPageHeader {
  std::int32_t num_values = 0;  // Nulls included.
  std::int32_t encoding = 0;
  std::int32_t definition_level_encoding = static_cast<std::int32_t>(Encoding::kRle);
  std::int32_t repetition_level_encoding = static_cast<std::int32_t>(Encoding::kRle);
};

struct DictionaryPageHeader {
  std::int32_t num_values = 0;
  std::int32_t encoding = 0;
};

struct DataPageHeaderV2 {
  std::int32_t num_values = 0;
  std::int32_t num_nulls = 0;
  std::int32_t num_rows = 0;
  std::int32_t encoding = 0;
  std::int32_t definition_levels_byte_length = 0;
  std::int32_t repetition_levels_byte_length = 0;
  bool is_compressed = true;
};

struct PageHeader {
  std::int32_t type = 0;
  std::int32_t uncompressed_page_size = 0;  // Header excluded.
  std::int32_t compressed_page_size = 0;    // Header excluded.
  std::optional<DataPageHeader> data_page_header;
  std::optional<DictionaryPageHeader> dictionary_page_header;
  std::optional<DataPageHeaderV2> data_page_header_v2;
};

// Compact-protocol encodings. Writers emit every field set above.
void AppendFileMetaData(const FileMetaData& metadata, Bytes& out);
void AppendPageHeader(const PageHeader& header, Bytes& out);

// Decoders: Corruption naming `what` (the file) on malformed input or a
// missing required field. DecodePageHeader sets `*consumed` to the header size.
Result<FileMetaData> DecodeFileMetaData(ByteView data, const std::string& what);
Result<PageHeader> DecodePageHeader(ByteView data, const std::string& what, std::size_t* consumed);

}  // namespace chunkwise::formats::parquet

#endif  // CHUNKWISE_FORMATS_PARQUET_FILE_METADATA_H_
