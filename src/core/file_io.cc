#include "chunkwise/core/file_io.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <string>
#include <utility>

#include "core/posix_file.h"

namespace chunkwise::core {
namespace {

// Keeps a temporary name under NAME_MAX (255) whatever the target's length.
constexpr std::size_t kMaxNameInTemporary = 200;

bool AllDigits(std::string_view text) {
  return !text.empty() &&
         std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
}

}  // namespace

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

std::filesystem::path TemporarySibling(const std::filesystem::path& path) {
  // The counter is process-wide, so two writers of one path in one process
  // never share a temporary file.
  static std::atomic<std::uint64_t> counter{0};
  const std::string name = path.filename().string().substr(0, kMaxNameInTemporary);
  return path.parent_path() / ("." + name + ".tmp." + std::to_string(::getpid()) + "." +
                               std::to_string(counter.fetch_add(1, std::memory_order_relaxed)));
}

bool IsTemporaryName(std::string_view name) {
  if (!name.starts_with('.')) return false;
  const std::size_t counter_dot = name.rfind('.');
  if (counter_dot == 0 || !AllDigits(name.substr(counter_dot + 1))) return false;
  const std::size_t pid_dot = name.rfind('.', counter_dot - 1);  // Never npos: name[0] is a dot.
  if (!AllDigits(name.substr(pid_dot + 1, counter_dot - pid_dot - 1))) return false;
  const std::string_view head = name.substr(0, pid_dot);  // ".<name>.tmp"
  return head.size() >= 6 && head.ends_with(".tmp");
}

Status WriteFileAtomically(const std::filesystem::path& path, ByteView data,
                           const AtomicWriteOptions& options) {
  const ByteView parts[] = {data};
  return WriteFileAtomically(path, parts, options);
}

Status WriteFileAtomically(const std::filesystem::path& path, std::span<const ByteView> parts,
                           const AtomicWriteOptions& options) {
  const std::filesystem::path temporary = TemporarySibling(path);
  posix::Fd fd(::open(temporary.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644));
  if (fd.get() < 0) return posix::ErrnoStatus("create", temporary, errno);
  Status status;
  for (std::size_t i = 0; i < parts.size() && status.ok(); ++i) {
    status = posix::WriteAll(fd.get(), parts[i], temporary);
  }
  if (status.ok() && options.fsync && ::fsync(fd.get()) != 0)
    status = posix::ErrnoStatus("fsync", temporary, errno);
  if (::close(fd.Release()) != 0 && status.ok())
    status = posix::ErrnoStatus("close", temporary, errno);
  if (status.ok() && ::rename(temporary.c_str(), path.c_str()) != 0) {
    status = posix::ErrnoStatus("rename into place", path, errno);
  }
  if (!status.ok()) {
    ::unlink(temporary.c_str());
    return status;
  }
  if (options.fsync)
    return posix::SyncDirectory(path.parent_path().empty() ? "." : path.parent_path());
  return Status::Ok();
}

Status CheckOutputPath(const std::filesystem::path& path, bool overwrite) {
  std::error_code error;
  if (!overwrite && std::filesystem::exists(path, error)) {
    return Status::InvalidArgument(path.string() +
                                   " already exists (pass --overwrite to replace it)");
  }
  return Status::Ok();
}

}  // namespace chunkwise::core
