// The CSV chunk index beside each export shard: chunk coordinate → record.
//
// Two forms (docs/formats/arrow-ipc.md, "DVID export shards"):
//   record form (the original design's, DVID through Sept 2025):   x,y,z,rec
//       rec = 0-based record batch number, one block per batch.
//   offsets form (DVID since late 2025):   # schema_size=N
//                                          x,y,z,offset,size,batch_idx
//       offset,size = byte range of the record-batch message in the .arrow
//       file, batch_idx = row within that batch; N = bytes before the first
//       batch that hold the schema (file format: including the 8-byte magic).
// x,y,z are global chunk coordinates (not voxels). The parser also accepts the
// offsets header without the comment line, and schema_size=0 (DVID's lazy
// writer; docs/formats/dvid.md, "DVID quirks not copied", 2), which readers
// resolve by parsing the schema message.
#ifndef CHUNKWISE_FORMATS_DVID_EXPORT_CHUNK_INDEX_H_
#define CHUNKWISE_FORMATS_DVID_EXPORT_CHUNK_INDEX_H_

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "chunkwise/core/result.h"

namespace chunkwise::formats::dvid {

enum class ChunkIndexForm { kRecord, kOffsets };

struct ChunkIndexRow {
  std::array<std::int32_t, 3> chunk{};  // x, y, z
  std::int64_t rec = 0;                 // Record form.
  std::uint64_t offset = 0;             // Offsets form.
  std::uint64_t size = 0;               // Offsets form.
  std::int64_t batch_idx = 0;           // Offsets form.

  bool operator==(const ChunkIndexRow&) const = default;
};

struct ChunkIndex {
  ChunkIndexForm form = ChunkIndexForm::kRecord;
  std::optional<std::uint64_t> schema_size;  // Offsets form, when the comment line is present.
  std::vector<ChunkIndexRow> rows;

  bool operator==(const ChunkIndex&) const = default;
};

// What the shard the index belongs to allows; unset limits are not checked.
struct ChunkIndexLimits {
  std::optional<std::int64_t> record_count;  // Record form: rec must be below it.
  std::optional<std::uint64_t> data_size;    // Offsets form: offset + size must not pass it.
};

// The CSV text: the comment line (offsets form with schema_size), the header,
// then one line per row in the order given, each ending in "\n".
std::string FormatChunkIndex(const ChunkIndex& index);

// Sorts rows by (z, y, x), the deterministic order chunkwise writes.
void SortChunkIndexRows(ChunkIndex& index);

// Parses either form. Corruption "<file_name>:<line>: ..." for an unknown
// header, a row with the wrong number of fields or a field that is not a
// decimal integer in range, a duplicate chunk coordinate, or a row outside
// `limits` (rec past the record count, a byte range past the data).
// Accepts "\r\n" line ends and a missing final newline.
Result<ChunkIndex> ParseChunkIndex(std::string_view text, std::string_view file_name,
                                   const ChunkIndexLimits& limits = {});

}  // namespace chunkwise::formats::dvid

#endif  // CHUNKWISE_FORMATS_DVID_EXPORT_CHUNK_INDEX_H_
