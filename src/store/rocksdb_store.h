// RocksDbStore: a Store over an embedded RocksDB database, plus ordered
// binary-key access for formats that need a native key order.
//
// The Store interface (store.h) lives in RocksDB's default column family and
// takes the usual validated "/"-separated keys (store/key.h). Formats whose
// keys are binary and whose reads are range scans in key order — the DVID
// labelmap (docs/formats/dvid.md) keys blocks as big-endian (scale, z, y, x,
// version) — use the binary-key methods, which address a second column family
// ("binary") so that binary keys never show up in List(). Keys there are
// compared bytewise, as unsigned bytes. Every method is thread-safe: RocksDB
// serializes writers internally and readers see a consistent snapshot per call.
// Only one process can open a database for writing, so the conditional
// writes compare and write under a lock of this store's: a value's
// generation is its size and a 128-bit hash of its bytes (equal values
// share a generation, which a compare-and-swap of the value allows).
#ifndef CHUNKWISE_STORE_ROCKSDB_STORE_H_
#define CHUNKWISE_STORE_ROCKSDB_STORE_H_

#include <filesystem>
#include <functional>
#include <memory>
#include <shared_mutex>
#include <string>
#include <utility>
#include <vector>

#include "chunkwise/store/store.h"

namespace chunkwise::store {

struct RocksDbStoreOptions {
  bool create_if_missing = true;  // Else NotFound when the database does not exist.
  bool read_only = false;         // Open without taking the write lock; writes fail.
  bool sync_writes = false;       // fsync the write-ahead log on every write.
};

// One key and value seen by a scan. Both views are valid only during the visit.
struct KeyValueView {
  std::string_view key;
  ByteView value;
};

// Called for each entry of a scan in key order; return false to stop early,
// or an error to stop and pass it to the caller of the scan.
using ScanVisitor = std::function<Result<bool>(const KeyValueView& entry)>;

// A write of a binary key: a value, or a deletion when `erase` is set.
struct BinaryWrite {
  std::string key;
  Bytes value;
  bool erase = false;
};

class RocksDbStore final : public Store {
 public:
  // Opens (and with create_if_missing, creates) the database directory at
  // `path`. NotFound if it does not exist and may not be created; IOError
  // naming the path for anything RocksDB refuses (a lock held by another
  // process, a file that is not a database).
  static Result<std::shared_ptr<RocksDbStore>> Open(const std::filesystem::path& path,
                                                    RocksDbStoreOptions options = {});
  ~RocksDbStore() override;
  RocksDbStore(const RocksDbStore&) = delete;
  RocksDbStore& operator=(const RocksDbStore&) = delete;

  Result<std::optional<Bytes>> Get(std::string_view key) const override;
  // Reads the whole value and slices it (RocksDB has no partial reads).
  Result<std::optional<Bytes>> GetRange(std::string_view key, ByteRange range) const override;
  Status Set(std::string_view key, ByteView value) override;
  Status Erase(std::string_view key) override;
  Result<Generation> GetGeneration(std::string_view key) const override;
  Result<std::optional<VersionedValue>> GetVersioned(std::string_view key) const override;
  Result<Generation> SetPartsIf(std::string_view key, std::span<const ByteView> parts,
                                const Generation& expected) override;
  Status EraseIf(std::string_view key, const Generation& expected) override;
  Result<std::vector<std::string>> List(std::string_view prefix) const override;
  Result<std::optional<std::uint64_t>> Size(std::string_view key) const override;
  StoreCapabilities capabilities() const override;
  // "rocksdb:<path>:<key>".
  std::string Describe(std::string_view key) const override;

  // Visits the Store keys in [begin, end) in sorted order; an empty `end`
  // means no upper bound. IOError if RocksDB fails mid-scan.
  Status Scan(std::string_view begin, std::string_view end, const ScanVisitor& visit) const;

  // Binary-key methods: any bytes form a key (the empty key included).
  Result<std::optional<Bytes>> GetBinary(std::string_view key) const;
  Status SetBinary(std::string_view key, ByteView value);
  // Applies all writes atomically (a write with `erase` erases its key): a
  // reader sees none or all of them.
  Status WriteBinary(const std::vector<BinaryWrite>& writes);
  // Visits binary keys in [begin, end) in bytewise order; empty `end` = no bound.
  Status ScanBinary(std::string_view begin, std::string_view end, const ScanVisitor& visit) const;

  const std::filesystem::path& path() const { return path_; }

 private:
  struct Handles;
  RocksDbStore(std::filesystem::path path, RocksDbStoreOptions options,
               std::unique_ptr<Handles> handles);

  // The generation `key` is at, read under conditional_mutex_ held.
  Result<Generation> CurrentGeneration(std::string_view key) const;

  const std::filesystem::path path_;
  const RocksDbStoreOptions options_;
  std::unique_ptr<Handles> handles_;
  // Plain writes hold it shared, conditional ones exclusively from their
  // compare to their write.
  mutable std::shared_mutex conditional_mutex_;
};

}  // namespace chunkwise::store

#endif  // CHUNKWISE_STORE_ROCKSDB_STORE_H_
