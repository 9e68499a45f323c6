// ReferenceStore: a read-only Store whose values are fsspec/kerchunk
// references: inline bytes, whole files, or byte ranges of files.
//
// Spec: docs/formats/refs.md, "The model" and "Reading through a set". Any
// reader in the library (a zarr Array, say) reads through it as through a
// FileStore; a zarr array's read over remote targets sends its chunks'
// ranges to each target's store as one batch (docs/formats/refs.md,
// "Batched reads"). URLs may be local paths (absolute, or relative to the
// options' base directory), file:// URLs, http(s) URLs (read with range
// requests), or URLs of other schemes (s3://, gs://) that the options'
// open_target opens.
//
// Security: a reference set is input from someone else, so where it may point
// is limited. A local target must lie under one of the allowed roots after
// symbolic links are resolved (default: the base directory, which is the
// reference file's directory); remote targets need allow_remote. Keys with
// "." or ".." segments are invalid. Every range is checked against the
// target's size, and errors name the key, the URL and the fault.
//
// Thread-safe: concurrent reads are allowed. Writes return Unsupported.
#ifndef CHUNKWISE_STORE_REFERENCE_STORE_H_
#define CHUNKWISE_STORE_REFERENCE_STORE_H_

#include <filesystem>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "chunkwise/store/reference.h"
#include "chunkwise/store/store.h"

namespace chunkwise::store {

// The store that holds the target `url` of another scheme (s3://bucket/k)
// and its key there, e.g. from the facade's registry of URL schemes.
struct TargetLocation {
  std::shared_ptr<const Store> store;
  std::string key;
};
using TargetOpener = std::function<Result<TargetLocation>(const std::string& url)>;

struct ReferenceStoreOptions {
  // Relative URLs resolve against this directory (the reference file's).
  std::filesystem::path base_directory = ".";
  // Where local targets may lie; empty means {base_directory}.
  std::vector<std::filesystem::path> allowed_roots;
  // Whether http:// and https:// targets (and open_target's) may be read.
  bool allow_remote = false;
  // A set read from object storage: its local paths are refused, not
  // resolved against this machine's files (no roots are checked then).
  bool refuse_local_targets = false;
  // Opens targets of schemes other than file and http(s); null: they are
  // Unsupported. Only asked when allow_remote.
  TargetOpener open_target;
  // Names the reference set in messages (its file name).
  std::string name = "references";
};

// Where one key's bytes live, after resolution and the security checks.
struct ResolvedReference {
  Reference reference;            // As the set gives it.
  std::filesystem::path path;     // Local targets: the resolved path.
  std::string remote_url;         // Remote targets: the URL.
  TargetLocation location;        // Targets open_target opened (remote_url names them too).
  std::uint64_t target_size = 0;  // The target's size (whole-file values: the value's size).
};

class ReferenceStore final : public Store {
 public:
  // A store over `index`. InvalidArgument if an allowed root does not exist.
  static Result<std::shared_ptr<ReferenceStore>> Open(std::shared_ptr<const ReferenceIndex> index,
                                                      ReferenceStoreOptions options);

  Result<std::optional<Bytes>> Get(std::string_view key) const override;
  Result<std::optional<Bytes>> GetRange(std::string_view key, ByteRange range) const override;
  // Unsupported: a reference set is read-only.
  Status Set(std::string_view key, ByteView value) override;
  Status Erase(std::string_view key) override;
  Result<std::vector<std::string>> List(std::string_view prefix) const override;
  Result<std::optional<std::uint64_t>> Size(std::string_view key) const override;
  StoreCapabilities capabilities() const override;
  // "<name>:<key>".
  std::string Describe(std::string_view key) const override;

  // The reference of `key` resolved and checked: the target exists, may be
  // read, and holds the range. nullopt if the set has no such key.
  Result<std::optional<ResolvedReference>> Resolve(std::string_view key) const;

  const ReferenceIndex& index() const { return *index_; }

 private:
  // store/reference_batch.h: batched gets (a zarr array's chunks) sent through
  // the targets' stores, kept out of this header.
  friend class ReferenceBatch;

  struct Target {
    std::filesystem::path path;
    std::string remote_url;
    TargetLocation location;
    std::uint64_t size = 0;
  };

  ReferenceStore(std::shared_ptr<const ReferenceIndex> index, ReferenceStoreOptions options,
                 std::vector<std::filesystem::path> roots);
  Result<Target> ResolveTarget(std::string_view key, const std::string& url) const;
  Result<Target> ResolveLocal(std::string_view key, const std::string& url,
                              std::filesystem::path path) const;
  Status Fault(std::string_view key, const Reference& reference, const std::string& what) const;
  Result<Bytes> ReadTarget(const ResolvedReference& resolved, std::uint64_t offset,
                           std::uint64_t length) const;

  std::shared_ptr<const ReferenceIndex> index_;
  ReferenceStoreOptions options_;
  std::vector<std::filesystem::path> roots_;  // Canonical.
  // URL → resolved target: a sharded set names each shard file many times.
  mutable std::mutex cache_mutex_;
  mutable std::unordered_map<std::string, Target> cache_;
  // Batched gets of http(s) targets: an origin ("https://host:port") → the
  // store they go through, one event loop per origin.
  mutable std::mutex http_mutex_;
  mutable std::unordered_map<std::string, std::shared_ptr<const Store>> http_stores_;
};

}  // namespace chunkwise::store

#endif  // CHUNKWISE_STORE_REFERENCE_STORE_H_
