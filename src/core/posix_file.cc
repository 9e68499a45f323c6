#include "core/posix_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <string>
#include <system_error>

namespace chunkwise::core::posix {

Status ErrnoStatus(std::string_view action, const std::filesystem::path& path, int error) {
  std::string message(action);
  message += ' ';
  message += path.string();
  message += ": ";
  // std::generic_category is thread-safe, unlike strerror.
  message += std::error_code(error, std::generic_category()).message();
  return error == ENOENT ? Status::NotFound(std::move(message))
                         : Status::IOError(std::move(message));
}

Fd& Fd::operator=(Fd&& other) noexcept {
  if (this != &other) {
    Reset();
    fd_ = other.Release();
  }
  return *this;
}

void Fd::Reset() {
  // close(2) errors on a read-only or already-synced descriptor carry no
  // information we can act on; writers check fsync and rename instead.
  if (fd_ >= 0) {
    ::close(fd_);
  }
  fd_ = -1;
}

Result<std::optional<OpenedFile>> OpenForRead(const std::filesystem::path& path,
                                              bool* is_directory) {
  // O_NONBLOCK keeps a FIFO planted in the tree from blocking the open; it
  // has no effect on regular files.
  Fd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK));
  if (fd.get() < 0) {
    const int error = errno;
    if (IsAbsent(error)) {
      return std::optional<OpenedFile>();
    }
    return ErrnoStatus("open", path, error);
  }
  struct stat info;
  if (::fstat(fd.get(), &info) != 0) {
    return ErrnoStatus("fstat", path, errno);
  }
  if (S_ISDIR(info.st_mode)) {
    if (is_directory != nullptr) *is_directory = true;
    return std::optional<OpenedFile>();
  }
  if (!S_ISREG(info.st_mode)) {
    return Status::IOError("open " + path.string() + ": not a regular file");
  }
  return std::optional<OpenedFile>(
      OpenedFile{std::move(fd), static_cast<std::uint64_t>(info.st_size), info});
}

Result<OpenedFile> OpenRegularFile(const std::filesystem::path& path) {
  CHUNKWISE_ASSIGN_OR_RETURN(std::optional<OpenedFile> opened, OpenForRead(path));
  if (opened) return std::move(*opened);
  std::error_code error;
  const std::filesystem::file_status status = std::filesystem::status(path, error);
  if (error) return ErrnoStatus("open", path, error.value());
  return ErrnoStatus("open", path, std::filesystem::is_directory(status) ? EISDIR : ENOENT);
}

Status ReadAt(int fd, std::uint64_t offset, MutableByteView out,
              const std::filesystem::path& path) {
  std::size_t done = 0;
  while (done < out.size()) {
    const ssize_t got =
        ::pread(fd, out.data() + done, out.size() - done, static_cast<off_t>(offset + done));
    if (got < 0) {
      if (errno == EINTR) {
        continue;
      }
      return ErrnoStatus("read", path, errno);
    }
    if (got == 0) {
      return Status::IOError("read " + path.string() + ": file ended at byte " +
                             std::to_string(offset + done) + ", expected " +
                             std::to_string(offset + out.size()) + " (was it modified in place?)");
    }
    done += static_cast<std::size_t>(got);
  }
  return Status::Ok();
}

// The most one write(2) is given. Linux 6.x sizes new page-cache folios by
// the write's length (ext4 since 6.16), and on our VMs a write of tens of MiB
// then spends its time allocating large folios: streaming 2.8 GB of shards in
// 11 MB writes took 4–8 s of system time, in 1 MiB writes 1.1–1.8 s, at
// 1.5–1.8× the throughput (stream_bench --only file). 256 KiB–1 MiB were
// equally good; 2 MiB and above were slow.
constexpr std::size_t kMaxWriteBytes = std::size_t{1} << 20;

// Hands `data` to `write_piece(begin, size, done)` (a write(2) or pwrite(2)
// of at most kMaxWriteBytes) until all of it is written, retrying on EINTR.
template <typename WritePiece>
Status WriteInPieces(ByteView data, const std::filesystem::path& path, WritePiece write_piece) {
  std::size_t done = 0;
  while (done < data.size()) {
    const ssize_t wrote =
        write_piece(data.data() + done, std::min(data.size() - done, kMaxWriteBytes), done);
    if (wrote < 0) {
      if (errno == EINTR) {
        continue;
      }
      return ErrnoStatus("write", path, errno);
    }
    done += static_cast<std::size_t>(wrote);
  }
  return Status::Ok();
}

Status WriteAll(int fd, ByteView data, const std::filesystem::path& path) {
  return WriteInPieces(data, path, [fd](const std::uint8_t* begin, std::size_t size, std::size_t) {
    return ::write(fd, begin, size);
  });
}

Status WriteAllAt(int fd, std::uint64_t offset, ByteView data, const std::filesystem::path& path) {
  return WriteInPieces(data, path,
                       [fd, offset](const std::uint8_t* begin, std::size_t size, std::size_t done) {
                         return ::pwrite(fd, begin, size, static_cast<off_t>(offset + done));
                       });
}

Status SyncDirectory(const std::filesystem::path& path) {
  Fd fd(::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (fd.get() < 0) {
    const int error = errno;
    // A concurrent Erase pruned it: the entry we meant to make durable has
    // been removed since, and syncing that removal is not our job.
    if (IsAbsent(error)) {
      return Status::Ok();
    }
    return ErrnoStatus("open directory", path, error);
  }
  if (::fsync(fd.get()) != 0) {
    return ErrnoStatus("fsync directory", path, errno);
  }
  return Status::Ok();
}

Result<std::optional<struct stat>> Stat(const std::filesystem::path& path) {
  struct stat info;
  if (::stat(path.c_str(), &info) != 0) {
    const int error = errno;
    if (IsAbsent(error)) {
      return std::optional<struct stat>();
    }
    return ErrnoStatus("stat", path, error);
  }
  return std::optional<struct stat>(info);
}

}  // namespace chunkwise::core::posix
