#include "record_file.h"

#include <string_view>
#include <unordered_map>

#include "formats/parquet/table.h"

namespace chunkwise::formats::refs {
namespace {

using parquet::Column;
using parquet::PhysicalType;

const std::string kColumnNames[] = {"path", "offset", "size", "raw"};

// A BYTE_ARRAY column, or nullptr when the file lacks it or holds it as
// pyarrow's all-null INT32 column.
const Column* ByteArrayColumn(const parquet::Table& table, std::string_view name) {
  const Column* column = table.Find(name);
  return column != nullptr && column->type == PhysicalType::kByteArray ? column : nullptr;
}

Status CheckIntegerColumn(const Column* column, const std::string& name) {
  if (column == nullptr || column->type == PhysicalType::kInt64 || column->null_type)
    return Status::Ok();
  return Status::Corruption(name + ": column '" + column->name + "' is not INT64");
}

}  // namespace

Result<RecordRows> RecordRows::Decode(ByteView file, const std::string& name) {
  CHUNKWISE_ASSIGN_OR_RETURN(const parquet::Table table,
                             parquet::ReadTable(file, name, kColumnNames));
  const Column* path = ByteArrayColumn(table, "path");
  const Column* raw = ByteArrayColumn(table, "raw");
  const Column* offset = table.Find("offset");
  const Column* size = table.Find("size");
  CHUNKWISE_RETURN_IF_ERROR(CheckIntegerColumn(offset, name));
  CHUNKWISE_RETURN_IF_ERROR(CheckIntegerColumn(size, name));
  const auto rows = static_cast<std::size_t>(table.num_rows);
  RecordRows record;
  record.path_ids_.assign(rows, kNoPath);
  record.offsets_.assign(rows, 0);
  record.sizes_.assign(rows, 0);
  record.raw_present_.assign(rows, 0);
  std::unordered_map<std::string_view, std::uint32_t> interned;
  for (std::size_t row = 0; row < rows; ++row) {
    if (path != nullptr && path->is_present(row)) {
      const std::string_view url = AsChars(path->byte_arrays[row]);
      const auto [it, added] =
          interned.try_emplace(url, static_cast<std::uint32_t>(interned.size()));
      if (added) record.paths_.emplace_back(url);
      record.path_ids_[row] = it->second;
    }
    if (offset != nullptr && offset->integers.size() == rows && offset->is_present(row)) {
      record.offsets_[row] = offset->integers[row];
    }
    if (size != nullptr && size->integers.size() == rows && size->is_present(row)) {
      record.sizes_[row] = size->integers[row];
    }
    const bool has_raw = raw != nullptr && raw->is_present(row);
    record.raw_present_[row] = has_raw ? 1 : 0;
    has_raw ? record.raw_.Append(raw->byte_arrays[row]) : record.raw_.AppendEmpty();
  }
  return record;
}

std::optional<store::Reference> RecordRows::At(std::size_t row) const {
  if (row >= rows()) return std::nullopt;
  if (raw_present_[row]) return store::Reference::Inline(CopyToBytes(raw_[row]));
  if (path_ids_[row] == kNoPath) return std::nullopt;
  const std::string& url = paths_[path_ids_[row]];
  if (offsets_[row] == 0 && sizes_[row] == 0) return store::Reference::WholeFile(url);
  return store::Reference::Range(url, static_cast<std::uint64_t>(offsets_[row]),
                                 static_cast<std::uint64_t>(sizes_[row]));
}

std::size_t RecordRows::memory_bytes() const {
  std::size_t bytes = path_ids_.capacity() * 4 + offsets_.capacity() * 8 + sizes_.capacity() * 8 +
                      raw_present_.capacity() + raw_.total_bytes() + (rows() + 1) * 8;
  for (const std::string& path : paths_) bytes += sizeof(std::string) + path.capacity();
  return bytes;
}

Result<Bytes> EncodeRecordFile(const RecordToWrite& record, int compression, int zstd_level,
                               const std::string& what) {
  const std::size_t rows = record.references.size();
  Column path = Column::Named("path", PhysicalType::kByteArray, true);
  path.utf8 = true;
  path.dictionary = true;
  Column offset = Column::Named("offset", PhysicalType::kInt64);
  Column size = Column::Named("size", PhysicalType::kInt64);
  Column raw = Column::Named("raw", PhysicalType::kByteArray, true);
  for (Column* column : {&path, &offset, &size, &raw}) column->present.reserve(rows);
  offset.integers.reserve(rows);
  size.integers.reserve(rows);
  offset.present.assign(rows, 1);
  size.present.assign(rows, 1);
  for (const ReferenceView* reference : record.references) {
    using Kind = store::Reference::Kind;
    const bool is_inline = reference != nullptr && reference->kind == Kind::kInline;
    const bool has_path = reference != nullptr && !is_inline;
    path.present.push_back(has_path ? 1 : 0);
    has_path ? path.byte_arrays.Append(AsBytes(reference->url)) : path.byte_arrays.AppendEmpty();
    raw.present.push_back(is_inline ? 1 : 0);
    is_inline ? raw.byte_arrays.Append(reference->data) : raw.byte_arrays.AppendEmpty();
    const bool is_range = reference != nullptr && reference->kind == Kind::kRange;
    offset.integers.push_back(is_range ? static_cast<std::int64_t>(reference->offset) : 0);
    size.integers.push_back(is_range ? static_cast<std::int64_t>(reference->length) : 0);
  }
  parquet::WriteOptions options;
  options.compression = static_cast<parquet::Compression>(compression);
  options.zstd_level = zstd_level;
  const Column columns[] = {std::move(path), std::move(offset), std::move(size), std::move(raw)};
  Result<Bytes> file = parquet::WriteTable(columns, options);
  if (!file.ok()) return file.status().WithContext(what);
  return file;
}

}  // namespace chunkwise::formats::refs
