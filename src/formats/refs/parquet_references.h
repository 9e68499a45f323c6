// fsspec's Parquet reference layout (LazyReferenceMapper): a `.zmetadata`
// JSON file with every zarr metadata key and the record size, and per array
// `<field>/refs.<n>.parq` files of `record_size` rows each, one row per chunk
// in C order over the chunk grid, columns path, offset, size, raw. The files
// are values under a prefix of a store (a directory's FileStore: prefix "").
//
// Spec: docs/formats/parquet.md, "fsspec Parquet reference sets" (what
// chunkwise writes and reads). The writer pads every record file to record_size
// rows and dictionary-encodes `path`; the reader opens record files only when a
// key in them is looked up, keeps a bounded number decoded, and accepts the
// legacy forms (string metadata, files with only `raw` or only
// path/offset/size, a truncated last file, pyarrow's null-typed columns).
#ifndef CHUNKWISE_FORMATS_REFS_PARQUET_REFERENCES_H_
#define CHUNKWISE_FORMATS_REFS_PARQUET_REFERENCES_H_

#include <cstdint>
#include <memory>
#include <string>

#include "chunkwise/core/progress.h"
#include "chunkwise/core/result.h"
#include "chunkwise/store/reference.h"
#include "chunkwise/store/store.h"
#include "formats/parquet/file_metadata.h"
#include "formats/refs/reference_set.h"

namespace chunkwise::formats::refs {

inline constexpr std::uint64_t kDefaultParquetRecordSize = 100000;

struct ParquetReferenceOptions {
  std::uint64_t record_size = kDefaultParquetRecordSize;  // Rows per record file (> 0).
  // Replace an existing set at the prefix (its .zmetadata and refs.*.parq).
  bool overwrite = false;
  parquet::Compression compression = parquet::Compression::kZstd;
  int zstd_level = 3;
  std::size_t threads = 0;  // Record files encoded in parallel; 0: one per core.
  // Not owned; when set, Add(n) is called as each record file of n references is written.
  core::ProgressReporter* progress = nullptr;
};

// Writes `set` under `prefix` ("" or ending in "/") of `store` in the layout
// above. Every key whose last
// segment starts with "." is metadata and must be inline JSON; every other
// key must be a chunk key "<field>/<i>.<j>..." of an array whose
// "<field>/.zarray" is in the set. Record files are written first and
// `.zmetadata` last, each atomically, so an interrupted write leaves no
// openable set. InvalidArgument naming the key for keys the layout cannot
// hold (a "/" dimension_separator, a chunk index outside the grid, a root-level
// array) or when keys exist under the prefix and !overwrite; Unsupported
// naming the key for a key of a field with no ".zarray" (e.g. DVID export
// blocks, keyed x_y_z), whose message ends with kParquetNeedsZarrKeys. A zero-length
// range at offset 0 (which the layout would read as a whole file) is written
// as empty inline data.
// How an error about keys outside any zarr chunk grid ends: fsspec's Parquet
// layout places each key in its array's grid, so such keys go to JSON.
inline constexpr std::string_view kParquetNeedsZarrKeys =
    "such keys can be written only as JSON references";

Status WriteParquetReferences(const ReferenceSet& set, store::Store& store,
                              const std::string& prefix,
                              const ParquetReferenceOptions& options = {});

struct ParquetOpenOptions {
  std::size_t max_cached_records = 16;  // Decoded record files kept (LRU); at least 1.
};

// A Parquet reference set opened lazily: `.zmetadata` is read by Open, a
// record file when a key in it is first looked up. Thread-safe.
class ParquetReferenceIndex final : public store::ReferenceIndex {
 public:
  // The set under `prefix` ("" or ending in "/") of `store`. NotFound if its
  // .zmetadata is missing; Corruption naming the key if it is malformed or
  // lacks record_size.
  static Result<std::unique_ptr<ParquetReferenceIndex>> Open(
      std::shared_ptr<const store::Store> store, std::string prefix,
      const ParquetOpenOptions& options = {});
  ~ParquetReferenceIndex() override;

  // Metadata keys from .zmetadata; chunk keys from their record file (a
  // missing file, a row past its end or a null path mean "no such key").
  // Corruption naming the record file if it is malformed.
  Result<std::optional<store::Reference>> Find(std::string_view key) const override;
  // Reads every record file of the arrays under `prefix` (the files the
  // store lists for each array, through no cache).
  Result<std::vector<std::string>> Keys(std::string_view prefix) const override;

  std::uint64_t record_size() const;
  // How many record files have been read and decoded so far (cache misses and Keys).
  std::uint64_t record_files_opened() const;
  // How many decoded record files the cache holds now (<= max_cached_records).
  std::size_t cached_records() const;

  // Every key of the set, read record file by record file (through no cache).
  Result<ReferenceSet> LoadAll() const;

  struct State;  // Opaque: defined in the .cc file.

 private:
  explicit ParquetReferenceIndex(std::unique_ptr<State> state);
  std::unique_ptr<State> state_;
};

// The same as ParquetReferenceIndex::Open, as the plain interface the store
// layer and the CLI use.
Result<std::unique_ptr<store::ReferenceIndex>> OpenParquetReferences(
    std::shared_ptr<const store::Store> store, std::string prefix,
    const ParquetOpenOptions& options = {});

// Loads every key of the Parquet set under `prefix` of `store` into memory
// (for `refs info`, conversion to JSON, tests).
Result<ReferenceSet> LoadParquetReferences(std::shared_ptr<const store::Store> store,
                                           std::string prefix);

// True if `prefix` of `store` holds a `.zmetadata` with a record_size, i.e.
// looks like a Parquet reference set (no other checks).
bool IsParquetReferenceSet(const store::Store& store, const std::string& prefix);

}  // namespace chunkwise::formats::refs

#endif  // CHUNKWISE_FORMATS_REFS_PARQUET_REFERENCES_H_
