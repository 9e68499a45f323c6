#include "chunkwise/formats/dvid/arrow_shard_writer.h"

#include <utility>

#include "chunkwise/core/file_io.h"

namespace chunkwise::formats::dvid {

ArrowShardWriter::ArrowShardWriter(std::unique_ptr<arrow::IpcWriter> writer,
                                   IndexCommit commit_index, ChunkIndexForm form)
    : writer_(std::move(writer)), commit_index_(std::move(commit_index)) {
  index_.form = form;
  if (form == ChunkIndexForm::kOffsets) index_.schema_size = writer_->schema_end();
}

Result<std::unique_ptr<ArrowShardWriter>> ArrowShardWriter::Create(
    const std::filesystem::path& stem, ArrowShardWriterOptions options) {
  std::filesystem::path arrow_path = stem, csv_path = stem;
  arrow_path += ".arrow";
  csv_path += ".csv";
  CHUNKWISE_RETURN_IF_ERROR(core::CheckOutputPath(csv_path, options.overwrite));
  CHUNKWISE_ASSIGN_OR_RETURN(std::unique_ptr<arrow::ByteSink> sink,
                             arrow::CreateFileSink(arrow_path, {options.overwrite, false}));
  CHUNKWISE_ASSIGN_OR_RETURN(
      std::unique_ptr<arrow::IpcWriter> writer,
      arrow::IpcWriter::Create(std::move(sink), ExportShardSchema(), {options.format, 8}));
  IndexCommit commit = [csv_path](const std::string& text) {
    return core::WriteFileAtomically(csv_path, AsBytes(text));
  };
  return std::unique_ptr<ArrowShardWriter>(
      new ArrowShardWriter(std::move(writer), std::move(commit), options.index_form));
}

Result<std::unique_ptr<ArrowShardWriter>> ArrowShardWriter::Create(
    const std::shared_ptr<store::Store>& store, const std::string& stem_key,
    ArrowShardWriterOptions options) {
  CHUNKWISE_ASSIGN_OR_RETURN(
      std::unique_ptr<arrow::IpcWriter> writer,
      arrow::IpcWriter::Create(arrow::CreateStoreSink(store, stem_key + ".arrow"),
                               ExportShardSchema(), {options.format, 8}));
  IndexCommit commit = [store, csv_key = stem_key + ".csv"](const std::string& text) {
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
  return commit_index_(FormatChunkIndex(sorted));
}

}  // namespace chunkwise::formats::dvid
