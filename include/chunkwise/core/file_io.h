// Whole-file reads, atomic whole-file writes, and the rule for existing outputs.
//
// Every output chunkwise writes goes through a temporary sibling that is
// renamed into place when complete, so a crash or a kill never leaves a
// half-written file under the final name. Existing outputs are refused unless
// the caller passes overwrite (the CLI's --overwrite).
#ifndef CHUNKWISE_CORE_FILE_IO_H_
#define CHUNKWISE_CORE_FILE_IO_H_

#include <cstdint>
#include <filesystem>
#include <span>

#include "chunkwise/core/bytes.h"
#include "chunkwise/core/result.h"

namespace chunkwise::core {

// The whole file. NotFound if absent, IOError (with the path and the reason) otherwise.
Result<Bytes> ReadFile(const std::filesystem::path& path);

// Bytes [offset, offset + length) of the file; OutOfRange if past its end.
Result<Bytes> ReadFileRange(const std::filesystem::path& path, std::uint64_t offset,
                            std::uint64_t length);

struct AtomicWriteOptions {
  bool fsync = false;  // fsync the file before the rename and the directory after it.
};

// Writes `data` to a unique temporary sibling of `path`, then renames it over
// `path`. On failure the temporary is removed and `path` is untouched.
Status WriteFileAtomically(const std::filesystem::path& path, ByteView data,
                           const AtomicWriteOptions& options = {});
// The same for a value made of several parts (a header and a payload, say),
// written one after another without joining them first.
Status WriteFileAtomically(const std::filesystem::path& path, std::span<const ByteView> parts,
                           const AtomicWriteOptions& options = {});

// InvalidArgument naming `path` if it exists and `overwrite` is false.
Status CheckOutputPath(const std::filesystem::path& path, bool overwrite);

// A temporary sibling name for `path`, unique within this process and host:
// ".<name>.tmp.<pid>.<counter>". Temporaries start with "." and contain
// ".tmp." so that stores can skip them when listing.
std::filesystem::path TemporarySibling(const std::filesystem::path& path);

// True for names made by TemporarySibling.
bool IsTemporaryName(std::string_view file_name);

}  // namespace chunkwise::core

#endif  // CHUNKWISE_CORE_FILE_IO_H_
