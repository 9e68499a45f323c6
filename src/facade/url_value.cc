#include "chunkwise/facade/url_value.h"

#include <filesystem>

#include "chunkwise/facade/store_registry.h"
#include "chunkwise/io/file.h"
#include "chunkwise/store/file_store.h"

namespace chunkwise {

Result<UrlValue> LocateUrlValue(const Context& context, std::string_view url, bool create) {
  CHUNKWISE_ASSIGN_OR_RETURN(const StoreUrl parsed, ParseStoreUrl(url));
  if (parsed.scheme == "file") {
    CHUNKWISE_ASSIGN_OR_RETURN(io::FileKey file, io::LocateFile(parsed.location, create));
    return UrlValue{std::move(file.store), std::move(file.key)};
  }
  std::string_view location = parsed.location;
  while (location.ends_with('/')) location.remove_suffix(1);
  const std::size_t slash = location.rfind('/');
  if (slash == std::string_view::npos || slash + 1 == location.size() || slash == 0) {
    return Status::InvalidArgument(parsed.text + " names a store, not a value in one");
  }
  const std::string parent = parsed.scheme + "://" + std::string(location.substr(0, slash));
  CHUNKWISE_ASSIGN_OR_RETURN(std::shared_ptr<store::Store> store,
                             OpenStore(context, parent, context.store_options(create)));
  return UrlValue{std::move(store), std::string(location.substr(slash + 1))};
}

Result<Bytes> ReadUrl(const Context& context, std::string_view url) {
  CHUNKWISE_ASSIGN_OR_RETURN(const UrlValue value, LocateUrlValue(context, url, false));
  CHUNKWISE_ASSIGN_OR_RETURN(std::optional<Bytes> bytes, value.store->Get(value.key));
  if (!bytes) return Status::NotFound(value.store->Describe(value.key) + " does not exist");
  return std::move(*bytes);
}

Status RemoveDeadTemporariesAt(std::string_view url) {
  CHUNKWISE_ASSIGN_OR_RETURN(const StoreUrl parsed, ParseStoreUrl(url));
  std::error_code error;
  if (parsed.scheme != "file" || !std::filesystem::is_directory(parsed.location, error)) {
    return Status::Ok();
  }
  CHUNKWISE_ASSIGN_OR_RETURN(auto directory,
                             store::FileStore::Open(parsed.location, {.create_root = false}));
  return directory->RemoveDeadTemporaries().status();
}

}  // namespace chunkwise
