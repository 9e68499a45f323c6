// A minimal Parquet reader and writer for flat tables: one schema level of
// INT32, INT64 and BYTE_ARRAY columns, REQUIRED or OPTIONAL, PLAIN or
// dictionary encoded, uncompressed or with ZSTD, GZIP or SNAPPY pages.
//
// Spec: docs/formats/parquet.md ("File layout" to "Pages and encodings"). The
// reader accepts what fastparquet and pyarrow write for such tables (several
// row groups, dictionary pages with RLE_DICTIONARY or legacy PLAIN_DICTIONARY
// data pages, a fallback to PLAIN part-way, DATA_PAGE_V2, pyarrow's INT32 +
// UNKNOWN all-null columns). It never reads outside the file and never
// decompresses past a page's stated size; errors name the file, the column and
// the page.
#ifndef CHUNKWISE_FORMATS_PARQUET_TABLE_H_
#define CHUNKWISE_FORMATS_PARQUET_TABLE_H_

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "chunkwise/core/bytes.h"
#include "chunkwise/core/result.h"
#include "formats/parquet/column.h"
#include "formats/parquet/file_metadata.h"

namespace chunkwise::formats::parquet {

struct WriteOptions {
  Compression compression = Compression::kZstd;
  int zstd_level = 3;
  bool dictionary = true;  // Dictionary-encode the columns that ask for it (Column::dictionary).
  // Past this many bytes of PLAIN dictionary entries, the rest of the chunk
  // is written as PLAIN pages (pyarrow's fallback; its default is 1 MiB).
  std::size_t max_dictionary_bytes = std::size_t{1} << 20;
  std::size_t rows_per_page = 20000;
  std::size_t rows_per_row_group = 0;  // 0: one row group.
  // Writer variants other tools produce, so that the reader is tested on them:
  bool data_page_v2 = false;             // DATA_PAGE_V2 instead of v1.
  bool legacy_plain_dictionary = false;  // PLAIN_DICTIONARY (fastparquet < 0.6) not RLE_DICTIONARY.
  std::size_t page_padding_bytes = 0;    // Zero bytes after each v1 page's values (fastparquet: 8).
  std::int32_t version = 1;              // FileMetaData.version (pyarrow writes 2).
};

// The file: PAR1, the column chunks, the footer, its length, PAR1.
// InvalidArgument if the columns differ in row count, a name is empty or
// repeated, a REQUIRED column has an absent row, or a value does not fit its
// type. Internal if a compressor fails.
Result<Bytes> WriteTable(std::span<const Column> columns, const WriteOptions& options);

struct Table {
  std::int64_t num_rows = 0;
  std::vector<Column> columns;  // In the order asked for; missing ones are left out.

  // The column named `name`, or nullptr.
  const Column* Find(std::string_view name) const;
};

// Files claiming more rows are refused: an RLE run describes millions of
// nulls in a few bytes, so the row count bounds the memory a file can ask for.
inline constexpr std::int64_t kDefaultMaxRows = std::int64_t{1} << 26;

// Reads the columns named in `wanted` (all columns if empty) of the Parquet
// file `file`; `name_for_errors` names it in messages. A wanted column the
// file lacks is simply left out of the result. Corruption on malformed input
// or more than `max_rows` rows, Unsupported for nested schemas or other
// physical types, encodings or codecs.
Result<Table> ReadTable(ByteView file, const std::string& name_for_errors,
                        std::span<const std::string> wanted = {},
                        std::int64_t max_rows = kDefaultMaxRows);

// Only the footer (for tools and tests).
Result<FileMetaData> ReadFileMetaData(ByteView file, const std::string& name_for_errors);

}  // namespace chunkwise::formats::parquet

#endif  // CHUNKWISE_FORMATS_PARQUET_TABLE_H_
