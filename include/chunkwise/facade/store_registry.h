// StoreRegistry: a store for a URL, by scheme.
//
//   /data/a.zarr, a.zarr, file:///data/a.zarr   FileStore over the directory
//   /data/refs.json, file://…/refs.json         ReferenceStore over a kerchunk JSON set
//   /data/refs.parq (a Parquet reference set)   ReferenceStore (a .zmetadata with record_size)
//   refs:///data/refs.json                      ReferenceStore, whatever the name
//   memory://NAME                               MemoryStore, one per NAME in this registry
//   rocksdb:///data/db                          RocksDbStore
//   s3://bucket/prefix, gs://bucket/prefix      S3Store (store/remote_store_url.h)
//   http(s)://host/path                         HttpStore, read-only
//
// Every scheme registers through Register, the built-ins included, so that
// a program may add its own. A registry belongs to a Context (context.h):
// the table of openers is filled when the registry is made and the only
// state it keeps after is its named memory stores.
#ifndef CHUNKWISE_FACADE_STORE_REGISTRY_H_
#define CHUNKWISE_FACADE_STORE_REGISTRY_H_

#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "chunkwise/core/result.h"
#include "chunkwise/store/store.h"

namespace chunkwise {
namespace store {
struct RemoteStoreOptions;  // store/remote_store_url.h, kept out of this header.
}  // namespace store

struct StoreOptions {
  // Opened to be written: a missing directory (or database) is created, and
  // the temporary files of a writer that was killed there are removed.
  // Without it a missing local store is NotFound.
  bool create = false;
  // s3://, gs://, http(s)://: credentials, endpoint, transfer sizes. Null:
  // as the AWS tools would configure them from the process environment.
  std::shared_ptr<const store::RemoteStoreOptions> remote = nullptr;
  // Reference sets: directories their local targets may lie in besides the
  // set's own directory, and whether http(s) targets may be read.
  std::vector<std::filesystem::path> reference_roots = {};
  bool allow_remote_references = false;
};

// The parts of a URL: "s3://b/p" is {"s3", "b/p"}; a plain path is {"file", path}.
struct StoreUrl {
  std::string scheme;
  std::string location;  // What follows "scheme://".
  std::string text;      // The URL as given, for messages.
};

// Remote settings read from `variables` (AWS_ENDPOINT_URL_S3,
// AWS_ACCESS_KEY_ID, AWS_REGION, …) instead of the process environment: a
// context's own credentials, or a test server's.
std::shared_ptr<const store::RemoteStoreOptions> RemoteOptionsFromVariables(
    std::map<std::string, std::string> variables);

// InvalidArgument naming `url` when it is empty or its scheme is malformed.
Result<StoreUrl> ParseStoreUrl(std::string_view url);

using StoreOpener =
    std::function<Result<std::shared_ptr<store::Store>>(const StoreUrl&, const StoreOptions&)>;

class StoreRegistry {
 public:
  // A registry with the built-in schemes above.
  StoreRegistry();
  StoreRegistry(const StoreRegistry&) = delete;
  StoreRegistry& operator=(const StoreRegistry&) = delete;

  // Adds `scheme` (lower case, e.g. "myfs"); InvalidArgument if it is taken.
  Status Register(std::string scheme, StoreOpener opener);
  // The schemes known, sorted.
  std::vector<std::string> schemes() const;

  // The store `url` names. InvalidArgument naming the URL for an unknown
  // scheme; the opener's errors, with the URL named, otherwise.
  Result<std::shared_ptr<store::Store>> Open(std::string_view url,
                                             const StoreOptions& options = {}) const;

 private:
  struct MemoryStores;
  std::map<std::string, StoreOpener, std::less<>> openers_;
  std::shared_ptr<MemoryStores> memory_;
};

}  // namespace chunkwise

#endif  // CHUNKWISE_FACADE_STORE_REGISTRY_H_
