#include "store/rocksdb_store.h"

#include <rocksdb/db.h>
#include <rocksdb/options.h>
#include <rocksdb/slice.h>
#include <rocksdb/write_batch.h>

#include <array>
#include <cstdio>
#include <mutex>
#include <system_error>

#include "core/murmurhash3.h"
#include "store/key.h"

namespace chunkwise::store {

namespace {

constexpr const char* kBinaryFamily = "binary";

rocksdb::Slice ToSlice(std::string_view text) { return {text.data(), text.size()}; }
rocksdb::Slice ToSlice(ByteView bytes) {
  return {reinterpret_cast<const char*>(bytes.data()), bytes.size()};
}

Status FromRocks(const rocksdb::Status& status, std::string_view what) {
  if (status.ok()) return Status::Ok();
  std::string message = std::string(what) + ": " + status.ToString();
  if (status.IsNotFound()) return Status::NotFound(std::move(message));
  if (status.IsCorruption()) return Status::Corruption(std::move(message));
  if (status.IsNotSupported()) return Status::Unsupported(std::move(message));
  if (status.IsInvalidArgument()) return Status::InvalidArgument(std::move(message));
  return Status::IOError(std::move(message));
}

Bytes ToBytes(const rocksdb::Slice& slice) {
  const auto* data = reinterpret_cast<const std::uint8_t*>(slice.data());
  return Bytes(data, data + slice.size());
}

}  // namespace

struct RocksDbStore::Handles {
  std::unique_ptr<rocksdb::DB> db;
  rocksdb::ColumnFamilyHandle* store_family = nullptr;   // Owned by db; closed in the destructor.
  rocksdb::ColumnFamilyHandle* binary_family = nullptr;  // Owned by db.
  rocksdb::WriteOptions write_options;

  // Gets `key` from `family`: nullopt if absent.
  Result<std::optional<Bytes>> Get(rocksdb::ColumnFamilyHandle* family, std::string_view key,
                                   std::string_view what) const {
    rocksdb::PinnableSlice value;
    const rocksdb::Status status = db->Get(rocksdb::ReadOptions(), family, ToSlice(key), &value);
    if (status.IsNotFound()) return std::optional<Bytes>();
    CHUNKWISE_RETURN_IF_ERROR(FromRocks(status, what));
    return std::optional<Bytes>(ToBytes(value));
  }

  Status Scan(rocksdb::ColumnFamilyHandle* family, std::string_view begin, std::string_view end,
              const ScanVisitor& visit, std::string_view what) const {
    rocksdb::ReadOptions read_options;
    rocksdb::Slice upper = ToSlice(end);
    if (!end.empty()) read_options.iterate_upper_bound = &upper;
    std::unique_ptr<rocksdb::Iterator> it(db->NewIterator(read_options, family));
    for (it->Seek(ToSlice(begin)); it->Valid(); it->Next()) {
      const rocksdb::Slice key = it->key();
      const rocksdb::Slice value = it->value();
      const KeyValueView entry{
          std::string_view(key.data(), key.size()),
          ByteView(reinterpret_cast<const std::uint8_t*>(value.data()), value.size())};
      CHUNKWISE_ASSIGN_OR_RETURN(const bool more, visit(entry));
      if (!more) return Status::Ok();
    }
    return FromRocks(it->status(), what);
  }

  ~Handles() {
    if (db == nullptr) return;
    if (store_family != nullptr) (void)db->DestroyColumnFamilyHandle(store_family);
    if (binary_family != nullptr) (void)db->DestroyColumnFamilyHandle(binary_family);
    (void)db->Close();
  }
};

RocksDbStore::RocksDbStore(std::filesystem::path path, RocksDbStoreOptions options,
                           std::unique_ptr<Handles> handles)
    : path_(std::move(path)), options_(options), handles_(std::move(handles)) {}

RocksDbStore::~RocksDbStore() = default;

Result<std::shared_ptr<RocksDbStore>> RocksDbStore::Open(const std::filesystem::path& path,
                                                         RocksDbStoreOptions options) {
  std::error_code error;
  const std::filesystem::path absolute = std::filesystem::absolute(path, error);
  if (error) return Status::IOError(path.string() + ": " + error.message());
  const bool exists = std::filesystem::exists(absolute / "CURRENT", error);
  if (!exists && (!options.create_if_missing || options.read_only)) {
    return Status::NotFound(absolute.string() + ": no RocksDB database here");
  }
  if (!exists && !std::filesystem::is_directory(absolute)) {
    std::filesystem::create_directories(absolute, error);
    if (error) return Status::IOError(absolute.string() + ": " + error.message());
  }
  rocksdb::DBOptions db_options;
  db_options.create_if_missing = options.create_if_missing;
  db_options.create_missing_column_families = !options.read_only;
  rocksdb::ColumnFamilyOptions family_options;
  family_options.compression = rocksdb::kNoCompression;  // Values arrive compressed.
  std::vector<rocksdb::ColumnFamilyDescriptor> families = {
      {rocksdb::kDefaultColumnFamilyName, family_options}, {kBinaryFamily, family_options}};
  std::vector<rocksdb::ColumnFamilyHandle*> handles;
  rocksdb::DB* db = nullptr;
  const rocksdb::Status status =
      options.read_only
          ? rocksdb::DB::OpenForReadOnly(db_options, absolute.string(), families, &handles, &db)
          : rocksdb::DB::Open(db_options, absolute.string(), families, &handles, &db);
  CHUNKWISE_RETURN_IF_ERROR(FromRocks(status, "opening RocksDB database " + absolute.string()));
  auto owned = std::make_unique<Handles>();
  owned->db.reset(db);
  owned->store_family = handles[0];
  owned->binary_family = handles[1];
  owned->write_options.sync = options.sync_writes;
  return std::shared_ptr<RocksDbStore>(new RocksDbStore(absolute, options, std::move(owned)));
}

Result<std::optional<Bytes>> RocksDbStore::Get(std::string_view key) const {
  CHUNKWISE_RETURN_IF_ERROR(ValidateKey(key));
  return handles_->Get(handles_->store_family, key, Describe(key));
}

Result<std::optional<Bytes>> RocksDbStore::GetRange(std::string_view key, ByteRange range) const {
  CHUNKWISE_ASSIGN_OR_RETURN(std::optional<Bytes> value, Get(key));
  if (!value.has_value()) return value;
  CHUNKWISE_ASSIGN_OR_RETURN(ByteRange resolved, range.Resolve(value->size(), Describe(key)));
  const auto begin = value->begin() + static_cast<std::ptrdiff_t>(resolved.offset);
  return std::optional<Bytes>(Bytes(begin, begin + static_cast<std::ptrdiff_t>(resolved.length)));
}

Status RocksDbStore::Set(std::string_view key, ByteView value) {
  CHUNKWISE_RETURN_IF_ERROR(ValidateKey(key));
  std::shared_lock not_inside_a_compare(conditional_mutex_);
  return FromRocks(handles_->db->Put(handles_->write_options, handles_->store_family, ToSlice(key),
                                     ToSlice(value)),
                   Describe(key));
}

Status RocksDbStore::Erase(std::string_view key) {
  CHUNKWISE_RETURN_IF_ERROR(ValidateKey(key));
  std::shared_lock not_inside_a_compare(conditional_mutex_);
  return FromRocks(
      handles_->db->Delete(handles_->write_options, handles_->store_family, ToSlice(key)),
      Describe(key));
}

namespace {

Generation GenerationOfValue(ByteView value) {
  const std::array<std::uint32_t, 4> hash = core::MurmurHash3X86_128(value, 0x6e6547u);
  char text[64];
  std::snprintf(text, sizeof(text), "r%llu-%08x%08x%08x%08x",
                static_cast<unsigned long long>(value.size()), hash[0], hash[1], hash[2], hash[3]);
  return Generation::Of(text);
}

}  // namespace

Result<Generation> RocksDbStore::CurrentGeneration(std::string_view key) const {
  CHUNKWISE_ASSIGN_OR_RETURN(std::optional<Bytes> value, Get(key));
  return value.has_value() ? GenerationOfValue(*value) : Generation::Absent();
}

Result<Generation> RocksDbStore::GetGeneration(std::string_view key) const {
  return CurrentGeneration(key);
}

Result<std::optional<VersionedValue>> RocksDbStore::GetVersioned(std::string_view key) const {
  CHUNKWISE_ASSIGN_OR_RETURN(std::optional<Bytes> value, Get(key));
  if (!value.has_value()) return std::optional<VersionedValue>();
  Generation generation = GenerationOfValue(*value);
  return std::optional<VersionedValue>(VersionedValue{std::move(*value), std::move(generation)});
}

Result<Generation> RocksDbStore::SetPartsIf(std::string_view key, std::span<const ByteView> parts,
                                            const Generation& expected) {
  CHUNKWISE_RETURN_IF_ERROR(ValidateKey(key));
  const Bytes value = JoinBytes(parts);
  std::unique_lock compare_then_write(conditional_mutex_);
  CHUNKWISE_ASSIGN_OR_RETURN(const Generation found, CurrentGeneration(key));
  if (found != expected) return GenerationConflict(Describe(key), expected, found);
  CHUNKWISE_RETURN_IF_ERROR(
      FromRocks(handles_->db->Put(handles_->write_options, handles_->store_family, ToSlice(key),
                                  ToSlice(value)),
                Describe(key)));
  return GenerationOfValue(value);
}

Status RocksDbStore::EraseIf(std::string_view key, const Generation& expected) {
  CHUNKWISE_RETURN_IF_ERROR(ValidateKey(key));
  std::unique_lock compare_then_write(conditional_mutex_);
  CHUNKWISE_ASSIGN_OR_RETURN(const Generation found, CurrentGeneration(key));
  if (found != expected) return GenerationConflict(Describe(key), expected, found);
  return FromRocks(
      handles_->db->Delete(handles_->write_options, handles_->store_family, ToSlice(key)),
      Describe(key));
}

Result<std::vector<std::string>> RocksDbStore::List(std::string_view prefix) const {
  CHUNKWISE_RETURN_IF_ERROR(ValidatePrefix(prefix));
  std::vector<std::string> keys;
  CHUNKWISE_RETURN_IF_ERROR(handles_->Scan(
      handles_->store_family, prefix, "",
      [&](const KeyValueView& entry) -> Result<bool> {
        if (!entry.key.starts_with(prefix)) return false;
        keys.emplace_back(entry.key);
        return true;
      },
      Describe(prefix)));
  return keys;
}

Result<std::optional<std::uint64_t>> RocksDbStore::Size(std::string_view key) const {
  CHUNKWISE_ASSIGN_OR_RETURN(std::optional<Bytes> value, Get(key));
  if (!value.has_value()) return std::optional<std::uint64_t>();
  return std::optional<std::uint64_t>(value->size());
}

StoreCapabilities RocksDbStore::capabilities() const {
  return {.writable = !options_.read_only,
          .listable = true,
          .lists_every_key = true,
          .efficient_ranges = false,
          .durable = true,
          .conditional_writes = !options_.read_only};
}

std::string RocksDbStore::Describe(std::string_view key) const {
  return "rocksdb:" + path_.string() + ":" + std::string(key);
}

Status RocksDbStore::Scan(std::string_view begin, std::string_view end,
                          const ScanVisitor& visit) const {
  return handles_->Scan(handles_->store_family, begin, end, visit, Describe(begin));
}

Result<std::optional<Bytes>> RocksDbStore::GetBinary(std::string_view key) const {
  return handles_->Get(handles_->binary_family, key, "rocksdb:" + path_.string());
}

Status RocksDbStore::SetBinary(std::string_view key, ByteView value) {
  return FromRocks(handles_->db->Put(handles_->write_options, handles_->binary_family, ToSlice(key),
                                     ToSlice(value)),
                   "rocksdb:" + path_.string());
}

Status RocksDbStore::WriteBinary(const std::vector<BinaryWrite>& writes) {
  rocksdb::WriteBatch batch;
  for (const BinaryWrite& write : writes) {
    const rocksdb::Status status =
        write.erase ? batch.Delete(handles_->binary_family, ToSlice(write.key))
                    : batch.Put(handles_->binary_family, ToSlice(write.key), ToSlice(write.value));
    CHUNKWISE_RETURN_IF_ERROR(FromRocks(status, "rocksdb:" + path_.string()));
  }
  return FromRocks(handles_->db->Write(handles_->write_options, &batch),
                   "rocksdb:" + path_.string());
}

Status RocksDbStore::ScanBinary(std::string_view begin, std::string_view end,
                                const ScanVisitor& visit) const {
  return handles_->Scan(handles_->binary_family, begin, end, visit, "rocksdb:" + path_.string());
}

}  // namespace chunkwise::store
