// FileStore: a Store over a directory, one file per key.
//
// Key "a/b/c" is the file <root>/a/b/c (zarr v3 spec, "File system store").
// A Set writes a temporary sibling ".<name>.tmp.<pid>.<counter>" and renames
// it over the target, so a reader sees the old value or the new one, never a
// partial file; temporary files are never listed, and a leftover one from a
// crash is ignored. Keys are validated (store/key.h), so no key can name a
// path outside the root. Symbolic links inside the root are followed when
// reading and writing (a link that points outside the root is the owner's
// choice, unless FileStoreOptions::confine_to_root: then reads take a value
// whose file lies outside the root, links followed, for absent); List does
// not descend into linked directories, which keeps it from looping. Every method is thread-safe and
// safe against other processes writing the same directory.
#ifndef CHUNKWISE_STORE_FILE_STORE_H_
#define CHUNKWISE_STORE_FILE_STORE_H_

#include <filesystem>
#include <memory>
#include <shared_mutex>
#include <string>

#include "chunkwise/store/store.h"

namespace chunkwise::store {

// How hard Set works to make a value survive a power failure.
enum class FsyncPolicy {
  kNone,              // Rely on the OS: a crash may lose recent values (but never tears one).
  kFile,              // fsync the file's data before the rename.
  kFileAndDirectory,  // Also fsync the directories whose entries changed.
};

struct FileStoreOptions {
  bool create_root = true;  // Create the root (and its parents) if missing; else NotFound.
  FsyncPolicy fsync = FsyncPolicy::kNone;
  // Reads (Get, GetRange(s), OpenReader, Size, GetGeneration) answer absent
  // for a key whose file, symbolic links followed, is not under the root's
  // real path: what a server needs, whose clients may reach only what lies
  // under the root. The opened file itself is checked, so a link swapped in
  // between the check and the open cannot escape. Writes and List are not
  // confined. Hard links cannot be told apart and are served.
  bool confine_to_root = false;
};

class ValueDirectories;  // Private to file_store.cc.

class FileStore final : public Store {
 public:
  // Opens the directory `root`. NotFound if it is missing and
  // !options.create_root; IOError if it cannot be created or is not a
  // directory. The path is made absolute, so later chdir calls do not matter.
  static Result<std::shared_ptr<FileStore>> Open(const std::filesystem::path& root,
                                                 FileStoreOptions options = {});

  // The path of `key` under `root`, with no I/O: InvalidArgument if the key
  // is invalid or has a segment that looks like a temporary file (such a key
  // could be written but never listed). The result always lies under `root`.
  static Result<std::filesystem::path> PathForKey(const std::filesystem::path& root,
                                                  std::string_view key);
  // True if `name` (one path segment) has the form of a Set's temporary file.
  static bool IsTemporaryName(std::string_view name);

  Result<std::optional<Bytes>> Get(std::string_view key) const override;
  // Reads only the range, with pread.
  Result<std::optional<Bytes>> GetRange(std::string_view key, ByteRange range) const override;
  // Through OpenReader: the file is opened once for all the ranges.
  Result<bool> GetRangesInto(std::string_view key, std::span<const ByteRange> ranges,
                             MutableByteView out) const override;
  // Holds the file open: reads see the version opened, even after a Set or
  // Erase of the key, and ranges that follow one another in the file are
  // read with one pread.
  Result<std::unique_ptr<ValueReader>> OpenReader(std::string_view key) const override;
  // Writes a temporary file and renames it over the key's file, creating
  // parent directories as needed; on failure the temporary file is removed.
  Status Set(std::string_view key, ByteView value) override;
  // Writes the parts in turn into the temporary file: no joined copy.
  Status SetParts(std::string_view key, std::span<const ByteView> parts) override;
  // Unlinks the file, then removes parent directories left empty, up to but
  // not including the root.
  // Streams the value into a temporary sibling, renamed over the key on Commit.
  Result<std::unique_ptr<ValueWriter>> OpenWriter(std::string_view key) override;
  Status Erase(std::string_view key) override;
  // Conditional writes (store.h). A generation is the file's device, inode,
  // size and modification time. SetIf writes a temporary file as Set does,
  // then, holding an flock on the key's directory, compares the key's
  // generation, gives the new file a modification time later than the one
  // it replaces and renames it into place; EraseIf compares and unlinks
  // under the same lock. Safe between threads and processes of one host on
  // a local file system; not on NFS (docs/reliability.md). A directory at
  // the key's path is Corruption.
  Result<Generation> GetGeneration(std::string_view key) const override;
  Result<Generation> SetPartsIf(std::string_view key, std::span<const ByteView> parts,
                                const Generation& expected) override;
  Status EraseIf(std::string_view key, const Generation& expected) override;
  // Walks the directories under the prefix; temporary files and names that
  // are not valid keys are skipped.
  Result<std::vector<std::string>> List(std::string_view prefix) const override;
  Result<std::optional<std::uint64_t>> Size(std::string_view key) const override;
  StoreCapabilities capabilities() const override;
  // The key's full path (a prefix ending in "/" too), or the invalid key quoted.
  std::string Describe(std::string_view key) const override;

  // Removes the temporary files under `prefix` (a key prefix; "" for all)
  // that a writer killed before its rename left behind: those whose process
  // id runs no process on this host. A writer of an output calls it first,
  // so that a dead writer's debris goes with the next write. Temporary files
  // of live processes are left alone; on a file system shared between hosts
  // a process id says nothing about other hosts, so one output must not have
  // writers on two hosts at once. Returns how many files it removed.
  Result<std::size_t> RemoveDeadTemporaries(std::string_view prefix = "") const;

  const std::filesystem::path& root() const { return root_; }
  const FileStoreOptions& options() const { return options_; }

  FileStore(std::filesystem::path root, FileStoreOptions options);  // Use Open.

 private:
  Result<std::filesystem::path> Path(std::string_view key) const { return PathForKey(root_, key); }

  std::filesystem::path root_;
  FileStoreOptions options_;
  std::string real_root_;  // The root, links resolved; set only when confined.
  // The directories under the root that values need: shared with the store's
  // open writers, which prune them when they are abandoned.
  std::shared_ptr<ValueDirectories> directories_;
};

}  // namespace chunkwise::store

#endif  // CHUNKWISE_STORE_FILE_STORE_H_
