// The Arrow schema of DVID export-shards files and the rows it holds.
//
// One row per DVID label block (docs/formats/arrow-ipc.md, "DVID export shards";
// docs/formats/dvid.md, "DVID's export format"): chunk_x/y/z int32, labels and
// supervoxels list<uint64> (child "item", nullable as pyarrow and Go make it),
// dvid_compressed_block binary with field metadata {"compression": "true",
// "codec": "zstd"}, uncompressed_size uint32; every top-level field
// non-nullable. `supervoxels` is the block's label palette in header order and
// `labels` the parallel mapped body IDs (may repeat and hold 0).
#ifndef CHUNKWISE_FORMATS_DVID_EXPORT_SHARD_SCHEMA_H_
#define CHUNKWISE_FORMATS_DVID_EXPORT_SHARD_SCHEMA_H_

#include <cstdint>
#include <string_view>
#include <vector>

#include "chunkwise/core/bytes.h"
#include "chunkwise/core/result.h"
#include "formats/arrow/record_batch.h"
#include "formats/arrow/schema.h"

namespace chunkwise::formats::dvid {

// Column positions in the schema.
enum ExportColumn : int {
  kChunkX = 0,
  kChunkY,
  kChunkZ,
  kLabels,
  kSupervoxels,
  kDvidCompressedBlock,
  kUncompressedSize,
  kExportColumnCount
};

// The schema, fields in the order above.
const arrow::Schema& ExportShardSchema();

// OK if `schema` has the export fields with their names, types and order
// (nullability, list child names and metadata are not compared, since DVID's
// Go writer and pyarrow differ there); else Corruption naming `name`.
Status CheckExportShardSchema(const arrow::Schema& schema, std::string_view name);

// One exported block.
struct ExportBlock {
  std::int32_t chunk_x = 0;
  std::int32_t chunk_y = 0;
  std::int32_t chunk_z = 0;
  std::vector<std::uint64_t> labels;
  std::vector<std::uint64_t> supervoxels;
  Bytes dvid_compressed_block;          // One zstd frame of the DVID block bytes.
  std::uint32_t uncompressed_size = 0;  // DVID block bytes before zstd.

  bool operator==(const ExportBlock&) const = default;
};

// Collects blocks column by column and hands out a RecordBatch viewing them.
// Not thread-safe; the batch is valid until the next Add or Clear.
class ExportBatchBuilder {
 public:
  ExportBatchBuilder();
  // InvalidArgument if labels and supervoxels differ in length or a column
  // would pass 2 GiB (Arrow's int32 offsets).
  Status Add(const ExportBlock& block);
  std::int64_t size() const { return static_cast<std::int64_t>(chunk_x_.size()); }
  void Clear();
  arrow::RecordBatch View() const;

 private:
  std::vector<std::int32_t> chunk_x_, chunk_y_, chunk_z_;
  std::vector<std::int32_t> labels_offsets_, supervoxels_offsets_, block_offsets_;
  std::vector<std::uint64_t> labels_, supervoxels_;
  Bytes blocks_;
  std::vector<std::uint32_t> uncompressed_size_;
};

// Row `row` of a batch read with a schema that passed CheckExportShardSchema.
// REQUIRES: row < batch.num_rows.
ExportBlock ExportBlockAt(const arrow::RecordBatch& batch, std::int64_t row);

}  // namespace chunkwise::formats::dvid

#endif  // CHUNKWISE_FORMATS_DVID_EXPORT_SHARD_SCHEMA_H_
