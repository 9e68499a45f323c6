// Supervoxel → label mapping files: DVID's binary pairs and CSV.
//
// Binary: what DVID's `GET /mappings?format=binary` returns — consecutive
// pairs of little-endian u64 (supervoxel, label), 16 bytes each, nothing
// else. CSV: one "supervoxel,label" pair per line (commas, spaces or tabs
// between), an optional header line of words, blank lines and '#' comments
// allowed. Functions are thread-compatible.
#ifndef CHUNKWISE_IO_MAPPING_FILE_H_
#define CHUNKWISE_IO_MAPPING_FILE_H_

#include <cstdint>
#include <filesystem>
#include <span>
#include <string_view>
#include <vector>

#include "chunkwise/core/bytes.h"
#include "chunkwise/core/result.h"

namespace chunkwise::io {

enum class MappingFileFormat { kAuto, kBinary, kCsv };

// One supervoxel → label pair of a file; label 0 marks a split supervoxel.
struct LabelPair {
  std::uint64_t supervoxel = 0;
  std::uint64_t label = 0;
  bool operator==(const LabelPair&) const = default;
};

// Corruption naming `name` if the size is not a multiple of 16.
Result<std::vector<LabelPair>> ParseMappingPairs(ByteView bytes, std::string_view name);
// Corruption naming `name` and the line for anything but two unsigned
// 64-bit decimal integers on a data line.
Result<std::vector<LabelPair>> ParseMappingCsv(std::string_view text, std::string_view name);
// Reads `path`; kAuto picks CSV for a ".csv" or ".txt" extension, else binary.
Result<std::vector<LabelPair>> ReadMappingFile(const std::filesystem::path& path,
                                               MappingFileFormat format);
// The binary pairs form of `pairs`.
Bytes SerializeMappingPairs(std::span<const LabelPair> pairs);

}  // namespace chunkwise::io

#endif  // CHUNKWISE_IO_MAPPING_FILE_H_
