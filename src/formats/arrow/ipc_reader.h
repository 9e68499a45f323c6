// Readers of Arrow IPC files (random access through the footer) and streams
// (sequential), over a ByteSource that is read by ranges.
//
// Every flatbuffer is verified before use, every buffer must lie inside its
// message body, and every array is checked against the schema (lengths,
// offsets monotonic and in range) before it is handed out; errors are
// Corruption naming the source. Reads V4/V5 metadata, with or without the
// continuation word (pre-0.15 streams), and refuses what chunkwise does not
// model (other types, dictionaries, compressed bodies) as Unsupported.
// Prose: docs/formats/arrow-ipc.md. A reader is immutable after Open (the
// stream reader's position aside) and may be shared by threads for reads.
#ifndef CHUNKWISE_FORMATS_ARROW_IPC_READER_H_
#define CHUNKWISE_FORMATS_ARROW_IPC_READER_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "chunkwise/core/result.h"
#include "formats/arrow/byte_source.h"
#include "formats/arrow/ipc_format.h"
#include "formats/arrow/record_batch.h"
#include "formats/arrow/schema.h"

namespace chunkwise::formats::arrow {

// Whether the source starts with the file magic "ARROW1" (else it may be a stream).
Result<bool> IsArrowFile(const ByteSource& source);

// Reads the record batch message at `block` of `source`, decoded against `schema`.
// Used by the file reader and with DVID's offsets index (whose `size` is the
// whole message: pass it as metadata_length 0 and body_length `size`, and the
// split is taken from the message prefix).
Result<RecordBatch> ReadRecordBatchAt(const ByteSource& source, const Schema& schema,
                                      const MessageBlock& block);

// A record batch with where its body lies in the source, so that a caller can
// turn a value's view into a byte range of the file (reference sets do). The
// batch's buffers view `body` unless the body was compressed.
struct LocatedRecordBatch {
  RecordBatch batch;
  std::uint64_t body_offset = 0;  // Where the body starts in the source.
  ByteView body;                  // Kept alive by batch.owner.
};
// As ReadRecordBatchAt, also returning where the body is.
Result<LocatedRecordBatch> ReadLocatedRecordBatchAt(const ByteSource& source, const Schema& schema,
                                                    const MessageBlock& block);

// The row count of the record batch message at `block`, from its metadata
// alone (one range read of block.metadata_length bytes; the body is not read).
Result<std::int64_t> ReadRecordBatchLength(const ByteSource& source, const MessageBlock& block);

class IpcFileReader {
 public:
  // Reads the 8-byte header, the 10-byte trailer and the footer. Corruption
  // (naming the source) for a bad magic, a footer length out of range, a
  // footer that fails verification, or a block outside the data region.
  static Result<IpcFileReader> Open(std::shared_ptr<ByteSource> source);

  const Schema& schema() const { return schema_; }
  std::size_t num_record_batches() const { return blocks_.size(); }
  const MessageBlock& block(std::size_t i) const { return blocks_.at(i); }
  const ByteSource& source() const { return *source_; }

  // Batch i, read with one range read of its block. OutOfRange if i >= num_record_batches().
  Result<RecordBatch> ReadRecordBatch(std::size_t i) const;

 private:
  std::shared_ptr<ByteSource> source_;
  Schema schema_;
  std::vector<MessageBlock> blocks_;
};

class IpcStreamReader {
 public:
  // Reads the schema message at the start of `source`.
  static Result<IpcStreamReader> Open(std::shared_ptr<ByteSource> source);

  const Schema& schema() const { return schema_; }
  // The offset just past the schema message.
  std::uint64_t schema_end() const { return schema_end_; }

  // The next record batch, or nullopt at the end-of-stream marker or at the
  // end of the data. Corruption for a message cut short.
  Result<std::optional<RecordBatch>> Next();
  // The blocks of all remaining record batches, reading only message prefixes
  // and metadata (bodies are skipped); the position moves to the end.
  Result<std::vector<MessageBlock>> ScanRecordBatchBlocks();

 private:
  std::shared_ptr<ByteSource> source_;
  Schema schema_;
  std::uint64_t schema_end_ = 0;
  std::uint64_t position_ = 0;
  bool ended_ = false;
};

}  // namespace chunkwise::formats::arrow

#endif  // CHUNKWISE_FORMATS_ARROW_IPC_READER_H_
