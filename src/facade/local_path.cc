#include "facade/local_path.h"

#include <filesystem>

#include "chunkwise/facade/store_registry.h"

namespace chunkwise {

std::optional<std::string> LocalPathOf(std::string_view url) {
  const Result<StoreUrl> parsed = ParseStoreUrl(url);
  if (!parsed.ok() || parsed->scheme != "file" || parsed->location.empty()) return std::nullopt;
  return parsed->location;
}

Status CheckLocalPathExists(std::string_view url) {
  const std::optional<std::string> path = LocalPathOf(url);
  std::error_code error;
  if (!path || std::filesystem::exists(*path, error)) return Status::Ok();
  return Status::NotFound(std::string(url) + ": no such file or directory");
}

}  // namespace chunkwise
