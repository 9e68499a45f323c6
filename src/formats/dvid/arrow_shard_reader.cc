#include "formats/dvid/arrow_shard_reader.h"

#include <algorithm>
#include <utility>

#include "formats/arrow/ipc_reader.h"

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

Result<ArrowShardReader> ArrowShardReader::Open(std::shared_ptr<const store::Store> store,
                                                std::string_view arrow_key,
                                                const ArrowShardOpenOptions& options) {
  const std::string csv_key = CsvName(arrow_key);
  CHUNKWISE_ASSIGN_OR_RETURN(std::optional<Bytes> csv, store->Get(csv_key));
  if (!csv.has_value()) return Status::NotFound(store->Describe(csv_key) + " does not exist");
  const std::string csv_name = store->Describe(csv_key);
  std::shared_ptr<arrow::ByteSource> source;
  if (options.read_whole) {
    CHUNKWISE_ASSIGN_OR_RETURN(std::optional<Bytes> whole, store->Get(arrow_key));
    if (!whole.has_value()) {
      return Status::NotFound(store->Describe(arrow_key) + " does not exist");
    }
    source = arrow::MemorySource(std::move(*whole), store->Describe(arrow_key));
  } else {
    CHUNKWISE_ASSIGN_OR_RETURN(source,
                               arrow::OpenStoreSource(std::move(store), std::string(arrow_key)));
  }
  return OpenFrom(std::move(source), AsChars(*csv), csv_name);
}

Result<ArrowShardReader> ArrowShardReader::OpenFrom(std::shared_ptr<arrow::ByteSource> source,
                                                    std::string_view csv_text,
                                                    const std::string& csv_name) {
  // Parsed once for its form; parsed again below with the shard's limits.
  CHUNKWISE_ASSIGN_OR_RETURN(const ChunkIndex probe, ParseChunkIndex(csv_text, csv_name));
  const bool by_record = probe.form == ChunkIndexForm::kRecord;
  ArrowShardReader reader;
  reader.source_ = std::move(source);
  // Every record batch, for checking the index against what the file holds.
  std::vector<arrow::MessageBlock> all_blocks;
  CHUNKWISE_ASSIGN_OR_RETURN(reader.is_file_format_, arrow::IsArrowFile(*reader.source_));
  if (reader.is_file_format_) {
    CHUNKWISE_ASSIGN_OR_RETURN(arrow::IpcFileReader file,
                               arrow::IpcFileReader::Open(reader.source_));
    reader.schema_ = file.schema();
    for (std::size_t i = 0; i < file.num_record_batches(); ++i) {
      reader.blocks_.push_back(file.block(i));
    }
  } else {
    CHUNKWISE_ASSIGN_OR_RETURN(arrow::IpcStreamReader stream,
                               arrow::IpcStreamReader::Open(reader.source_));
    reader.schema_ = stream.schema();
    reader.schema_end_ = stream.schema_end();
    // Only the record form needs batch positions; the offsets form carries
    // byte ranges, and scans them here only to count the records.
    CHUNKWISE_ASSIGN_OR_RETURN(all_blocks, stream.ScanRecordBatchBlocks());
    if (by_record) reader.blocks_ = all_blocks;
  }
  if (reader.is_file_format_) all_blocks = reader.blocks_;
  CHUNKWISE_RETURN_IF_ERROR(CheckExportShardSchema(reader.schema_, reader.source_->name()));
  ChunkIndexLimits limits;
  limits.data_size = reader.source_->size();
  if (by_record) {
    std::int64_t max_rec = -1;
    for (const ChunkIndexRow& row : probe.rows) max_rec = std::max(max_rec, row.rec);
    if (max_rec >= static_cast<std::int64_t>(reader.blocks_.size())) {
      CHUNKWISE_RETURN_IF_ERROR(reader.CountRows());
    }
    limits.record_count = reader.row_starts_.empty()
                              ? static_cast<std::int64_t>(reader.blocks_.size())
                              : reader.row_starts_.back();
  }
  CHUNKWISE_ASSIGN_OR_RETURN(reader.index_, ParseChunkIndex(csv_text, csv_name, limits));
  for (std::size_t k = 0; k < reader.index_.rows.size(); ++k) {
    reader.rows_.emplace(reader.index_.rows[k].chunk, k);
  }
  // The other way round from the limits above: a record the index leaves out
  // would read as an absent (zero) block.
  std::int64_t records = 0;
  for (const arrow::MessageBlock& block : all_blocks) {
    CHUNKWISE_ASSIGN_OR_RETURN(const std::int64_t rows,
                               arrow::ReadRecordBatchLength(*reader.source_, block));
    records += rows;
  }
  if (records != static_cast<std::int64_t>(reader.index_.rows.size())) {
    return Status::Corruption(csv_name + " lists " + std::to_string(reader.index_.rows.size()) +
                              " chunks, but " + reader.source_->name() + " holds " +
                              std::to_string(records) + " records");
  }
  return reader;
}

Status ArrowShardReader::CountRows() {
  // row_starts_ gets one entry per batch plus the total at the end.
  row_starts_.assign(1, 0);
  for (const arrow::MessageBlock& block : blocks_) {
    CHUNKWISE_ASSIGN_OR_RETURN(const std::int64_t rows,
                               arrow::ReadRecordBatchLength(*source_, block));
    row_starts_.push_back(row_starts_.back() + rows);
  }
  return Status::Ok();
}

std::vector<std::array<std::int32_t, 3>> ArrowShardReader::ListChunks() const {
  std::vector<std::array<std::int32_t, 3>> chunks;
  chunks.reserve(index_.rows.size());
  for (const ChunkIndexRow& row : index_.rows) chunks.push_back(row.chunk);
  return chunks;
}

std::pair<arrow::MessageBlock, std::int64_t> ArrowShardReader::Locate(
    const ChunkIndexRow& row) const {
  if (index_.form == ChunkIndexForm::kOffsets) {
    // The index gives the whole message; ReadRecordBatchAt splits it at the prefix.
    if (row.offset < schema_end_ && row.size > schema_end_ - row.offset) {
      const std::uint64_t skip = schema_end_ - row.offset;
      return {arrow::MessageBlock{schema_end_, 0, row.size - skip}, row.batch_idx};
    }
    return {arrow::MessageBlock{row.offset, 0, row.size}, row.batch_idx};
  }
  if (row_starts_.empty()) return {blocks_[static_cast<std::size_t>(row.rec)], 0};
  // rec numbers rows: the batch is the last one starting at or before it.
  const auto after = std::upper_bound(row_starts_.begin(), row_starts_.end() - 1, row.rec);
  const auto batch = static_cast<std::size_t>(after - row_starts_.begin() - 1);
  return {blocks_[batch], row.rec - row_starts_[batch]};
}

Result<std::optional<ExportBlock>> ArrowShardReader::Get(std::int32_t x, std::int32_t y,
                                                         std::int32_t z) const {
  const auto found = rows_.find({x, y, z});
  if (found == rows_.end()) return std::optional<ExportBlock>();
  const ChunkIndexRow& row = index_.rows[found->second];
  const auto [block, batch_row] = Locate(row);
  CHUNKWISE_ASSIGN_OR_RETURN(const arrow::RecordBatch batch,
                             arrow::ReadRecordBatchAt(*source_, schema_, block));
  const std::string where = source_->name() + ": chunk " + CoordinateText(x, y, z);
  if (index_.form == ChunkIndexForm::kRecord && row_starts_.empty() && batch.num_rows != 1) {
    return Status::Unsupported(where + ": record " + std::to_string(row.rec) + " holds " +
                               std::to_string(batch.num_rows) +
                               " rows, but the index numbers record batches (one block each)");
  }
  if (batch_row >= batch.num_rows) {
    return Status::Corruption(where + ": row " + std::to_string(batch_row) + " is past the " +
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

namespace chunkwise::formats::dvid {

Result<std::optional<ArrowShardReader::BlockByteRange>> ArrowShardReader::LocateCompressedBlock(
    std::int32_t x, std::int32_t y, std::int32_t z) const {
  const auto found = rows_.find({x, y, z});
  if (found == rows_.end()) return std::optional<BlockByteRange>();
  const ChunkIndexRow& row = index_.rows[found->second];
  const auto [block, batch_row] = Locate(row);
  CHUNKWISE_ASSIGN_OR_RETURN(const arrow::LocatedRecordBatch located,
                             arrow::ReadLocatedRecordBatchAt(*source_, schema_, block));
  const arrow::RecordBatch& batch = located.batch;
  const std::string where = source_->name() + ": chunk " + CoordinateText(x, y, z);
  if (batch_row >= batch.num_rows) {
    return Status::Corruption(where + ": row " + std::to_string(batch_row) + " is past the " +
                              std::to_string(batch.num_rows) + "-row batch");
  }
  if (index_.form == ChunkIndexForm::kRecord && row_starts_.empty() && batch.num_rows != 1) {
    return Status::Unsupported(where + ": record " + std::to_string(row.rec) + " holds " +
                               std::to_string(batch.num_rows) + " rows");
  }
  const std::int32_t cx = arrow::IntegerAt<std::int32_t>(batch.columns[kChunkX], batch_row);
  const std::int32_t cy = arrow::IntegerAt<std::int32_t>(batch.columns[kChunkY], batch_row);
  const std::int32_t cz = arrow::IntegerAt<std::int32_t>(batch.columns[kChunkZ], batch_row);
  if (cx != x || cy != y || cz != z) {
    return Status::Corruption(where + ": the index points to a record of chunk " +
                              CoordinateText(cx, cy, cz));
  }
  const ByteView value = arrow::BinaryAt(batch.columns[kDvidCompressedBlock], batch_row);
  const ByteView body = located.body;
  if (value.data() < body.data() || value.data() + value.size() > body.data() + body.size()) {
    return Status::Unsupported(where +
                               ": the record batch body is compressed, so the block "
                               "has no byte range in the file");
  }
  BlockByteRange range;
  range.offset = located.body_offset + static_cast<std::uint64_t>(value.data() - body.data());
  range.length = value.size();
  range.uncompressed_size =
      arrow::IntegerAt<std::uint32_t>(batch.columns[kUncompressedSize], batch_row);
  return std::optional<BlockByteRange>(range);
}

}  // namespace chunkwise::formats::dvid
