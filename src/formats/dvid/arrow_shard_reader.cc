#include "chunkwise/formats/dvid/arrow_shard_reader.h"

#include <utility>

#include "chunkwise/core/file_io.h"
#include "chunkwise/formats/arrow/ipc_reader.h"

namespace chunkwise::formats::dvid {
namespace {

std::string CsvName(std::string_view arrow_name) {
  std::string_view stem = arrow_name;
  if (stem.ends_with(".arrow")) stem.remove_suffix(6);
  std::string name(stem);
  name.append(".csv");  // Not operator+: GCC 12 warns falsely (-Wrestrict) on it here.
  return name;
}

std::string CoordinateText(std::int32_t x, std::int32_t y, std::int32_t z) {
  std::string text = "(";  // Appends, not operator+: GCC 12 warns falsely (-Wrestrict) on it.
  text.append(std::to_string(x)).append(", ").append(std::to_string(y)).append(", ");
  return text.append(std::to_string(z)).append(")");
}

}  // namespace

Result<ArrowShardReader> ArrowShardReader::Open(const std::filesystem::path& arrow_path) {
  CHUNKWISE_ASSIGN_OR_RETURN(std::shared_ptr<arrow::ByteSource> source,
                             arrow::OpenFileSource(arrow_path));
  const std::filesystem::path csv_path = CsvName(arrow_path.string());
  CHUNKWISE_ASSIGN_OR_RETURN(const Bytes csv, core::ReadFile(csv_path));
  return OpenFrom(std::move(source), AsChars(csv), csv_path.string());
}

Result<ArrowShardReader> ArrowShardReader::Open(std::shared_ptr<const store::Store> store,
                                                std::string_view arrow_key) {
  const std::string csv_key = CsvName(arrow_key);
  CHUNKWISE_ASSIGN_OR_RETURN(std::optional<Bytes> csv, store->Get(csv_key));
  if (!csv.has_value()) return Status::NotFound(store->Describe(csv_key) + " does not exist");
  std::string csv_name = store->Describe(csv_key);
  CHUNKWISE_ASSIGN_OR_RETURN(std::shared_ptr<arrow::ByteSource> source,
                             arrow::OpenStoreSource(std::move(store), std::string(arrow_key)));
  return OpenFrom(std::move(source), AsChars(*csv), std::move(csv_name));
}

Result<ArrowShardReader> ArrowShardReader::OpenFrom(std::shared_ptr<arrow::ByteSource> source,
                                                    std::string_view csv_text,
                                                    std::string csv_name) {
  ArrowShardReader reader;
  bool know_batches = true;
  CHUNKWISE_ASSIGN_OR_RETURN(reader.is_file_format_, arrow::IsArrowFile(*source));
  if (reader.is_file_format_) {
    CHUNKWISE_ASSIGN_OR_RETURN(arrow::IpcFileReader file, arrow::IpcFileReader::Open(source));
    reader.schema_ = file.schema();
    for (std::size_t i = 0; i < file.num_record_batches(); ++i)
      reader.blocks_.push_back(file.block(i));
  } else {
    CHUNKWISE_ASSIGN_OR_RETURN(arrow::IpcStreamReader stream, arrow::IpcStreamReader::Open(source));
    reader.schema_ = stream.schema();
    // Only the record form needs batch numbers; the offsets form carries byte ranges.
    CHUNKWISE_ASSIGN_OR_RETURN(const ChunkIndex probe, ParseChunkIndex(csv_text, csv_name));
    know_batches = probe.form == ChunkIndexForm::kRecord;
    if (know_batches) {
      CHUNKWISE_ASSIGN_OR_RETURN(reader.blocks_, stream.ScanRecordBatchBlocks());
    }
  }
  CHUNKWISE_RETURN_IF_ERROR(CheckExportShardSchema(reader.schema_, source->name()));
  ChunkIndexLimits limits;
  limits.data_size = source->size();
  if (know_batches) limits.record_count = static_cast<std::int64_t>(reader.blocks_.size());
  CHUNKWISE_ASSIGN_OR_RETURN(reader.index_, ParseChunkIndex(csv_text, csv_name, limits));
  for (std::size_t k = 0; k < reader.index_.rows.size(); ++k) {
    reader.rows_.emplace(reader.index_.rows[k].chunk, k);
  }
  reader.source_ = std::move(source);
  return reader;
}

std::vector<std::array<std::int32_t, 3>> ArrowShardReader::ListChunks() const {
  std::vector<std::array<std::int32_t, 3>> chunks;
  chunks.reserve(index_.rows.size());
  for (const ChunkIndexRow& row : index_.rows) chunks.push_back(row.chunk);
  return chunks;
}

Result<arrow::MessageBlock> ArrowShardReader::BlockFor(const ChunkIndexRow& row) const {
  if (index_.form == ChunkIndexForm::kRecord) return blocks_[static_cast<std::size_t>(row.rec)];
  // The index gives the whole message; ReadRecordBatchAt splits it at the prefix.
  return arrow::MessageBlock{row.offset, 0, row.size};
}

Result<std::optional<ExportBlock>> ArrowShardReader::Get(std::int32_t x, std::int32_t y,
                                                         std::int32_t z) const {
  const auto found = rows_.find({x, y, z});
  if (found == rows_.end()) return std::optional<ExportBlock>();
  const ChunkIndexRow& row = index_.rows[found->second];
  CHUNKWISE_ASSIGN_OR_RETURN(const arrow::MessageBlock block, BlockFor(row));
  CHUNKWISE_ASSIGN_OR_RETURN(const arrow::RecordBatch batch,
                             arrow::ReadRecordBatchAt(*source_, schema_, block));
  const std::int64_t batch_row = index_.form == ChunkIndexForm::kRecord ? 0 : row.batch_idx;
  const std::string where = source_->name() + ": chunk " + CoordinateText(x, y, z);
  if (index_.form == ChunkIndexForm::kRecord && batch.num_rows != 1) {
    return Status::Unsupported(where + ": record " + std::to_string(row.rec) + " holds " +
                               std::to_string(batch.num_rows) +
                               " rows; a 'rec' index needs one block per record batch");
  }
  if (batch_row >= batch.num_rows) {
    return Status::Corruption(where + ": batch_idx " + std::to_string(batch_row) + " is past the " +
                              std::to_string(batch.num_rows) + "-row batch");
  }
  ExportBlock out = ExportBlockAt(batch, batch_row);
  if (out.chunk_x != x || out.chunk_y != y || out.chunk_z != z) {
    return Status::Corruption(where + ": the index points to a record of chunk " +
                              CoordinateText(out.chunk_x, out.chunk_y, out.chunk_z));
  }
  return std::optional<ExportBlock>(std::move(out));
}

}  // namespace chunkwise::formats::dvid
