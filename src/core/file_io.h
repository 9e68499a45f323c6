// Whole-file and ranged reads of files by path. Writing is the file store's
// (store/file_store.h: a temporary sibling renamed into place, the one such
// writer in the library); files by path are written through it by io/file.h.
#ifndef CHUNKWISE_CORE_FILE_IO_H_
#define CHUNKWISE_CORE_FILE_IO_H_

#include <cstdint>
#include <filesystem>

#include "chunkwise/core/bytes.h"
#include "chunkwise/core/result.h"

namespace chunkwise::core {

// The whole file. NotFound if absent, IOError (with the path and the reason) otherwise.
Result<Bytes> ReadFile(const std::filesystem::path& path);

// Bytes [offset, offset + length) of the file; OutOfRange if past its end.
Result<Bytes> ReadFileRange(const std::filesystem::path& path, std::uint64_t offset,
                            std::uint64_t length);

}  // namespace chunkwise::core

#endif  // CHUNKWISE_CORE_FILE_IO_H_
