// Files by path, for the layer that moves files in and out.
//
// A format is a view over a store and a prefix; a file that a user names by
// its path is a key of the FileStore over its directory. Every write here goes
// through that store (FileStore::Set and OpenWriter: a temporary sibling
// renamed into place on commit, the one such writer in the library), so an
// output appears whole or not at all and a failed write leaves no partial file.
#ifndef CHUNKWISE_IO_FILE_H_
#define CHUNKWISE_IO_FILE_H_

#include <filesystem>
#include <memory>
#include <span>
#include <string>

#include "chunkwise/core/bytes.h"
#include "chunkwise/core/result.h"
#include "chunkwise/store/file_store.h"
#include "chunkwise/store/value_writer.h"

namespace chunkwise::io {

// A file as a store and a key: the FileStore over the file's directory and
// the file's name.
struct FileKey {
  std::shared_ptr<store::FileStore> store;
  std::string key;
};

// The FileStore over the directory of `path` and the file's name as its key.
// A trailing "/" is dropped ("out/" is the name "out" in "."). The directory
// is created with `create_directory`; otherwise NotFound naming it when
// missing. InvalidArgument naming `path` when it names no file ("/", ".",
// "..") or the name cannot be a key.
Result<FileKey> LocateFile(const std::filesystem::path& path, bool create_directory = false);

// The FileStore over the directory `path`, created (with its parents) when
// `create`; NotFound naming it otherwise when missing.
Result<std::shared_ptr<store::FileStore>> OpenDirectory(const std::filesystem::path& path,
                                                        bool create);

// True for "-", the name of standard output. Every output here takes it: the
// bytes go to stdout as they come (a pipe cannot be made atomic; Overwrite of
// bytes already written is Unsupported), and nothing needs --overwrite.
bool IsStandardOutput(const std::filesystem::path& path);

// Writes `data` to `path` atomically. Errors of LocateFile (the directory
// must exist) and of the store's Set.
Status WriteFile(const std::filesystem::path& path, ByteView data);
// The same for a value given in parts (a header and a payload), written one
// after another without joining them.
Status WriteFile(const std::filesystem::path& path, std::span<const ByteView> parts);

// Streams a file too large to hold: the bytes go to a temporary beside `path`,
// renamed over it by Commit; dropped without Commit, nothing is left.
Result<std::unique_ptr<store::ValueWriter>> OpenFileWriter(const std::filesystem::path& path);

// InvalidArgument naming `path` if it exists and !overwrite: the rule for
// every output (the CLI's --overwrite).
Status CheckOutputPath(const std::filesystem::path& path, bool overwrite);

}  // namespace chunkwise::io

#endif  // CHUNKWISE_IO_FILE_H_
