// One record file of the Parquet reference layout (`<field>/refs.<n>.parq`):
// its rows as references, encoded with the columns path, offset, size, raw.
//
// Spec: docs/formats/parquet.md, "fsspec Parquet reference sets" (columns, row rules).
#ifndef CHUNKWISE_SRC_FORMATS_REFS_RECORD_FILE_H_
#define CHUNKWISE_SRC_FORMATS_REFS_RECORD_FILE_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "chunkwise/core/bytes.h"
#include "chunkwise/core/result.h"
#include "chunkwise/store/reference.h"
#include "formats/parquet/column.h"
#include "formats/refs/reference_set.h"

namespace chunkwise::formats::refs {

// The decoded rows of one record file, with paths interned.
class RecordRows {
 public:
  static constexpr std::uint32_t kNoPath = 0xFFFFFFFF;

  // Decodes a record file; `name` names it in errors. Missing columns are
  // read as all null (legacy files); a null-typed column likewise.
  static Result<RecordRows> Decode(ByteView file, const std::string& name);

  std::size_t rows() const { return offsets_.size(); }
  // The reference of `row`, or nullopt when the row is missing (null path
  // and null raw, or past the end).
  std::optional<store::Reference> At(std::size_t row) const;
  // Approximate heap bytes held (for the cache's accounting and the benchmark).
  std::size_t memory_bytes() const;

 private:
  std::vector<std::uint32_t> path_ids_;
  std::vector<std::string> paths_;
  std::vector<std::int64_t> offsets_;
  std::vector<std::int64_t> sizes_;
  std::vector<std::uint8_t> raw_present_;
  parquet::ByteArrays raw_;
};

// The rows of one record file to write: row i is references[i] or, when
// null, a padding row (path and raw null, offset and size 0).
struct RecordToWrite {
  std::vector<const ReferenceView*> references;
};

// Encodes the record as a Parquet file: path OPTIONAL BYTE_ARRAY UTF8
// (dictionary), offset and size REQUIRED INT64, raw OPTIONAL BYTE_ARRAY.
// `what` names the file in errors.
Result<Bytes> EncodeRecordFile(const RecordToWrite& record, int compression, int zstd_level,
                               const std::string& what);

}  // namespace chunkwise::formats::refs

#endif  // CHUNKWISE_SRC_FORMATS_REFS_RECORD_FILE_H_
