// IpcWriter: writes an Arrow IPC stream or file, one record batch at a time.
//
// The schema message is written when the writer is created, so its size is
// known before the first batch (DVID's offsets index records it). Each
// WriteRecordBatch appends one encapsulated message: prefix, Message
// flatbuffer, then the body, whose buffers are written straight from the
// caller's views, each padded to the alignment. No IPC body compression.
// Finish appends the end-of-stream marker and, for the file format, the
// footer listing every batch's Block, then commits the sink (temporary name
// renamed into place). Prose: docs/formats/arrow-ipc.md. Not thread-safe.
#ifndef CHUNKWISE_FORMATS_ARROW_IPC_WRITER_H_
#define CHUNKWISE_FORMATS_ARROW_IPC_WRITER_H_

#include <cstdint>
#include <memory>
#include <vector>

#include "chunkwise/core/result.h"
#include "formats/arrow/byte_sink.h"
#include "formats/arrow/ipc_format.h"
#include "formats/arrow/record_batch.h"
#include "formats/arrow/schema.h"

namespace chunkwise::formats::arrow {

struct IpcWriteOptions {
  IpcFormat format = IpcFormat::kFile;
  // Body buffers start at multiples of this within the body: 8 (what Arrow C++
  // writes) or 64 (Arrow's recommendation for SIMD readers). A power of two ≥ 8.
  std::uint32_t alignment = 8;
};

class IpcWriter {
 public:
  // Writes the file magic (file format) and the schema message to `sink`.
  // InvalidArgument for an invalid schema or alignment; IOError from the sink.
  static Result<std::unique_ptr<IpcWriter>> Create(std::unique_ptr<ByteSink> sink, Schema schema,
                                                   IpcWriteOptions options = {});

  // Appends one record batch and returns where its message lies. The batch is
  // checked against the schema first (InvalidArgument naming the column if it
  // does not fit); the caller's buffers are not retained. After an I/O error
  // the writer refuses further calls and the output is never committed.
  Result<MessageBlock> WriteRecordBatch(const RecordBatch& batch);

  // Ends the stream (and writes the footer for the file format) and commits
  // the sink. REQUIRES: called at most once; no writes after it.
  Status Finish();

  const Schema& schema() const { return schema_; }
  // Bytes from the start of the output through the schema message, including
  // the 8-byte file magic for the file format.
  std::uint64_t schema_end() const { return schema_end_; }
  const std::vector<MessageBlock>& blocks() const { return blocks_; }
  std::uint64_t bytes_written() const { return sink_->position(); }

 private:
  IpcWriter(std::unique_ptr<ByteSink> sink, Schema schema, IpcWriteOptions options)
      : sink_(std::move(sink)), schema_(std::move(schema)), options_(options) {}
  Status Append(ByteView bytes);
  Status AppendZeros(std::uint64_t count);
  // Writes prefix, flatbuffer and padding; returns the metadata length.
  Result<std::uint32_t> AppendMetadata(ByteView flatbuffer);

  std::unique_ptr<ByteSink> sink_;
  Schema schema_;
  IpcWriteOptions options_;
  std::uint64_t schema_end_ = 0;
  std::vector<MessageBlock> blocks_;
  Status failed_;
  bool finished_ = false;
};

}  // namespace chunkwise::formats::arrow

#endif  // CHUNKWISE_FORMATS_ARROW_IPC_WRITER_H_
