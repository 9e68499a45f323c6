// CSV tables on disk: the file side of core/csv.h, which holds the format.
#ifndef CHUNKWISE_IO_CSV_FILE_H_
#define CHUNKWISE_IO_CSV_FILE_H_

#include <filesystem>

#include "chunkwise/core/csv.h"
#include "chunkwise/core/result.h"

namespace chunkwise::io {

// True when `path` ends in ".csv" (any case).
bool HasCsvExtension(const std::filesystem::path& path);

// Reads and parses the file at `path`; errors as core::ReadFile and core::ParseCsv.
Result<core::NpyArray> ReadCsv(const std::filesystem::path& path);

// Writes core::FormatCsv(array) to `path` atomically (io/file.h).
Status WriteCsv(const std::filesystem::path& path, const core::NpyArray& array);

}  // namespace chunkwise::io

#endif  // CHUNKWISE_IO_CSV_FILE_H_
