#include "chunkwise/store/file_store.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <ctime>
#include <limits>
#include <memory>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <string>
#include <system_error>

#include "core/posix_file.h"
#include "store/file_descriptor_of.h"
#include "store/key.h"

namespace chunkwise::store {
namespace {

namespace fs = std::filesystem;
namespace posix = core::posix;

// Keeps a temporary name under NAME_MAX (255) whatever the target's length.
constexpr std::size_t kMaxNameInTemporary = 200;

bool AllDigits(std::string_view text) {
  return !text.empty() &&
         std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// A temporary sibling name for `path`, unique within this process and host:
// ".<name>.tmp.<pid>.<counter>". It starts with "." and holds ".tmp." so
// that List can skip it (IsTemporaryName).
fs::path TemporarySibling(const fs::path& path) {
  // The counter is process-wide, so two writers of one path in one process
  // never share a temporary file.
  static std::atomic<std::uint64_t> counter{0};
  const std::string name = path.filename().string().substr(0, kMaxNameInTemporary);
  return path.parent_path() / ("." + name + ".tmp." + std::to_string(::getpid()) + "." +
                               std::to_string(counter.fetch_add(1, std::memory_order_relaxed)));
}

// A concurrent Erase may prune the directory a Set is about to write into;
// the Set then recreates it. More rounds than this means something else is
// deleting the tree on purpose.
constexpr int kMaxSetAttempts = 8;

// Creates every directory from the root down to `dir`, tolerating ones that
// already exist. The new directories go into `created`.
Status MakeDirectories(const fs::path& root, const fs::path& dir, std::vector<fs::path>* created) {
  fs::path current = root;
  for (const fs::path& segment : dir.lexically_relative(root)) {
    current /= segment;
    if (::mkdir(current.c_str(), 0777) == 0) {
      created->push_back(current);
    } else if (const int error = errno; error != EEXIST) {
      return posix::ErrnoStatus("create directory", current, error);
    }
  }
  return Status::Ok();
}

// Opens a fresh temporary file beside `target`, creating the parent
// directories when they are missing.
Result<posix::Fd> CreateTemporary(const fs::path& root, const fs::path& target, fs::path* temporary,
                                  std::vector<fs::path>* created) {
  const fs::path parent = target.parent_path();
  for (int attempt = 1;; ++attempt) {
    *temporary = TemporarySibling(target);
    posix::Fd fd(::open(temporary->c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666));
    if (fd.get() >= 0) {
      return fd;
    }
    const int error = errno;
    if (error != ENOENT || attempt == kMaxSetAttempts) {
      return posix::ErrnoStatus("create", *temporary, error);
    }
    if (Status status = MakeDirectories(root, parent, created);
        !status.ok() && (status.code() != StatusCode::kNotFound || attempt == kMaxSetAttempts)) {
      return status;
    }
  }
}

// Writes `value` to the open temporary file and renames it over `target`.
Status Commit(posix::Fd fd, std::span<const ByteView> parts, const fs::path& temporary,
              const fs::path& target, FsyncPolicy fsync) {
  for (ByteView part : parts) CHUNKWISE_RETURN_IF_ERROR(posix::WriteAll(fd.get(), part, temporary));
  if (fsync != FsyncPolicy::kNone && ::fsync(fd.get()) != 0) {
    return posix::ErrnoStatus("fsync", temporary, errno);
  }
  // Unlike close on a read descriptor, a failed close after writing can be
  // the first report of a lost write (NFS), so it fails the Set.
  if (::close(fd.Release()) != 0) {
    return posix::ErrnoStatus("close", temporary, errno);
  }
  if (::rename(temporary.c_str(), target.c_str()) != 0) {
    const int error = errno;
    return posix::ErrnoStatus("rename " + temporary.string() + " to", target, error);
  }
  return Status::Ok();
}

// Makes the new entry for `target` and any directories created for it durable.
Status SyncEntries(const fs::path& target, const std::vector<fs::path>& created) {
  CHUNKWISE_RETURN_IF_ERROR(posix::SyncDirectory(target.parent_path()));
  for (const fs::path& dir : created) {
    CHUNKWISE_RETURN_IF_ERROR(posix::SyncDirectory(dir.parent_path()));
  }
  return Status::Ok();
}

}  // namespace

// Set holds the mutex shared from creating directories until its temporary
// file exists (a directory holding a file cannot be pruned); pruning holds it
// exclusively. So, within this process, a Set never loses its directory to a
// concurrent Erase or abandoned writer. Other processes fall back on Set's retry.
class ValueDirectories {
 public:
  explicit ValueDirectories(fs::path root) : root_(std::move(root)) {}

  std::shared_lock<std::shared_mutex> KeepWhileCreating() { return std::shared_lock(mutex_); }

  // Removes the empty directories above `removed`, a file just unlinked, up
  // to the root. Best effort: rmdir fails harmlessly on a directory that
  // still holds entries (or a concurrent Set's temporary file), which ends
  // the walk.
  void PruneAbove(const fs::path& removed) {
    std::unique_lock no_set_between_mkdir_and_create(mutex_);
    const std::size_t root_length = root_.native().size();
    for (fs::path dir = removed.parent_path(); dir.native().size() > root_length;
         dir = dir.parent_path()) {
      if (::rmdir(dir.c_str()) != 0) return;
    }
  }

  // Drops a temporary file that will never be renamed, and the directories
  // made for it that are now empty: a failed output leaves nothing behind.
  void Discard(const fs::path& temporary) {
    if (::unlink(temporary.c_str()) == 0) PruneAbove(temporary);
  }

 private:
  fs::path root_;
  std::shared_mutex mutex_;
};

namespace {

// A value streamed into a temporary file; Commit renames it into place and
// dropping the writer first removes it.
class FileValueWriter final : public ValueWriter {
 public:
  FileValueWriter(posix::Fd fd, fs::path temporary, fs::path target, std::vector<fs::path> created,
                  FsyncPolicy fsync, std::shared_ptr<ValueDirectories> directories)
      : directories_(std::move(directories)),
        fd_(std::move(fd)),
        temporary_(std::move(temporary)),
        target_(std::move(target)),
        created_(std::move(created)),
        fsync_(fsync) {}
  ~FileValueWriter() override {
    if (!committed_) {
      fd_ = posix::Fd();
      directories_->Discard(temporary_);
    }
  }

  Status Append(ByteView data) override {
    CHUNKWISE_RETURN_IF_ERROR(CheckOpen());
    CHUNKWISE_RETURN_IF_ERROR(posix::WriteAll(fd_.get(), data, temporary_));
    size_ += data.size();
    return Status::Ok();
  }
  Status Overwrite(std::uint64_t offset, ByteView data) override {
    CHUNKWISE_RETURN_IF_ERROR(CheckOpen());
    CHUNKWISE_RETURN_IF_ERROR(CheckOverwriteRange(offset, data.size(), size_, target_.string()));
    return posix::WriteAllAt(fd_.get(), offset, data, temporary_);
  }
  Status Commit() override {
    CHUNKWISE_RETURN_IF_ERROR(CheckOpen());
    CHUNKWISE_RETURN_IF_ERROR(store::Commit(std::move(fd_), {}, temporary_, target_, fsync_));
    committed_ = true;
    if (fsync_ == FsyncPolicy::kFileAndDirectory) return SyncEntries(target_, created_);
    return Status::Ok();
  }
  std::uint64_t size() const override { return size_; }

 private:
  Status CheckOpen() const {
    if (committed_ || fd_.get() < 0) {
      return Status::InvalidArgument(target_.string() + ": the value is already committed");
    }
    return Status::Ok();
  }

  std::shared_ptr<ValueDirectories> directories_;
  posix::Fd fd_;
  fs::path temporary_;
  fs::path target_;
  std::vector<fs::path> created_;
  FsyncPolicy fsync_;
  std::uint64_t size_ = 0;
  bool committed_ = false;
};

// Reads one open file: the inode it was opened on, whatever replaces or
// removes the path meanwhile.
class FileValueReader final : public ValueReader {
 public:
  FileValueReader(posix::Fd fd, std::uint64_t size, Generation generation, fs::path path)
      : fd_(std::move(fd)),
        size_(size),
        generation_(std::move(generation)),
        path_(std::move(path)) {}

  std::uint64_t size() const override { return size_; }
  bool pinned() const override { return true; }
  std::optional<Generation> generation() const override { return generation_; }
  int file_descriptor() const { return fd_.get(); }

  // Ranges that follow one another in the file are read with one pread (a
  // shard's chunks written in order: one read per shard).
  Status ReadInto(std::span<const ByteRange> ranges, MutableByteView out) const override {
    CHUNKWISE_RETURN_IF_ERROR(CheckRangesFill(ranges, out.size(), path_.string()));
    std::size_t at = 0;  // Where the pending run starts in `out`.
    std::uint64_t run_offset = 0, run_length = 0;
    for (const ByteRange& range : ranges) {
      CHUNKWISE_ASSIGN_OR_RETURN(ByteRange resolved, range.Resolve(size_, path_.string()));
      if (run_length > 0 && resolved.offset != run_offset + run_length) {
        CHUNKWISE_RETURN_IF_ERROR(
            posix::ReadAt(fd_.get(), run_offset, out.subspan(at, run_length), path_));
        at += run_length;
        run_length = 0;
      }
      if (run_length == 0) run_offset = resolved.offset;
      run_length += resolved.length;
    }
    if (run_length == 0) return Status::Ok();
    return posix::ReadAt(fd_.get(), run_offset, out.subspan(at, run_length), path_);
  }

 private:
  posix::Fd fd_;
  std::uint64_t size_;
  Generation generation_;
  fs::path path_;
};

// An open directory stream, closed on destruction.
struct DirCloser {
  void operator()(DIR* dir) const { ::closedir(dir); }
};
using DirPtr = std::unique_ptr<DIR, DirCloser>;

enum class EntryKind { kFile, kDirectory, kOther };

// The kind of `name` in `dir`: a link to a file counts as a file; a link to
// a directory counts as kOther so that List cannot loop through a cycle.
EntryKind KindOf(DIR* dir, const dirent& entry) {
  struct stat info;
  if (entry.d_type == DT_REG) {
    return EntryKind::kFile;
  }
  if (entry.d_type == DT_DIR) {
    return EntryKind::kDirectory;
  }
  if (entry.d_type == DT_LNK) {
    return ::fstatat(::dirfd(dir), entry.d_name, &info, 0) == 0 && S_ISREG(info.st_mode)
               ? EntryKind::kFile
               : EntryKind::kOther;
  }
  if (::fstatat(::dirfd(dir), entry.d_name, &info, AT_SYMLINK_NOFOLLOW) != 0) {
    return EntryKind::kOther;  // Removed since readdir: not there to list.
  }
  if (S_ISLNK(info.st_mode)) {
    return ::fstatat(::dirfd(dir), entry.d_name, &info, 0) == 0 && S_ISREG(info.st_mode)
               ? EntryKind::kFile
               : EntryKind::kOther;
  }
  return S_ISREG(info.st_mode)   ? EntryKind::kFile
         : S_ISDIR(info.st_mode) ? EntryKind::kDirectory
                                 : EntryKind::kOther;
}

// Appends to `keys` every key under directory `path` (whose keys start with
// `dir_key`, "" or ending in "/") that starts with `prefix`.
Status ListDirectory(const fs::path& path, const std::string& dir_key, std::string_view prefix,
                     std::vector<std::string>* keys) {
  DirPtr dir(::opendir(path.c_str()));
  if (dir == nullptr) {
    // A directory removed by a concurrent Erase holds no keys.
    const int error = errno;
    return posix::IsAbsent(error) ? Status::Ok()
                                  : posix::ErrnoStatus("open directory", path, error);
  }
  errno = 0;
  while (const dirent* entry = ::readdir(dir.get())) {
    const std::string_view name = entry->d_name;
    if (name == "." || name == ".." || FileStore::IsTemporaryName(name)) {
      continue;
    }
    const std::string key = dir_key + std::string(name);
    const EntryKind kind = KindOf(dir.get(), *entry);
    if (kind == EntryKind::kDirectory) {
      const std::string child_key = key + "/";
      if (child_key.starts_with(prefix) || prefix.starts_with(child_key)) {
        CHUNKWISE_RETURN_IF_ERROR(ListDirectory(path / fs::path(name), child_key, prefix, keys));
      }
    } else if (kind == EntryKind::kFile && key.starts_with(prefix) && ValidateKey(key).ok()) {
      // Names no key could produce (a backslash, a control byte) are skipped:
      // they could not be read back through this interface.
      keys->push_back(key);
    }
    errno = 0;
  }
  if (errno != 0) {
    return posix::ErrnoStatus("read directory", path, errno);
  }
  return Status::Ok();
}

// A file's generation: which inode, how long, last modified when. A
// conditional write gives its file a modification time later than the one
// it replaces (StampAfter), so no two conditional writes of a key share one.
Generation GenerationOf(const struct stat& info) {
  char token[96];
  std::snprintf(token, sizeof(token), "f%llx:%llx:%llu:%lld.%09ld",
                static_cast<unsigned long long>(info.st_dev),
                static_cast<unsigned long long>(info.st_ino),
                static_cast<unsigned long long>(info.st_size),
                static_cast<long long>(info.st_mtim.tv_sec), info.st_mtim.tv_nsec);
  return Generation::Of(token);
}

std::int64_t Nanoseconds(const struct timespec& time) {
  return static_cast<std::int64_t>(time.tv_sec) * 1'000'000'000 + time.tv_nsec;
}

// Corruption: a reader asked for the value at `path` and found a directory.
// A directory there is a prefix of other keys; taking it for "absent" would
// read a chunk or shard as fill.
Status DirectoryWhereValueExpected(const fs::path& path) {
  return Status::Corruption(path.string() + " is a directory where a value was expected");
}

// True if `resolved` (an absolute path without links) lies under `real_root`.
bool UnderRoot(std::string_view resolved, const std::string& real_root) {
  if (real_root == "/") return resolved.starts_with('/');
  return resolved.size() > real_root.size() + 1 && resolved.starts_with(real_root) &&
         resolved[real_root.size()] == '/';
}

// False if the store is confined (`real_root` not empty) and `path`, links
// followed, does not lie under it, or cannot be resolved.
bool PathInsideRoot(const fs::path& path, const std::string& real_root) {
  if (real_root.empty()) return true;
  char resolved[PATH_MAX];
  return ::realpath(path.c_str(), resolved) != nullptr && UnderRoot(resolved, real_root);
}

// As PathInsideRoot, for the file `fd` is open on: the kernel's name for it
// (/proc/self/fd), so a link swapped in after a check by name is caught.
// Without /proc, the name `path` resolves to now.
bool OpenedInsideRoot(int fd, const fs::path& path, const std::string& real_root) {
  if (real_root.empty()) return true;
  const std::string link = "/proc/self/fd/" + std::to_string(fd);
  char target[PATH_MAX];
  const ssize_t length = ::readlink(link.c_str(), target, sizeof(target) - 1);
  if (length <= 0) return PathInsideRoot(path, real_root);
  return UnderRoot(std::string_view(target, static_cast<std::size_t>(length)), real_root);
}

// The regular file at `path`, opened; nullopt if absent, or if the store is
// confined to `real_root` and the file lies outside it (a client learns
// nothing of what is there); Corruption for a directory.
Result<std::optional<posix::OpenedFile>> OpenValue(const fs::path& path,
                                                   const std::string& real_root) {
  // Checked by name first, so that a link to an outside directory is absent
  // rather than a Corruption that says a directory is there.
  if (!PathInsideRoot(path, real_root)) return std::optional<posix::OpenedFile>();
  bool is_directory = false;
  CHUNKWISE_ASSIGN_OR_RETURN(std::optional<posix::OpenedFile> file,
                             posix::OpenForRead(path, &is_directory));
  if (is_directory) return DirectoryWhereValueExpected(path);
  if (file.has_value() && !OpenedInsideRoot(file->fd.get(), path, real_root)) {
    return std::optional<posix::OpenedFile>();
  }
  return file;
}

// The generation of the value at `path` now: absent, or Corruption for a directory.
Result<Generation> CurrentGeneration(const fs::path& path, struct stat* info) {
  CHUNKWISE_ASSIGN_OR_RETURN(std::optional<struct stat> found, posix::Stat(path));
  if (!found.has_value()) return Generation::Absent();
  if (S_ISDIR(found->st_mode)) return DirectoryWhereValueExpected(path);
  if (!S_ISREG(found->st_mode))
    return Status::IOError("stat " + path.string() + ": not a regular file");
  if (info != nullptr) *info = *found;
  return GenerationOf(*found);
}

// An exclusive flock on directory `dir`, held while the descriptor lives:
// conditional writes of keys in one directory compare and rename one at a
// time, across threads and processes of one host. flock on NFS needs a
// descriptor open for writing, which a directory cannot have (docs/reliability.md).
Result<posix::Fd> LockDirectory(const fs::path& dir) {
  for (int attempt = 0; attempt < kMaxSetAttempts; ++attempt) {
    posix::Fd fd(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    if (fd.get() < 0) return posix::ErrnoStatus("open directory", dir, errno);
    while (::flock(fd.get(), LOCK_EX) != 0) {
      if (errno != EINTR) return posix::ErrnoStatus("lock (flock) directory", dir, errno);
    }
    // The directory may have been pruned and made anew while we waited: the
    // lock must be on the one the path names now.
    struct stat held, named;
    if (::fstat(fd.get(), &held) == 0 && ::stat(dir.c_str(), &named) == 0 &&
        held.st_dev == named.st_dev && held.st_ino == named.st_ino) {
      return fd;
    }
  }
  return Status::IOError("lock directory " + dir.string() + ": it keeps being replaced");
}

// Gives the file `fd` a modification time later than `previous` (the one of
// the value it replaces, if any) and no earlier than now, and checks the file
// system kept it: filesystems with coarse timestamps get a larger step.
Status StampAfter(int fd, const std::optional<struct stat>& previous, const fs::path& path) {
  struct timespec now;
  ::clock_gettime(CLOCK_REALTIME, &now);
  const std::int64_t floor = previous ? Nanoseconds(previous->st_mtim) : -1;
  for (const std::int64_t step : {1LL, 1'000LL, 1'000'000LL, 1'000'000'000LL, 2'000'000'000LL}) {
    const std::int64_t stamp = std::max(Nanoseconds(now), floor + step);
    const struct timespec times[2] = {
        {0, UTIME_OMIT},
        {static_cast<time_t>(stamp / 1'000'000'000), static_cast<long>(stamp % 1'000'000'000)}};
    if (::futimens(fd, times) != 0)
      return posix::ErrnoStatus("set the modification time of", path, errno);
    struct stat written;
    if (::fstat(fd, &written) != 0) return posix::ErrnoStatus("fstat", path, errno);
    if (Nanoseconds(written.st_mtim) > floor) return Status::Ok();
  }
  return Status::IOError(path.string() +
                         ": the file system does not keep modification times "
                         "fine enough to tell values apart");
}

// SetPartsIf once its temporary file exists: write, lock, compare, stamp, rename.
Result<Generation> WriteIf(posix::Fd fd, std::span<const ByteView> parts, const fs::path& temporary,
                           const fs::path& target, const Generation& expected, FsyncPolicy fsync) {
  for (ByteView part : parts) CHUNKWISE_RETURN_IF_ERROR(posix::WriteAll(fd.get(), part, temporary));
  if (fsync != FsyncPolicy::kNone && ::fsync(fd.get()) != 0) {
    return posix::ErrnoStatus("fsync", temporary, errno);
  }
  CHUNKWISE_ASSIGN_OR_RETURN(const posix::Fd lock, LockDirectory(target.parent_path()));
  struct stat current;
  CHUNKWISE_ASSIGN_OR_RETURN(const Generation found, CurrentGeneration(target, &current));
  if (found != expected) return GenerationConflict(target.string(), expected, found);
  CHUNKWISE_RETURN_IF_ERROR(StampAfter(
      fd.get(), found.absent() ? std::nullopt : std::optional<struct stat>(current), temporary));
  struct stat info;
  if (::fstat(fd.get(), &info) != 0) return posix::ErrnoStatus("fstat", temporary, errno);
  if (::close(fd.Release()) != 0) return posix::ErrnoStatus("close", temporary, errno);
  if (::rename(temporary.c_str(), target.c_str()) != 0) {
    const int error = errno;
    return posix::ErrnoStatus("rename " + temporary.string() + " to", target, error);
  }
  return GenerationOf(info);
}

// The process id in a temporary file's name ".<name>.tmp.<pid>.<counter>".
std::optional<pid_t> WriterOf(std::string_view name) {
  const std::size_t counter_dot = name.rfind('.');
  const std::size_t pid_dot = name.rfind('.', counter_dot - 1);
  const std::string_view digits = name.substr(pid_dot + 1, counter_dot - pid_dot - 1);
  pid_t pid = 0;
  for (const char c : digits) {
    if (pid > (std::numeric_limits<pid_t>::max() - 9) / 10) return std::nullopt;
    pid = pid * 10 + (c - '0');
  }
  return pid;
}

bool ProcessRuns(pid_t pid) { return pid > 0 && (::kill(pid, 0) == 0 || errno == EPERM); }

// Removes the dead writers' temporary files in `dir` and below; counts them in *removed.
Status SweepDirectory(const fs::path& dir, std::size_t* removed) {
  DirPtr stream(::opendir(dir.c_str()));
  if (stream == nullptr) {
    const int error = errno;
    return posix::IsAbsent(error) ? Status::Ok() : posix::ErrnoStatus("open directory", dir, error);
  }
  std::vector<std::string> subdirectories, doomed;
  errno = 0;
  while (const dirent* entry = ::readdir(stream.get())) {
    const std::string_view name = entry->d_name;
    if (name == "." || name == "..") continue;
    if (FileStore::IsTemporaryName(name)) {
      const std::optional<pid_t> writer = WriterOf(name);
      if (writer && !ProcessRuns(*writer)) doomed.emplace_back(name);
    } else if (KindOf(stream.get(), *entry) == EntryKind::kDirectory) {
      subdirectories.emplace_back(name);
    }
    errno = 0;
  }
  if (errno != 0) return posix::ErrnoStatus("read directory", dir, errno);
  for (const std::string& name : doomed) {
    if (::unlink((dir / name).c_str()) == 0) {
      ++*removed;
    } else if (const int error = errno; !posix::IsAbsent(error)) {
      return posix::ErrnoStatus("remove the dead writer's temporary file", dir / name, error);
    }
  }
  for (const std::string& name : subdirectories) {
    CHUNKWISE_RETURN_IF_ERROR(SweepDirectory(dir / name, removed));
  }
  return Status::Ok();
}

}  // namespace

FileStore::FileStore(std::filesystem::path root, FileStoreOptions options)
    : root_(std::move(root)),
      options_(options),
      directories_(std::make_shared<ValueDirectories>(root_)) {
  if (options_.confine_to_root) {
    // The opened files' names are compared with the root's, links resolved
    // ("/data" may be a link to "/mnt/data").
    char resolved[PATH_MAX];
    real_root_ =
        ::realpath(root_.c_str(), resolved) != nullptr ? std::string(resolved) : root_.string();
  }
}

Result<std::shared_ptr<FileStore>> FileStore::Open(const std::filesystem::path& root,
                                                   FileStoreOptions options) {
  // The system would read such a path only up to the NUL, and create that.
  if (root.native().find('\0') != std::string::npos) {
    return Status::InvalidArgument("directory " + QuoteKey(root.native()) +
                                   ": a path with a NUL byte names no file");
  }
  std::error_code error;
  fs::path absolute = fs::absolute(root, error).lexically_normal();
  if (error) {
    return Status::IOError("resolve " + root.string() + ": " + error.message());
  }
  if (!absolute.has_filename() && absolute.has_relative_path()) {
    absolute = absolute.parent_path();
  }
  CHUNKWISE_ASSIGN_OR_RETURN(std::optional<struct stat> info, posix::Stat(absolute));
  if (!info.has_value()) {
    if (!options.create_root) {
      return Status::NotFound("file store root " + absolute.string() + " does not exist");
    }
    fs::create_directories(absolute, error);
    if (error) {
      return Status::IOError("create directory " + absolute.string() + ": " + error.message());
    }
  } else if (!S_ISDIR(info->st_mode)) {
    return Status::IOError("file store root " + absolute.string() + " is not a directory");
  }
  return std::make_shared<FileStore>(std::move(absolute), options);
}

bool FileStore::IsTemporaryName(std::string_view name) {
  if (!name.starts_with('.')) return false;
  const std::size_t counter_dot = name.rfind('.');
  if (counter_dot == 0 || !AllDigits(name.substr(counter_dot + 1))) return false;
  const std::size_t pid_dot = name.rfind('.', counter_dot - 1);  // Never npos: name[0] is a dot.
  if (!AllDigits(name.substr(pid_dot + 1, counter_dot - pid_dot - 1))) return false;
  const std::string_view head = name.substr(0, pid_dot);  // ".<name>.tmp"
  return head.size() >= 6 && head.ends_with(".tmp");
}

Result<std::filesystem::path> FileStore::PathForKey(const std::filesystem::path& root,
                                                    std::string_view key) {
  CHUNKWISE_RETURN_IF_ERROR(ValidateKey(key));
  std::size_t start = 0;
  while (start <= key.size()) {
    const std::size_t slash = std::min(key.find('/', start), key.size());
    if (IsTemporaryName(key.substr(start, slash - start))) {
      return Status::InvalidArgument("invalid file store key " + QuoteKey(key) +
                                     ": a segment has the form of a temporary file");
    }
    start = slash + 1;
  }
  return root / fs::path(std::string(key));
}

Result<std::optional<Bytes>> FileStore::Get(std::string_view key) const {
  CHUNKWISE_ASSIGN_OR_RETURN(fs::path path, Path(key));
  CHUNKWISE_ASSIGN_OR_RETURN(std::optional<posix::OpenedFile> file, OpenValue(path, real_root_));
  if (!file.has_value()) {
    return std::optional<Bytes>();
  }
  Bytes bytes(file->size);
  CHUNKWISE_RETURN_IF_ERROR(posix::ReadAt(file->fd.get(), 0, bytes, path));
  return std::optional<Bytes>(std::move(bytes));
}

Result<std::optional<Bytes>> FileStore::GetRange(std::string_view key, ByteRange range) const {
  CHUNKWISE_ASSIGN_OR_RETURN(fs::path path, Path(key));
  CHUNKWISE_ASSIGN_OR_RETURN(std::optional<posix::OpenedFile> file, OpenValue(path, real_root_));
  if (!file.has_value()) {
    return std::optional<Bytes>();
  }
  CHUNKWISE_ASSIGN_OR_RETURN(ByteRange resolved, range.Resolve(file->size, path.string()));
  Bytes bytes(resolved.length);
  CHUNKWISE_RETURN_IF_ERROR(posix::ReadAt(file->fd.get(), resolved.offset, bytes, path));
  return std::optional<Bytes>(std::move(bytes));
}

Result<bool> FileStore::GetRangesInto(std::string_view key, std::span<const ByteRange> ranges,
                                      MutableByteView out) const {
  return GetRangesThroughReader(key, ranges, out);
}

int FileDescriptorOf(const ValueReader& reader) {
  const auto* file = dynamic_cast<const FileValueReader*>(&reader);
  return file != nullptr ? file->file_descriptor() : -1;
}

Result<std::unique_ptr<ValueReader>> FileStore::OpenReader(std::string_view key) const {
  CHUNKWISE_ASSIGN_OR_RETURN(fs::path path, Path(key));
  CHUNKWISE_ASSIGN_OR_RETURN(std::optional<posix::OpenedFile> file, OpenValue(path, real_root_));
  if (!file.has_value()) return std::unique_ptr<ValueReader>();
  return std::unique_ptr<ValueReader>(std::make_unique<FileValueReader>(
      std::move(file->fd), file->size, GenerationOf(file->info), std::move(path)));
}

Status FileStore::Set(std::string_view key, ByteView value) {
  return SetParts(key, std::span<const ByteView>(&value, 1));
}

Status FileStore::SetParts(std::string_view key, std::span<const ByteView> parts) {
  CHUNKWISE_ASSIGN_OR_RETURN(fs::path target, Path(key));
  fs::path temporary;
  std::vector<fs::path> created;
  std::shared_lock directories_stay = directories_->KeepWhileCreating();
  CHUNKWISE_ASSIGN_OR_RETURN(posix::Fd fd, CreateTemporary(root_, target, &temporary, &created));
  directories_stay.unlock();
  if (Status status = Commit(std::move(fd), parts, temporary, target, options_.fsync);
      !status.ok()) {
    directories_->Discard(temporary);  // Best effort: the Set's own error is the one to report.
    return status;
  }
  if (options_.fsync == FsyncPolicy::kFileAndDirectory) {
    CHUNKWISE_RETURN_IF_ERROR(SyncEntries(target, created));
  }
  return Status::Ok();
}

Result<std::unique_ptr<ValueWriter>> FileStore::OpenWriter(std::string_view key) {
  CHUNKWISE_ASSIGN_OR_RETURN(fs::path target, Path(key));
  fs::path temporary;
  std::vector<fs::path> created;
  std::shared_lock directories_stay = directories_->KeepWhileCreating();
  CHUNKWISE_ASSIGN_OR_RETURN(posix::Fd fd, CreateTemporary(root_, target, &temporary, &created));
  return std::unique_ptr<ValueWriter>(
      std::make_unique<FileValueWriter>(std::move(fd), std::move(temporary), std::move(target),
                                        std::move(created), options_.fsync, directories_));
}

Status FileStore::Erase(std::string_view key) {
  CHUNKWISE_ASSIGN_OR_RETURN(fs::path path, Path(key));
  if (::unlink(path.c_str()) != 0) {
    const int error = errno;
    // A directory is a prefix of other keys, not a value: erasing it is
    // erasing an absent key. Linux says EISDIR, POSIX allows EPERM.
    if (posix::IsAbsent(error) || error == EISDIR) {
      return Status::Ok();
    }
    if (error == EPERM) {
      CHUNKWISE_ASSIGN_OR_RETURN(std::optional<struct stat> info, posix::Stat(path));
      if (info.has_value() && S_ISDIR(info->st_mode)) {
        return Status::Ok();
      }
    }
    return posix::ErrnoStatus("unlink", path, error);
  }
  if (options_.fsync == FsyncPolicy::kFileAndDirectory) {
    CHUNKWISE_RETURN_IF_ERROR(posix::SyncDirectory(path.parent_path()));
  }
  directories_->PruneAbove(path);
  return Status::Ok();
}

Result<std::vector<std::string>> FileStore::List(std::string_view prefix) const {
  CHUNKWISE_RETURN_IF_ERROR(ValidatePrefix(prefix));
  // Start at the deepest directory the prefix names in full ("a/b/" of "a/b/c").
  const std::size_t slash = prefix.rfind('/');
  const std::string dir_key(slash == std::string_view::npos ? "" : prefix.substr(0, slash + 1));
  std::vector<std::string> keys;
  CHUNKWISE_RETURN_IF_ERROR(ListDirectory(root_ / fs::path(dir_key), dir_key, prefix, &keys));
  std::sort(keys.begin(), keys.end());
  return keys;
}

Result<std::size_t> FileStore::RemoveDeadTemporaries(std::string_view prefix) const {
  CHUNKWISE_RETURN_IF_ERROR(ValidatePrefix(prefix));
  // The deepest directory the prefix names in full, as List starts.
  const std::size_t slash = prefix.rfind('/');
  const std::string dir_key(slash == std::string_view::npos ? "" : prefix.substr(0, slash + 1));
  std::size_t removed = 0;
  CHUNKWISE_RETURN_IF_ERROR(SweepDirectory(root_ / fs::path(dir_key), &removed));
  return removed;
}

Result<std::optional<std::uint64_t>> FileStore::Size(std::string_view key) const {
  CHUNKWISE_ASSIGN_OR_RETURN(fs::path path, Path(key));
  if (!real_root_.empty()) {  // Confined: the opened file is what is checked.
    CHUNKWISE_ASSIGN_OR_RETURN(std::optional<posix::OpenedFile> file, OpenValue(path, real_root_));
    if (!file.has_value()) return std::optional<std::uint64_t>();
    return std::optional<std::uint64_t>(file->size);
  }
  CHUNKWISE_ASSIGN_OR_RETURN(std::optional<struct stat> info, posix::Stat(path));
  if (!info.has_value()) return std::optional<std::uint64_t>();
  if (S_ISDIR(info->st_mode)) return DirectoryWhereValueExpected(path);
  if (!S_ISREG(info->st_mode)) {
    return Status::IOError("stat " + path.string() + ": not a regular file");
  }
  return std::optional<std::uint64_t>(static_cast<std::uint64_t>(info->st_size));
}

Result<Generation> FileStore::GetGeneration(std::string_view key) const {
  CHUNKWISE_ASSIGN_OR_RETURN(fs::path path, Path(key));
  if (!PathInsideRoot(path, real_root_)) return Generation::Absent();
  return CurrentGeneration(path, nullptr);
}

Result<Generation> FileStore::SetPartsIf(std::string_view key, std::span<const ByteView> parts,
                                         const Generation& expected) {
  CHUNKWISE_ASSIGN_OR_RETURN(fs::path target, Path(key));
  fs::path temporary;
  std::vector<fs::path> created;
  std::shared_lock directories_stay = directories_->KeepWhileCreating();
  CHUNKWISE_ASSIGN_OR_RETURN(posix::Fd fd, CreateTemporary(root_, target, &temporary, &created));
  directories_stay.unlock();  // The temporary file keeps its directory from being pruned.
  Result<Generation> written =
      WriteIf(std::move(fd), parts, temporary, target, expected, options_.fsync);
  if (!written.ok()) {
    directories_->Discard(temporary);  // Best effort: the write's own error is the one to report.
    return written;
  }
  if (options_.fsync == FsyncPolicy::kFileAndDirectory) {
    CHUNKWISE_RETURN_IF_ERROR(SyncEntries(target, created));
  }
  return written;
}

Status FileStore::EraseIf(std::string_view key, const Generation& expected) {
  CHUNKWISE_ASSIGN_OR_RETURN(fs::path path, Path(key));
  {
    Result<posix::Fd> lock = LockDirectory(path.parent_path());
    if (!lock.ok()) {
      // No directory, no value: the key is absent.
      if (lock.status().code() != StatusCode::kNotFound) return lock.status();
      if (!expected.absent())
        return GenerationConflict(path.string(), expected, Generation::Absent());
      return Status::Ok();
    }
    CHUNKWISE_ASSIGN_OR_RETURN(const Generation found, CurrentGeneration(path, nullptr));
    if (found != expected) return GenerationConflict(path.string(), expected, found);
    if (found.absent()) return Status::Ok();
    if (::unlink(path.c_str()) != 0) return posix::ErrnoStatus("unlink", path, errno);
  }
  if (options_.fsync == FsyncPolicy::kFileAndDirectory) {
    CHUNKWISE_RETURN_IF_ERROR(posix::SyncDirectory(path.parent_path()));
  }
  directories_->PruneAbove(path);
  return Status::Ok();
}

StoreCapabilities FileStore::capabilities() const {
  return {.writable = true,
          .listable = true,
          .lists_every_key = true,
          .efficient_ranges = true,
          .durable = true,
          .local = true,
          .conditional_writes = true};
}

std::string FileStore::Describe(std::string_view key) const {
  Result<fs::path> path = Path(key);
  if (path.ok()) return path->string();
  // A prefix ("a/b/", a group) names a directory under the root too.
  if (!key.empty() && key.back() == '/' && ValidatePrefix(key).ok()) {
    return (root_ / fs::path(std::string(key))).string();
  }
  return QuoteKey(key);
}

}  // namespace chunkwise::store
