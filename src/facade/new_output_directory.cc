#include "facade/new_output_directory.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

#include "facade/local_path.h"

namespace chunkwise {

NewOutputDirectory::NewOutputDirectory(std::string_view url) {
  const std::optional<std::string> path = LocalPathOf(url);
  if (!path) return;
  struct stat info {};
  if (::lstat(path->c_str(), &info) != 0 && errno == ENOENT) path_ = *path;
}

void NewOutputDirectory::RemoveIfEmpty() const {
  // rmdir refuses a directory that holds anything: what another writer put
  // there meanwhile stays.
  if (!path_.empty()) (void)::rmdir(path_.c_str());
}

}  // namespace chunkwise
