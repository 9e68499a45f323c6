// VectorStore: a zarr-vectors store as a view over a store::Store and a prefix.
//
// Spec: docs/formats/vectors.md, "Tree" to "Blob layouts". The view owns the
// root metadata, writes and reads per-chunk blobs (blob_array.h) and family
// groups by their layout paths (layout.h), and lists what a family holds. It
// never touches a file path. Writes of one blob are atomic as far as the
// store's Set is: the chunk is written before its zarr.json, so a reader sees
// either no node or a whole one. Thread safety: concurrent reads, and
// concurrent writes of different nodes, are safe; SetMetadata must not race
// with anything.
#ifndef CHUNKWISE_FORMATS_VECTORS_VECTOR_STORE_H_
#define CHUNKWISE_FORMATS_VECTORS_VECTOR_STORE_H_

#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <vector>

#include "chunkwise/core/thread_pool.h"
#include "chunkwise/store/store.h"
#include "formats/vectors/blob_array.h"
#include "formats/vectors/paths.h"
#include "formats/vectors/store_metadata.h"

namespace chunkwise::formats::vectors {

struct VlenArray;  // formats/vectors/vlen_array.h: a layout-0.9 family array.

struct VectorStoreOptions {
  // Runs per-chunk encoding and decoding; null means a pool with one thread per core.
  std::shared_ptr<core::ThreadPool> pool = nullptr;
  int zstd_level = 3;
};

class VectorStore {
 public:
  // Writes the root group of a new store at `prefix` ("" or ending in "/").
  // An existing node there is refused (InvalidArgument) unless `overwrite`,
  // which first erases every key under `prefix`.
  static Result<VectorStore> Create(std::shared_ptr<store::Store> store, std::string prefix,
                                    RootMetadata metadata, bool overwrite,
                                    VectorStoreOptions options = {});
  // As Create, but the root zarr.json is written only by Publish: until then
  // no reader (ours, zarr-python, zarr-vectors) opens a store at `prefix`, so
  // a writer killed or failing half-way leaves nothing that reads as a whole
  // dataset. The incomplete marker (zarr::kIncompleteMarkerKey) says the keys
  // there are ours, so that a later Create with `overwrite` replaces them.
  static Result<VectorStore> CreateUnpublished(std::shared_ptr<store::Store> store,
                                               std::string prefix, RootMetadata metadata,
                                               bool overwrite, VectorStoreOptions options = {});
  // Writes the root metadata of a store made by CreateUnpublished, then
  // removes its marker. Call it once every level and array is written.
  Status Publish();
  // Opens the store at `prefix`: NotFound without a root zarr.json; the
  // metadata parser's errors (naming the key) when it is not a 0.8 or 0.9 store.
  static Result<VectorStore> Open(std::shared_ptr<store::Store> store, std::string prefix,
                                  VectorStoreOptions options = {});

  const RootMetadata& metadata() const { return metadata_; }
  // Replaces the root metadata (after a pyramid build adds levels).
  Status SetMetadata(RootMetadata metadata);
  core::ThreadPool& pool() const { return *pool_; }
  // Where `path` (a layout path) lives, for messages.
  std::string Describe(const std::string& path) const;

  // Writes the blob node at `path`; an empty blob erases it instead. In a
  // layout-0.9 store (metadata().layout), the 0.8 path "<family>/<chunk_key>/"
  // writes that chunk's cell of the family array "<family>/", and WriteGroup
  // on a family path keeps the attributes for the array's metadata, which
  // Publish writes (before the root).
  Status WriteBlob(const std::string& path, ByteView blob) const;
  // The blob at `path`, or nullopt when no node is there. Corruption (naming
  // the path) for a node with metadata but no chunk, or one that fails to decode.
  // In a layout-0.9 store, the 0.8 path "<family>/<chunk_key>/" reads that
  // chunk's cell of the family array "<family>/" (nullopt when empty).
  Result<std::optional<Bytes>> ReadBlob(const std::string& path) const;
  // Where the blob at `path` lives, for messages: Describe(path) in 0.8; in
  // 0.9 the cell of the family array that holds it ("<family>/c/i/j/k").
  std::string DescribeBlob(const std::string& path) const;
  // Writes a group node with `attributes` at `path`.
  Status WriteGroup(const std::string& path, const nlohmann::json& attributes) const;
  // The attributes of the group at `path`; nullopt when there is no node.
  Result<std::optional<nlohmann::json>> ReadGroupAttributes(const std::string& path) const;
  // The names of the nodes directly under `path` (chunk keys, deltas, ...), sorted.
  Result<std::vector<std::string>> ListChildren(const std::string& path) const;
  // Erases every key under `path`.
  Status EraseAll(const std::string& path) const;

  // The level group's metadata; NotFound naming the path when the level is absent.
  Result<LevelMetadata> ReadLevel(int level) const;
  Status WriteLevel(const LevelMetadata& metadata) const;

  // Whether WithBlobsFetched fetches in batches: a layout-0.8 store on a
  // store whose gets are batched (a remote one, store/batched_gets.h).
  bool fetches_blobs_in_batches() const;
  // A copy of this view whose ReadBlob of the layout-0.8 blob paths `paths`
  // reads values fetched here in one batch of requests from the calling
  // thread (store::GetMany: every node's zarr.json and chunk at once), so
  // that a reader of many chunks (ReadGeometry) keeps many requests on the
  // wire without a pool thread each and the pool only decodes; other reads
  // go to the store. A plain copy where !fetches_blobs_in_batches(). The
  // values are held as long as the copy (and copies of it) live.
  VectorStore WithBlobsFetched(std::span<const std::string> paths) const;

  const std::shared_ptr<store::Store>& raw_store() const { return store_; }
  const std::string& prefix() const { return prefix_; }

 private:
  VectorStore(std::shared_ptr<store::Store> store, std::string prefix, RootMetadata metadata,
              VectorStoreOptions options);
  Result<std::optional<Bytes>> ReadCellOf09(const std::string& path) const;
  // The value of `key` (prefix included): one WithBlobsFetched fetched, or
  // the store's.
  Result<std::optional<Bytes>> GetValue(const std::string& key) const;
  Status WriteCellOf09(const std::string& path, ByteView blob) const;
  // Writes the zarr.json of every 0.9 family array written so far.
  Status FinishArrays09() const;
  // The chunk of cell [0, 0, 0]: floor(bounds_min / chunk_shape).
  ChunkCoord Origin09() const;

  // Layout 0.9 writes: which cells each family array got and the attributes
  // its family "group" was given, until Publish writes the arrays' metadata.
  struct Arrays09 {
    std::mutex mutex;
    std::map<std::string, std::set<ChunkCoord>> cells;
    std::map<std::string, nlohmann::json> attributes;
    // Reads: the metadata of each family array opened, so a cell read is one Get.
    std::map<std::string, std::shared_ptr<const VlenArray>> opened;
  };
  std::shared_ptr<Arrays09> arrays09_ = std::make_shared<Arrays09>();

  std::shared_ptr<store::Store> store_;
  // Values fetched by WithBlobsFetched, by key; null: none.
  std::shared_ptr<const std::map<std::string, Result<std::optional<Bytes>>>> fetched_;
  std::string prefix_;
  RootMetadata metadata_;
  std::shared_ptr<core::ThreadPool> pool_;
  int zstd_level_;
  // Shared by copies of this VectorStore, so that all build each chain once.
  std::shared_ptr<BlobChains> blob_chains_ = std::make_shared<BlobChains>();
};

}  // namespace chunkwise::formats::vectors

#endif  // CHUNKWISE_FORMATS_VECTORS_VECTOR_STORE_H_
