// ArrowShardReader: one export shard (`<stem>.arrow` + `<stem>.csv`), read by chunk coordinate.
//
// Opens the .arrow file by ranges (file format: trailer and footer; stream
// format: the schema message) and parses the CSV index in either form
// (export_chunk_index.h). A lookup reads only the one record batch that holds
// the chunk: through the footer's Block for the record form on a file, by the
// CSV's byte range for the offsets form (file or stream, as DVID writes), or
// through a one-time scan of message headers for the record form on a stream.
// `rec` numbers record batches (one block per batch, as DVID and chunkwise
// write); if some rec is at or past the batch count, the shard holds batches
// of several rows and rec numbers rows across them, found through the batch
// lengths read from each message's metadata at open. An offsets row whose range
// starts inside the schema message (DVID's `schema_size=0` output, whose first
// range begins at 0 and includes the schema; docs/formats/dvid.md, "DVID quirks
// not copied", 2) is read from the end of the schema message. The row read must
// carry the requested coordinates, so an index that disagrees with its data is
// reported, never followed silently. Immutable after Open; Get may be called
// from several threads.
#ifndef CHUNKWISE_FORMATS_DVID_ARROW_SHARD_READER_H_
#define CHUNKWISE_FORMATS_DVID_ARROW_SHARD_READER_H_

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "chunkwise/store/store.h"
#include "formats/arrow/byte_source.h"
#include "formats/arrow/ipc_format.h"
#include "formats/arrow/schema.h"
#include "formats/dvid/export_chunk_index.h"
#include "formats/dvid/export_shard_schema.h"

namespace chunkwise::formats::dvid {

struct ArrowShardOpenOptions {
  // Read the whole .arrow value in one request and serve every block from
  // memory: for callers that read most of a shard's blocks from an object
  // store, where one request per block costs more than the bytes.
  bool read_whole = false;
};

class ArrowShardReader {
 public:
  // `arrow_key` (ending in ".arrow") names the shard in `store`; the index is
  // the .csv with the same stem. NotFound if either is missing; Corruption
  // (naming the key) if the .arrow is not an export shard or the index is
  // malformed or points past the data.
  static Result<ArrowShardReader> Open(std::shared_ptr<const store::Store> store,
                                       std::string_view arrow_key,
                                       const ArrowShardOpenOptions& options = {});

  bool is_file_format() const { return is_file_format_; }
  const ChunkIndex& index() const { return index_; }
  std::size_t num_record_batches() const { return blocks_.size(); }
  // Chunk coordinates in index order.
  std::vector<std::array<std::int32_t, 3>> ListChunks() const;

  // Where chunk (x, y, z)'s dvid_compressed_block value lies in the .arrow
  // file (for reference sets), or nullopt if the index does not list it.
  // Checked as Get checks; Unsupported if the batch body is compressed.
  struct BlockByteRange {
    std::uint64_t offset = 0;
    std::uint64_t length = 0;
    std::uint32_t uncompressed_size = 0;
  };
  Result<std::optional<BlockByteRange>> LocateCompressedBlock(std::int32_t x, std::int32_t y,
                                                              std::int32_t z) const;

  // The block at chunk (x, y, z), or nullopt if the index does not list it.
  Result<std::optional<ExportBlock>> Get(std::int32_t x, std::int32_t y, std::int32_t z) const;

 private:
  static Result<ArrowShardReader> OpenFrom(std::shared_ptr<arrow::ByteSource> source,
                                           std::string_view csv_text, const std::string& csv_name);
  // The message holding `row` and the row's position within that batch.
  std::pair<arrow::MessageBlock, std::int64_t> Locate(const ChunkIndexRow& row) const;
  Status CountRows();

  std::shared_ptr<arrow::ByteSource> source_;
  bool is_file_format_ = false;
  arrow::Schema schema_;
  std::vector<arrow::MessageBlock> blocks_;  // Record batches, in file order.
  std::vector<std::int64_t> row_starts_;     // First row of each batch, when rec numbers rows.
  std::uint64_t schema_end_ = 0;             // Streams: the offset just past the schema message.
  ChunkIndex index_;
  std::map<std::array<std::int32_t, 3>, std::size_t> rows_;  // chunk → index row
};

}  // namespace chunkwise::formats::dvid

#endif  // CHUNKWISE_FORMATS_DVID_ARROW_SHARD_READER_H_
