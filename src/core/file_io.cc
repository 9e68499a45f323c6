#include "core/file_io.h"

#include <string>

#include "core/posix_file.h"

namespace chunkwise::core {

Result<Bytes> ReadFile(const std::filesystem::path& path) {
  CHUNKWISE_ASSIGN_OR_RETURN(posix::OpenedFile file, posix::OpenRegularFile(path));
  Bytes data(static_cast<std::size_t>(file.size));
  CHUNKWISE_RETURN_IF_ERROR(posix::ReadAt(file.fd.get(), 0, data, path));
  return data;
}

Result<Bytes> ReadFileRange(const std::filesystem::path& path, std::uint64_t offset,
                            std::uint64_t length) {
  CHUNKWISE_ASSIGN_OR_RETURN(posix::OpenedFile file, posix::OpenRegularFile(path));
  const std::uint64_t size = file.size;
  if (offset > size || length > size - offset) {
    return Status::OutOfRange("reading " + path.string() + ": bytes [" + std::to_string(offset) +
                              ", " + std::to_string(offset + length) + ") lie past its end (" +
                              std::to_string(size) + " bytes)");
  }
  Bytes data(static_cast<std::size_t>(length));
  CHUNKWISE_RETURN_IF_ERROR(posix::ReadAt(file.fd.get(), offset, data, path));
  return data;
}

}  // namespace chunkwise::core
