// ArrowShardWriter: writes one export shard, `<stem>.arrow` and `<stem>.csv`.
//
// Each Add appends one record batch holding one block (as DVID does) and one
// index row. The .arrow is the Arrow IPC file format by default (the stream
// format on request, for byte-level parity with DVID consumers); the index is
// the original record form `x,y,z,rec` by default or DVID's offsets form, whose
// schema_size counts the bytes before the first batch (for the file format
// including the 8-byte magic; docs/formats/arrow-ipc.md, "DVID export shards").
// Rows are sorted by (z, y, x). Both are values of a store: the .arrow streams
// through Store::OpenWriter and the .csv is Set, each published whole on
// Finish, the .arrow first. Not thread-safe.
#ifndef CHUNKWISE_FORMATS_DVID_ARROW_SHARD_WRITER_H_
#define CHUNKWISE_FORMATS_DVID_ARROW_SHARD_WRITER_H_

#include <functional>
#include <memory>
#include <set>
#include <string>

#include "chunkwise/store/store.h"
#include "formats/arrow/ipc_writer.h"
#include "formats/dvid/export_chunk_index.h"
#include "formats/dvid/export_shard_schema.h"

namespace chunkwise::formats::dvid {

struct ArrowShardWriterOptions {
  arrow::IpcFormat format = arrow::IpcFormat::kFile;
  ChunkIndexForm index_form = ChunkIndexForm::kRecord;
  bool overwrite = false;  // Replace an existing .arrow or .csv.
};

class ArrowShardWriter {
 public:
  // Writes the keys `<stem_key>.arrow` and `<stem_key>.csv` of `store`.
  // InvalidArgument if one holds a value and !options.overwrite.
  static Result<std::unique_ptr<ArrowShardWriter>> Create(
      const std::shared_ptr<store::Store>& store, const std::string& stem_key,
      ArrowShardWriterOptions options = {});

  // Appends `block` as one record batch. InvalidArgument for a chunk already
  // added or a malformed block; IOError from the output.
  Status Add(const ExportBlock& block);
  // Writes the index and commits both outputs.
  Status Finish();

  std::size_t size() const { return index_.rows.size(); }
  // Bytes of the .arrow and, once finished, the .csv.
  std::uint64_t bytes_written() const { return writer_->bytes_written() + index_bytes_; }

 private:
  using IndexCommit = std::function<Status(const std::string& csv_text)>;
  ArrowShardWriter(std::unique_ptr<arrow::IpcWriter> writer, IndexCommit commit_index,
                   ChunkIndexForm form);

  std::unique_ptr<arrow::IpcWriter> writer_;
  IndexCommit commit_index_;
  ChunkIndex index_;
  std::uint64_t index_bytes_ = 0;
  std::set<std::array<std::int32_t, 3>> chunks_;
  ExportBatchBuilder builder_;
};

}  // namespace chunkwise::formats::dvid

#endif  // CHUNKWISE_FORMATS_DVID_ARROW_SHARD_WRITER_H_
