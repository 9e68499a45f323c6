#include "facade/new_output_directory.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

#include "chunkwise/facade/store_registry.h"

namespace chunkwise {

NewOutputDirectory::NewOutputDirectory(std::string_view url) {
  const Result<StoreUrl> parsed = ParseStoreUrl(url);
  if (!parsed.ok() || parsed->scheme != "file" || parsed->location.empty()) return;
  struct stat info {};
  if (::lstat(parsed->location.c_str(), &info) != 0 && errno == ENOENT) path_ = parsed->location;
}

void NewOutputDirectory::RemoveIfEmpty() const {
  // rmdir refuses a directory that holds anything: what another writer put
  // there meanwhile stays.
  if (!path_.empty()) (void)::rmdir(path_.c_str());
}

}  // namespace chunkwise
