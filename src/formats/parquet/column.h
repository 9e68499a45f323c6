// Column: one column of a flat Parquet table held in memory, the unit the
// table reader produces and the table writer consumes.
//
// Values are kept per row, absent (null) rows included, so row i of every
// column lines up: integers[i] (INT32/INT64) or byte_arrays[i] (BYTE_ARRAY);
// an absent row holds 0 or an empty value.
#ifndef CHUNKWISE_FORMATS_PARQUET_COLUMN_H_
#define CHUNKWISE_FORMATS_PARQUET_COLUMN_H_

#include <cstdint>
#include <string>
#include <vector>

#include "chunkwise/core/bytes.h"
#include "formats/parquet/file_metadata.h"

namespace chunkwise::formats::parquet {

// Variable-length values stored back to back: value i is
// data[offsets[i], offsets[i + 1]).
class ByteArrays {
 public:
  void Append(ByteView value) {
    AppendBytes(data_, value);
    offsets_.push_back(data_.size());
  }
  void AppendEmpty() { offsets_.push_back(data_.size()); }
  void Reserve(std::size_t count, std::size_t bytes) {
    offsets_.reserve(count + 1);
    data_.reserve(bytes);
  }
  std::size_t size() const { return offsets_.size() - 1; }
  ByteView operator[](std::size_t i) const {
    return ByteView(data_).subspan(offsets_[i], offsets_[i + 1] - offsets_[i]);
  }
  std::size_t total_bytes() const { return data_.size(); }

 private:
  Bytes data_;
  std::vector<std::uint64_t> offsets_{0};
};

struct Column {
  std::string name;
  PhysicalType type = PhysicalType::kInt64;
  bool utf8 = false;        // BYTE_ARRAY annotated as a UTF-8 string (ConvertedType UTF8 + STRING).
  bool optional = false;    // OPTIONAL (may hold nulls) rather than REQUIRED.
  bool null_type = false;   // LogicalType UNKNOWN: pyarrow's all-null column (INT32, no values).
  bool dictionary = false;  // Writer: dictionary-encode (when WriteOptions::dictionary is on).

  std::vector<std::uint8_t> present;   // Per row, 1 or 0; for a REQUIRED column all 1.
  std::vector<std::int64_t> integers;  // Per row, INT32 and INT64 columns.
  ByteArrays byte_arrays;              // Per row, BYTE_ARRAY columns.

  // An empty column; set the flags, then append rows.
  static Column Named(std::string name, PhysicalType type, bool optional = false) {
    Column column;
    column.name = std::move(name);
    column.type = type;
    column.optional = optional;
    return column;
  }

  std::size_t rows() const { return present.size(); }
  bool is_present(std::size_t row) const { return present[row] != 0; }
};

}  // namespace chunkwise::formats::parquet

#endif  // CHUNKWISE_FORMATS_PARQUET_COLUMN_H_
