#include "chunkwise/core/file_io.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <string>
#include <utility>

namespace chunkwise::core {
namespace {

Status ErrnoStatus(std::string_view action, const std::filesystem::path& path, int error) {
  std::string message = std::string(action) + " " + path.string() + ": " + std::strerror(error);
  if (error == ENOENT) return Status::NotFound(std::move(message));
  return Status::IOError(std::move(message));
}

// Closes the descriptor on every return path.
class FileDescriptor {
 public:
  explicit FileDescriptor(int fd) : fd_(fd) {}
  FileDescriptor(const FileDescriptor&) = delete;
  FileDescriptor& operator=(const FileDescriptor&) = delete;
  ~FileDescriptor() {
    if (fd_ >= 0) ::close(fd_);
  }
  int get() const { return fd_; }
  int Release() { return std::exchange(fd_, -1); }

 private:
  int fd_;
};

Status ReadExactly(int fd, std::uint8_t* out, std::uint64_t length, std::uint64_t offset,
                   const std::filesystem::path& path) {
  std::uint64_t done = 0;
  while (done < length) {
    const ssize_t n = ::pread(fd, out + done, length - done, static_cast<off_t>(offset + done));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return ErrnoStatus("reading", path, errno);
    if (n == 0) return Status::OutOfRange("reading " + path.string() + ": file ended early");
    done += static_cast<std::uint64_t>(n);
  }
  return Status::Ok();
}

Status WriteAll(int fd, ByteView data, const std::filesystem::path& path) {
  std::size_t done = 0;
  while (done < data.size()) {
    const ssize_t n = ::write(fd, data.data() + done, data.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return ErrnoStatus("writing", path, errno);
    done += static_cast<std::size_t>(n);
  }
  return Status::Ok();
}

Status SyncDirectory(const std::filesystem::path& directory) {
  FileDescriptor fd(::open(directory.empty() ? "." : directory.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (fd.get() < 0) return ErrnoStatus("opening directory", directory, errno);
  if (::fsync(fd.get()) != 0) return ErrnoStatus("syncing directory", directory, errno);
  return Status::Ok();
}

}  // namespace

Result<Bytes> ReadFile(const std::filesystem::path& path) {
  FileDescriptor fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (fd.get() < 0) return ErrnoStatus("opening", path, errno);
  struct stat info {};
  if (::fstat(fd.get(), &info) != 0) return ErrnoStatus("reading size of", path, errno);
  if (S_ISDIR(info.st_mode)) return Status::InvalidArgument(path.string() + " is a directory, not a file");
  Bytes data(static_cast<std::size_t>(info.st_size));
  CHUNKWISE_RETURN_IF_ERROR(ReadExactly(fd.get(), data.data(), data.size(), 0, path));
  return data;
}

Result<Bytes> ReadFileRange(const std::filesystem::path& path, std::uint64_t offset,
                            std::uint64_t length) {
  FileDescriptor fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (fd.get() < 0) return ErrnoStatus("opening", path, errno);
  struct stat info {};
  if (::fstat(fd.get(), &info) != 0) return ErrnoStatus("reading size of", path, errno);
  const auto size = static_cast<std::uint64_t>(info.st_size);
  if (offset > size || length > size - offset) {
    return Status::OutOfRange("reading " + path.string() + ": bytes [" + std::to_string(offset) + ", " +
                              std::to_string(offset + length) + ") lie past its end (" +
                              std::to_string(size) + " bytes)");
  }
  Bytes data(static_cast<std::size_t>(length));
  CHUNKWISE_RETURN_IF_ERROR(ReadExactly(fd.get(), data.data(), length, offset, path));
  return data;
}

std::filesystem::path TemporarySibling(const std::filesystem::path& path) {
  static std::atomic<std::uint64_t> counter{0};
  std::string name = "." + path.filename().string() + ".tmp." + std::to_string(::getpid()) + "." +
                     std::to_string(counter.fetch_add(1));
  return path.parent_path() / name;
}

bool IsTemporaryName(std::string_view file_name) {
  return file_name.starts_with('.') && file_name.find(".tmp.") != std::string_view::npos;
}

Status WriteFileAtomically(const std::filesystem::path& path, ByteView data,
                           const AtomicWriteOptions& options) {
  const std::filesystem::path temporary = TemporarySibling(path);
  FileDescriptor fd(::open(temporary.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644));
  if (fd.get() < 0) return ErrnoStatus("creating", temporary, errno);
  Status status = WriteAll(fd.get(), data, temporary);
  if (status.ok() && options.fsync && ::fsync(fd.get()) != 0) status = ErrnoStatus("syncing", temporary, errno);
  if (::close(fd.Release()) != 0 && status.ok()) status = ErrnoStatus("closing", temporary, errno);
  if (status.ok() && ::rename(temporary.c_str(), path.c_str()) != 0) {
    status = ErrnoStatus("renaming into place", path, errno);
  }
  if (!status.ok()) {
    ::unlink(temporary.c_str());
    return status;
  }
  if (options.fsync) return SyncDirectory(path.parent_path());
  return Status::Ok();
}

Status CheckOutputPath(const std::filesystem::path& path, bool overwrite) {
  std::error_code error;
  if (!overwrite && std::filesystem::exists(path, error)) {
    return Status::InvalidArgument(path.string() + " already exists (pass --overwrite to replace it)");
  }
  return Status::Ok();
}

}  // namespace chunkwise::core
