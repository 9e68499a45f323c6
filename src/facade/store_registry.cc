#include "chunkwise/facade/store_registry.h"

#include <algorithm>
#include <cctype>
#include <mutex>
#include <unordered_map>

#include "chunkwise/io/file.h"
#include "chunkwise/store/file_store.h"
#include "chunkwise/store/reference_store.h"
#include "core/json.h"
#include "facade/reference_targets.h"
#include "facade/subtree_store.h"
#include "formats/refs/reference_file.h"
#include "store/memory_store.h"
#include "store/remote_store_url.h"
#include "store/rocksdb_store.h"

namespace chunkwise {

namespace fs = std::filesystem;
using StorePtr = std::shared_ptr<store::Store>;

struct StoreRegistry::MemoryStores {
  std::mutex mutex;
  std::unordered_map<std::string, std::shared_ptr<store::MemoryStore>> by_name;  // Guarded.
};

namespace {

bool IsSchemeText(std::string_view text) {
  if (text.empty() || !std::isalpha(static_cast<unsigned char>(text[0]))) return false;
  return std::all_of(text.begin(), text.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '+' || c == '-' || c == '.';
  });
}

// A Parquet reference set is a directory whose .zmetadata has "record_size"
// (a zarr v2 group's consolidated .zmetadata has none).
bool IsParquetReferenceDirectory(const fs::path& directory) {
  std::error_code error;
  const fs::path metadata = directory / ".zmetadata";
  if (!fs::is_regular_file(metadata, error)) return false;
  Result<std::shared_ptr<store::FileStore>> store =
      store::FileStore::Open(directory, {.create_root = false});
  if (!store.ok()) return false;
  Result<std::optional<Bytes>> bytes = (*store)->Get(".zmetadata");
  if (!bytes.ok() || !bytes->has_value()) return false;
  Result<nlohmann::json> json = core::ParseJson(AsChars(**bytes), metadata.string());
  return json.ok() && json->is_object() && json->contains("record_size");
}

// The reference set itself at `path` (a file, or a Parquet directory);
// messages name it `name`.
Result<StorePtr> OpenReferenceSetAt(const std::string& name, const fs::path& path,
                                    const StoreOptions& options) {
  CHUNKWISE_ASSIGN_OR_RETURN(const io::FileKey file, io::LocateFile(path));
  CHUNKWISE_ASSIGN_OR_RETURN(std::shared_ptr<const store::ReferenceIndex> index,
                             formats::refs::OpenReferences(file.store, file.key));
  store::ReferenceStoreOptions reference_options;
  reference_options.base_directory = fs::absolute(path).lexically_normal().parent_path();
  reference_options.allowed_roots.push_back(reference_options.base_directory);
  for (const fs::path& root : options.reference_roots) {
    reference_options.allowed_roots.push_back(root);
  }
  reference_options.allow_remote = options.allow_remote_references;
  reference_options.open_target = ObjectStorageTargetOpener(options);
  reference_options.name = name;
  CHUNKWISE_ASSIGN_OR_RETURN(
      std::shared_ptr<store::ReferenceStore> store,
      store::ReferenceStore::Open(std::move(index), std::move(reference_options)));
  return StorePtr(std::move(store));
}

// Where a local path lies in a reference set: "g.json/v" is the set g.json
// and the folder "v" of its keys, as a directory path is a folder of its
// tree. `set` is empty when no ancestor of `path` (nor itself) is a set.
struct PathInReferenceSet {
  fs::path set;
  std::string folder;  // "" for the set itself.
};

// Walks up from `path` to the first regular file (a set when it is JSON or
// when `any_file`, e.g. refs://) or Parquet reference directory.
PathInReferenceSet FindReferenceSet(const fs::path& path, bool any_file) {
  std::error_code error;
  fs::path at = path.lexically_normal();
  while (!at.empty() && at.filename().empty()) at = at.parent_path();  // "a/" is "a".
  fs::path inside;
  for (; !at.empty(); at = at.parent_path()) {
    if (fs::is_regular_file(at, error)) {
      if (!any_file && at.extension() != ".json") return {};
      return {at, inside.generic_string()};
    }
    if (IsParquetReferenceDirectory(at)) return {at, inside.generic_string()};
    inside = inside.empty() ? at.filename() : at.filename() / inside;
    if (at == at.parent_path()) break;  // The root.
  }
  return {};
}

Result<StorePtr> OpenFolderOfReferenceSet(const StoreUrl& url, const PathInReferenceSet& found,
                                          const StoreOptions& options) {
  if (found.folder.empty()) return OpenReferenceSetAt(url.text, found.set, options);
  CHUNKWISE_ASSIGN_OR_RETURN(StorePtr set,
                             OpenReferenceSetAt(found.set.string(), found.set, options));
  return MakeSubtreeStore(std::move(set), found.folder);
}

// A reference set, or the folder of one the path names (see above).
Result<StorePtr> OpenReferenceSet(const StoreUrl& url, const StoreOptions& options) {
  if (options.create) {
    return Status::InvalidArgument(url.text +
                                   ": a reference set is read-only; it cannot be opened "
                                   "to be written");
  }
  const fs::path path = url.location;
  const PathInReferenceSet found = FindReferenceSet(path, /*any_file=*/true);
  if (found.set.empty()) return OpenReferenceSetAt(url.text, path, options);  // Its NotFound.
  return OpenFolderOfReferenceSet(url, found, options);
}

Result<StorePtr> OpenFile(const StoreUrl& url, const StoreOptions& options) {
  if (url.location.empty()) return Status::InvalidArgument(url.text + ": names no directory");
  const fs::path path = url.location;
  std::error_code error;
  if (!options.create) {
    // A reference set names its store by the set's file (or directory), and
    // a folder inside it by the path under that.
    if (fs::is_regular_file(path, error) && path.extension() != ".json") {
      return Status::InvalidArgument(url.text +
                                     " is a file, not a directory of keys or a reference set");
    }
    const PathInReferenceSet found = FindReferenceSet(path, /*any_file=*/false);
    if (!found.set.empty()) return OpenFolderOfReferenceSet(url, found, options);
  }
  Result<std::shared_ptr<store::FileStore>> store =
      store::FileStore::Open(path, {.create_root = options.create});
  if (!store.ok()) return store.status();
  // A store opened to be written: a killed writer's temporary files go first.
  if (options.create) CHUNKWISE_RETURN_IF_ERROR((*store)->RemoveDeadTemporaries().status());
  return StorePtr(std::move(store).value());
}

Result<StorePtr> OpenRocksDb(const StoreUrl& url, const StoreOptions& options) {
  if (url.location.empty()) return Status::InvalidArgument(url.text + ": names no database");
  store::RocksDbStoreOptions rocksdb;
  rocksdb.create_if_missing = options.create;
  CHUNKWISE_ASSIGN_OR_RETURN(std::shared_ptr<store::RocksDbStore> store,
                             store::RocksDbStore::Open(url.location, rocksdb));
  return StorePtr(std::move(store));
}

Result<StorePtr> OpenRemote(const StoreUrl& url, const StoreOptions& options) {
  if (options.remote != nullptr) return store::OpenRemoteStore(url.text, *options.remote);
  return store::OpenRemoteStore(url.text);
}

}  // namespace

std::shared_ptr<const store::RemoteStoreOptions> RemoteOptionsFromVariables(
    std::map<std::string, std::string> variables) {
  auto options = std::make_shared<store::RemoteStoreOptions>();
  options->environment = store::AwsEnvironment::FromMap(std::move(variables));
  return options;
}

Result<StoreUrl> ParseStoreUrl(std::string_view url) {
  if (url.empty()) return Status::InvalidArgument("an empty URL names no store");
  const std::size_t separator = url.find("://");
  StoreUrl parsed{"file", std::string(url), std::string(url)};
  if (separator == std::string_view::npos) return parsed;
  const std::string_view scheme = url.substr(0, separator);
  if (!IsSchemeText(scheme)) return parsed;  // A path with "://" inside, e.g. "a/b://c".
  parsed.scheme.clear();
  for (char c : scheme)
    parsed.scheme += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  parsed.location = std::string(url.substr(separator + 3));
  return parsed;
}

StoreRegistry::StoreRegistry() : memory_(std::make_shared<MemoryStores>()) {
  std::shared_ptr<MemoryStores> memory = memory_;
  auto open_memory = [memory](const StoreUrl& url,
                              const StoreOptions& options) -> Result<StorePtr> {
    if (url.location.empty()) return StorePtr(store::MemoryStore::Create());
    std::lock_guard lock(memory->mutex);
    auto found = memory->by_name.find(url.location);
    if (found != memory->by_name.end()) return StorePtr(found->second);
    if (!options.create) {
      return Status::NotFound(url.text + ": no memory store of that name in this context");
    }
    std::shared_ptr<store::MemoryStore> created = store::MemoryStore::Create(url.location);
    memory->by_name.emplace(url.location, created);
    return StorePtr(std::move(created));
  };
  // The built-ins register as any other scheme would; none can be taken yet.
  for (auto& [scheme, opener] :
       std::vector<std::pair<std::string, StoreOpener>>{{"file", OpenFile},
                                                        {"refs", OpenReferenceSet},
                                                        {"memory", open_memory},
                                                        {"rocksdb", OpenRocksDb},
                                                        {"s3", OpenRemote},
                                                        {"gs", OpenRemote},
                                                        {"http", OpenRemote},
                                                        {"https", OpenRemote}}) {
    openers_.emplace(scheme, std::move(opener));
  }
}

Status StoreRegistry::Register(std::string scheme, StoreOpener opener) {
  if (!IsSchemeText(scheme) ||
      std::any_of(scheme.begin(), scheme.end(), [](char c) { return std::isupper(c) != 0; })) {
    return Status::InvalidArgument("\"" + scheme + "\" is not a lower-case URL scheme");
  }
  if (openers_.contains(scheme)) {
    return Status::InvalidArgument("the URL scheme \"" + scheme + "\" is registered already");
  }
  openers_.emplace(std::move(scheme), std::move(opener));
  return Status::Ok();
}

std::vector<std::string> StoreRegistry::schemes() const {
  std::vector<std::string> names;
  for (const auto& [scheme, opener] : openers_) names.push_back(scheme);
  return names;
}

Result<StorePtr> StoreRegistry::Open(std::string_view url, const StoreOptions& options) const {
  CHUNKWISE_ASSIGN_OR_RETURN(const StoreUrl parsed, ParseStoreUrl(url));
  const auto opener = openers_.find(parsed.scheme);
  if (opener == openers_.end()) {
    std::string known;
    for (const std::string& scheme : schemes()) known += (known.empty() ? "" : ", ") + scheme;
    return Status::InvalidArgument(parsed.text + ": unknown URL scheme \"" + parsed.scheme +
                                   "\" (known: " + known + ")");
  }
  Result<StorePtr> store = opener->second(parsed, options);
  if (store.ok() || store.status().message().find(parsed.location) != std::string_view::npos) {
    return store;
  }
  return store.status().WithContext(parsed.text);
}

}  // namespace chunkwise
