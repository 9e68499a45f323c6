// Thin POSIX file helpers for core/file_io and FileStore: an owning descriptor and loops that
// finish short reads and writes, each turning errno into a Status that names
// the path and the system's message.
#ifndef CHUNKWISE_SRC_CORE_POSIX_FILE_H_
#define CHUNKWISE_SRC_CORE_POSIX_FILE_H_

#include <sys/stat.h>

#include <cerrno>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string_view>

#include "chunkwise/core/bytes.h"
#include "chunkwise/core/result.h"

namespace chunkwise::core::posix {

// IOError "<action> <path>: <strerror(error)>" (NotFound for ENOENT).
Status ErrnoStatus(std::string_view action, const std::filesystem::path& path, int error);

// True for the errno values that mean "no such entry" along a path.
inline bool IsAbsent(int error) { return error == ENOENT || error == ENOTDIR; }

// An owned file descriptor, closed on destruction.
class Fd {
 public:
  explicit Fd(int fd = -1) : fd_(fd) {}
  Fd(Fd&& other) noexcept : fd_(other.Release()) {}
  Fd& operator=(Fd&& other) noexcept;
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  ~Fd() { Reset(); }

  int get() const { return fd_; }
  int Release() {
    const int fd = fd_;
    fd_ = -1;
    return fd;
  }
  void Reset();

 private:
  int fd_;
};

// An open regular file and its size at the time it was opened.
struct OpenedFile {
  Fd fd;
  std::uint64_t size = 0;
  struct stat info = {};  // fstat of fd when opened.
};

// Opens `path` for reading; nullopt if it does not exist or is a directory
// (then *is_directory, when given, is set); IOError for other non-files.
Result<std::optional<OpenedFile>> OpenForRead(const std::filesystem::path& path,
                                              bool* is_directory = nullptr);

// Opens a regular file for reading: NotFound naming `path` when absent,
// IOError "Is a directory" for a directory, IOError for other non-files.
Result<OpenedFile> OpenRegularFile(const std::filesystem::path& path);

// Fills `out` from `offset`, retrying short reads; IOError at an early end.
Status ReadAt(int fd, std::uint64_t offset, MutableByteView out, const std::filesystem::path& path);

// Writes all of `data`, retrying short writes.
Status WriteAll(int fd, ByteView data, const std::filesystem::path& path);

// Writes all of `data` at `offset` (pwrite), retrying short writes.
Status WriteAllAt(int fd, std::uint64_t offset, ByteView data, const std::filesystem::path& path);

// fsyncs a directory so that entries created or removed in it are durable;
// OK if the directory no longer exists.
Status SyncDirectory(const std::filesystem::path& path);

// stat(2) following links; nullopt if absent.
Result<std::optional<struct stat>> Stat(const std::filesystem::path& path);

}  // namespace chunkwise::core::posix

#endif  // CHUNKWISE_SRC_CORE_POSIX_FILE_H_
