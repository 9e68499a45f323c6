#include "formats/dvid/arrow_shard_writer.h"

#include <utility>

namespace chunkwise::formats::dvid {

ArrowShardWriter::ArrowShardWriter(std::unique_ptr<arrow::IpcWriter> writer,
                                   IndexCommit commit_index, ChunkIndexForm form)
    : writer_(std::move(writer)), commit_index_(std::move(commit_index)) {
  index_.form = form;
  if (form == ChunkIndexForm::kOffsets) index_.schema_size = writer_->schema_end();
}

Result<std::unique_ptr<ArrowShardWriter>> ArrowShardWriter::Create(
    const std::shared_ptr<store::Store>& store, const std::string& stem_key,
    ArrowShardWriterOptions options) {
  const std::string arrow_key = stem_key + ".arrow", csv_key = stem_key + ".csv";
  if (!options.overwrite) {
    CHUNKWISE_ASSIGN_OR_RETURN(const bool csv_exists, store->Exists(csv_key));
    if (csv_exists) {
      return Status::InvalidArgument(store->Describe(csv_key) +
                                     " already exists; not replacing it");
    }
  }
  CHUNKWISE_ASSIGN_OR_RETURN(std::unique_ptr<arrow::ByteSink> sink,
                             arrow::CreateStoreSink(store, arrow_key, {options.overwrite}));
  CHUNKWISE_ASSIGN_OR_RETURN(
      std::unique_ptr<arrow::IpcWriter> writer,
      arrow::IpcWriter::Create(std::move(sink), ExportShardSchema(), {options.format, 8}));
  IndexCommit commit = [store, csv_key](const std::string& text) {
    return store->Set(csv_key, AsBytes(text));
  };
  return std::unique_ptr<ArrowShardWriter>(
      new ArrowShardWriter(std::move(writer), std::move(commit), options.index_form));
}

Status ArrowShardWriter::Add(const ExportBlock& block) {
  const std::array<std::int32_t, 3> chunk{block.chunk_x, block.chunk_y, block.chunk_z};
  if (chunks_.contains(chunk)) {
    return Status::InvalidArgument("chunk (" + std::to_string(chunk[0]) + ", " +
                                   std::to_string(chunk[1]) + ", " + std::to_string(chunk[2]) +
                                   ") added twice to one shard");
  }
  builder_.Clear();
  CHUNKWISE_RETURN_IF_ERROR(builder_.Add(block));
  CHUNKWISE_ASSIGN_OR_RETURN(const arrow::MessageBlock written,
                             writer_->WriteRecordBatch(builder_.View()));
  ChunkIndexRow row;
  row.chunk = chunk;
  row.rec = static_cast<std::int64_t>(index_.rows.size());
  row.offset = written.offset;
  row.size = written.size();
  index_.rows.push_back(row);
  chunks_.insert(chunk);
  return Status::Ok();
}

Status ArrowShardWriter::Finish() {
  CHUNKWISE_RETURN_IF_ERROR(writer_->Finish());
  ChunkIndex sorted = index_;
  SortChunkIndexRows(sorted);
  const std::string text = FormatChunkIndex(sorted);
  CHUNKWISE_RETURN_IF_ERROR(commit_index_(text));
  index_bytes_ = text.size();
  return Status::Ok();
}

}  // namespace chunkwise::formats::dvid
