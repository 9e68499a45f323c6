// ParquetReferenceIndex: .zmetadata eagerly, record files on demand through a
// small LRU of decoded records.
#include <algorithm>
#include <atomic>
#include <charconv>
#include <list>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <unordered_map>

#include "core/json.h"
#include "formats/refs/parquet_references.h"
#include "record_file.h"
#include "reference_grid.h"

namespace chunkwise::formats::refs {

// What our writer lists in .zmetadata for one array (absent in other
// writers' sets): which record files exist and how many references they hold.
struct RecordListing {
  std::vector<std::pair<std::uint64_t, std::uint64_t>> files;  // Inclusive ranges, sorted.
  std::uint64_t references = 0;

  bool Lists(std::uint64_t record) const {
    const auto after =
        std::upper_bound(files.begin(), files.end(), record,
                         [](std::uint64_t r, const std::pair<std::uint64_t, std::uint64_t>& range) {
                           return r < range.first;
                         });
    return after != files.begin() && record <= std::prev(after)->second;
  }
};

struct ParquetReferenceIndex::State {
  std::shared_ptr<const store::Store> store;
  std::string prefix;  // "" or ending in "/".
  std::uint64_t record_size = 0;
  std::map<std::string, RecordListing, std::less<>> listings;  // field → listing
  std::size_t max_cached = 1;
  std::map<std::string, std::string, std::less<>> metadata;  // key → JSON text
  std::map<std::string, ReferenceGrid, std::less<>> arrays;  // field → grid

  mutable std::mutex mutex;                // Guards the cache.
  mutable std::list<std::string> recency;  // Most recent first.
  struct CacheEntry {
    std::shared_ptr<const RecordRows> rows;  // Null: the file does not exist.
    std::list<std::string>::iterator position;
  };
  mutable std::unordered_map<std::string, CacheEntry> cache;
  mutable std::atomic<std::uint64_t> opened{0};

  // Reads and decodes one record file; null if it does not exist.
  Result<std::shared_ptr<const RecordRows>> Load(const std::string& relative) const;
  Result<std::shared_ptr<const RecordRows>> Cached(const std::string& relative) const;
};

Result<std::shared_ptr<const RecordRows>> ParquetReferenceIndex::State::Load(
    const std::string& relative) const {
  const std::string key = prefix + relative;
  CHUNKWISE_ASSIGN_OR_RETURN(const std::optional<Bytes> file, store->Get(key));
  if (!file.has_value()) return std::shared_ptr<const RecordRows>();
  opened.fetch_add(1, std::memory_order_relaxed);
  CHUNKWISE_ASSIGN_OR_RETURN(RecordRows rows, RecordRows::Decode(*file, store->Describe(key)));
  return std::make_shared<const RecordRows>(std::move(rows));
}

Result<std::shared_ptr<const RecordRows>> ParquetReferenceIndex::State::Cached(
    const std::string& relative) const {
  {
    std::lock_guard lock(mutex);
    if (auto it = cache.find(relative); it != cache.end()) {
      recency.splice(recency.begin(), recency, it->second.position);
      return it->second.rows;
    }
  }
  // Decoded outside the lock, so lookups in other records go on meanwhile.
  CHUNKWISE_ASSIGN_OR_RETURN(std::shared_ptr<const RecordRows> rows, Load(relative));
  std::lock_guard lock(mutex);
  if (auto it = cache.find(relative); it != cache.end()) return it->second.rows;
  recency.push_front(relative);
  cache.emplace(relative, CacheEntry{rows, recency.begin()});
  while (cache.size() > max_cached) {
    cache.erase(recency.back());
    recency.pop_back();
  }
  return rows;
}

namespace {

// Metadata values are JSON objects in current files, strings in some older ones.
std::string MetadataText(const nlohmann::json& value) {
  return value.is_string() ? value.get<std::string>()
                           : value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

Status ParseZmetadata(ByteView text, const std::string& name, ParquetReferenceIndex::State& state);

}  // namespace

ParquetReferenceIndex::ParquetReferenceIndex(std::unique_ptr<State> state)
    : state_(std::move(state)) {}
ParquetReferenceIndex::~ParquetReferenceIndex() = default;

Result<std::unique_ptr<ParquetReferenceIndex>> ParquetReferenceIndex::Open(
    std::shared_ptr<const store::Store> store, std::string prefix,
    const ParquetOpenOptions& options) {
  auto state = std::make_unique<State>();
  state->store = std::move(store);
  state->prefix = std::move(prefix);
  state->max_cached = std::max<std::size_t>(options.max_cached_records, 1);
  const std::string zmetadata = state->prefix + ".zmetadata";
  CHUNKWISE_ASSIGN_OR_RETURN(const std::optional<Bytes> text, state->store->Get(zmetadata));
  if (!text.has_value()) {
    return Status::NotFound(state->store->Describe(zmetadata) + " does not exist");
  }
  CHUNKWISE_RETURN_IF_ERROR(ParseZmetadata(*text, state->store->Describe(zmetadata), *state));
  return std::unique_ptr<ParquetReferenceIndex>(new ParquetReferenceIndex(std::move(state)));
}

namespace {

// "chunkwise_records": {"<field>": {"files": [[first, last], ...], "references": n}}
Status ParseListings(const nlohmann::json& json, const std::string& name,
                     ParquetReferenceIndex::State& state) {
  const auto listings = json.find("chunkwise_records");
  if (listings == json.end()) return Status::Ok();
  const Status malformed = Status::Corruption(name + ": malformed \"chunkwise_records\"");
  if (!listings->is_object()) return malformed;
  for (const auto& [field, value] : listings->items()) {
    if (!value.is_object() || !value.contains("files") || !value["files"].is_array() ||
        !value.contains("references") || !value["references"].is_number_unsigned()) {
      return malformed;
    }
    RecordListing listing;
    listing.references = value["references"].get<std::uint64_t>();
    for (const nlohmann::json& range : value["files"]) {
      if (!range.is_array() || range.size() != 2 || !range[0].is_number_unsigned() ||
          !range[1].is_number_unsigned() || range[0] > range[1] ||
          (!listing.files.empty() &&
           range[0].get<std::uint64_t>() <= listing.files.back().second)) {
        return malformed;
      }
      listing.files.emplace_back(range[0].get<std::uint64_t>(), range[1].get<std::uint64_t>());
    }
    state.listings.emplace(field, std::move(listing));
  }
  return Status::Ok();
}

// Corruption: .zmetadata lists a record file that is not there.
Status ListedFileMissing(const ParquetReferenceIndex::State& state, const std::string& relative) {
  return Status::Corruption(state.store->Describe(state.prefix + relative) +
                            " is missing, though .zmetadata lists it");
}

Status ParseZmetadata(ByteView text, const std::string& name, ParquetReferenceIndex::State& state) {
  CHUNKWISE_ASSIGN_OR_RETURN(const nlohmann::json json,
                             core::ParseJson(AsChars(text), name, StatusCode::kCorruption));
  if (!json.is_object()) return Status::Corruption(name + " is not a JSON object");
  const auto record_size = json.find("record_size");
  if (record_size == json.end() || !record_size->is_number_unsigned() ||
      record_size->get<std::uint64_t>() == 0) {
    return Status::Corruption(name + ": no positive integer \"record_size\"");
  }
  state.record_size = record_size->get<std::uint64_t>();
  const auto metadata = json.find("metadata");
  if (metadata == json.end() || !metadata->is_object()) {
    return Status::Corruption(name + ": no \"metadata\" object");
  }
  for (const auto& [key, value] : metadata->items()) {
    state.metadata.emplace(key, MetadataText(value));
  }
  CHUNKWISE_RETURN_IF_ERROR(ParseListings(json, name, state));
  for (const auto& [key, text_value] : state.metadata) {
    if (key != ".zarray" && !key.ends_with("/.zarray")) continue;
    const std::string field = key.size() > 8 ? key.substr(0, key.size() - 8) : "";
    CHUNKWISE_ASSIGN_OR_RETURN(ReferenceGrid grid, ReferenceGrid::FromZarray(text_value, field));
    state.arrays.emplace(field, std::move(grid));
  }
  return Status::Ok();
}

std::string RecordName(std::string_view field, std::uint64_t record) {
  return std::string(field) + "/refs." + std::to_string(record) + ".parq";
}

}  // namespace

Result<std::optional<store::Reference>> ParquetReferenceIndex::Find(std::string_view key) const {
  if (auto it = state_->metadata.find(key); it != state_->metadata.end()) {
    return std::optional(store::Reference::Inline(CopyToBytes(AsBytes(it->second))));
  }
  const std::size_t slash = key.rfind('/');
  if (slash == std::string_view::npos) return std::optional<store::Reference>();
  const auto array = state_->arrays.find(key.substr(0, slash));
  if (array == state_->arrays.end()) return std::optional<store::Reference>();
  const std::optional<std::uint64_t> row = array->second.RowOfChunk(key.substr(slash + 1));
  if (!row) return std::optional<store::Reference>();
  const std::uint64_t record = *row / state_->record_size;
  const auto listing = state_->listings.find(array->first);
  const bool listed = listing != state_->listings.end();
  // A record the writer listed as empty has no file to look for.
  if (listed && !listing->second.Lists(record)) return std::optional<store::Reference>();
  const std::string relative = RecordName(array->first, record);
  CHUNKWISE_ASSIGN_OR_RETURN(const auto rows, state_->Cached(relative));
  if (rows == nullptr) {
    if (listed) return ListedFileMissing(*state_, relative);
    return std::optional<store::Reference>();
  }
  return rows->At(*row % state_->record_size);
}

namespace {

// The record numbers n of the values <field_prefix>refs.<n>.parq, sorted
// (listing beats probing every record of a sparse grid).
Result<std::vector<std::uint64_t>> RecordsPresent(const store::Store& store,
                                                  const std::string& field_prefix) {
  std::vector<std::uint64_t> records;
  CHUNKWISE_ASSIGN_OR_RETURN(const std::vector<std::string> keys,
                             store.List(field_prefix + "refs."));
  for (const std::string& key : keys) {
    const std::string name = key.substr(field_prefix.size());
    if (!name.ends_with(".parq") || name.find('/') != std::string::npos) continue;
    const std::string_view number = std::string_view(name).substr(5, name.size() - 10);
    std::uint64_t record = 0;
    const auto [end, failure] =
        std::from_chars(number.data(), number.data() + number.size(), record);
    if (failure == std::errc() && end == number.data() + number.size() && !number.empty() &&
        name == "refs." + std::to_string(record) + ".parq") {
      records.push_back(record);
    }
  }
  std::sort(records.begin(), records.end());
  return records;
}

// Calls `visit(key, reference)` for every chunk key of the arrays that may
// hold keys starting with `prefix`, record file by record file.
template <typename Visit>  // A template only to take the lambda without std::function.
Status VisitChunks(const ParquetReferenceIndex::State& state, std::string_view prefix,
                   Visit visit) {
  for (const auto& entry : state.arrays) {
    // Named references, not a structured binding: the lambda below captures them.
    const std::string& field = entry.first;
    const ReferenceGrid& grid = entry.second;
    if (field.empty()) continue;  // A root-level array has no record files in this layout.
    const std::string field_prefix = field + "/";
    if (!field_prefix.starts_with(prefix) && !prefix.starts_with(field_prefix)) continue;
    const auto listing = state.listings.find(field);
    const RecordListing* listed = listing == state.listings.end() ? nullptr : &listing->second;
    std::uint64_t references = 0;
    auto visit_record = [&](std::uint64_t record) -> Status {
      const std::string relative = RecordName(field, record);
      CHUNKWISE_ASSIGN_OR_RETURN(const auto rows, state.Load(relative));
      if (rows == nullptr) {
        if (listed != nullptr) return ListedFileMissing(state, relative);
        return Status::Ok();
      }
      const std::uint64_t first = record * state.record_size;
      for (std::size_t row = 0; row < rows->rows() && first + row < grid.chunk_count(); ++row) {
        std::optional<store::Reference> reference = rows->At(row);
        if (!reference) continue;
        ++references;
        std::string key = field_prefix + grid.ChunkOfRow(first + row);
        if (key.starts_with(prefix)) visit(std::move(key), std::move(*reference));
      }
      return Status::Ok();
    };
    const std::uint64_t last_record = grid.chunk_count() / state.record_size;  // Past: no rows.
    if (listed == nullptr) {
      CHUNKWISE_ASSIGN_OR_RETURN(const std::vector<std::uint64_t> records,
                                 RecordsPresent(*state.store, state.prefix + field_prefix));
      for (const std::uint64_t record : records) {
        if (record <= last_record) CHUNKWISE_RETURN_IF_ERROR(visit_record(record));
      }
    } else {
      for (const auto& [first, last] : listed->files) {
        const std::uint64_t end = std::min(last, last_record);
        for (std::uint64_t record = first; record <= end; ++record) {
          CHUNKWISE_RETURN_IF_ERROR(visit_record(record));
          if (record == end) break;  // Never wraps past UINT64_MAX.
        }
      }
    }
    if (listed != nullptr && references != listed->references) {
      return Status::Corruption(state.store->Describe(state.prefix + field_prefix) +
                                ": the record files hold " + std::to_string(references) +
                                " references, .zmetadata says " +
                                std::to_string(listed->references));
    }
  }
  return Status::Ok();
}

}  // namespace

Result<std::vector<std::string>> ParquetReferenceIndex::Keys(std::string_view prefix) const {
  std::vector<std::string> keys;
  for (auto it = state_->metadata.lower_bound(prefix);
       it != state_->metadata.end() && std::string_view(it->first).starts_with(prefix); ++it) {
    keys.push_back(it->first);
  }
  CHUNKWISE_RETURN_IF_ERROR(VisitChunks(
      *state_, prefix, [&](std::string key, store::Reference) { keys.push_back(std::move(key)); }));
  std::sort(keys.begin(), keys.end());
  return keys;
}

Result<ReferenceSet> ParquetReferenceIndex::LoadAll() const {
  // Chunks arrive in row order, which is not key order: appended, then sorted once.
  ReferenceSetBuilder set;
  for (const auto& [key, text] : state_->metadata) {
    ReferenceView inline_text;
    inline_text.data = AsBytes(text);
    set.Add(key, inline_text);
  }
  CHUNKWISE_RETURN_IF_ERROR(VisitChunks(
      *state_, "", [&](std::string key, store::Reference reference) { set.Add(key, reference); }));
  return set.Build();
}

Result<ReferenceSet> LoadParquetReferences(std::shared_ptr<const store::Store> store,
                                           std::string prefix) {
  CHUNKWISE_ASSIGN_OR_RETURN(const auto index,
                             ParquetReferenceIndex::Open(std::move(store), std::move(prefix)));
  return index->LoadAll();
}

std::uint64_t ParquetReferenceIndex::record_size() const { return state_->record_size; }
std::uint64_t ParquetReferenceIndex::record_files_opened() const { return state_->opened.load(); }
std::size_t ParquetReferenceIndex::cached_records() const {
  std::lock_guard lock(state_->mutex);
  return state_->cache.size();
}

Result<std::unique_ptr<store::ReferenceIndex>> OpenParquetReferences(
    std::shared_ptr<const store::Store> store, std::string prefix,
    const ParquetOpenOptions& options) {
  CHUNKWISE_ASSIGN_OR_RETURN(
      auto index, ParquetReferenceIndex::Open(std::move(store), std::move(prefix), options));
  return std::unique_ptr<store::ReferenceIndex>(std::move(index));
}

bool IsParquetReferenceSet(const store::Store& store, const std::string& prefix) {
  Result<std::optional<Bytes>> text = store.Get(prefix + ".zmetadata");
  if (!text.ok() || !text->has_value()) return false;
  Result<nlohmann::json> json =
      core::ParseJson(AsChars(**text), store.Describe(prefix + ".zmetadata"));
  return json.ok() && json->is_object() && json->contains("record_size");
}

}  // namespace chunkwise::formats::refs
