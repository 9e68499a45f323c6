// WriteParquetReferences: .zmetadata plus one padded record file per record
// of each array that holds at least one key.
#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <span>
#include <string>

#include "chunkwise/core/thread_pool.h"
#include "core/json.h"
#include "formats/refs/parquet_references.h"
#include "record_file.h"
#include "reference_grid.h"

namespace chunkwise::formats::refs {
namespace {

using store::Reference;

bool IsMetadataKey(std::string_view key) {
  const std::size_t slash = key.rfind('/');
  const std::string_view last = slash == std::string_view::npos ? key : key.substr(slash + 1);
  return last.starts_with('.');
}

// The chunk references of one array, by row number.
struct ArrayChunks {
  ReferenceGrid grid;
  std::vector<std::pair<std::uint64_t, ReferenceView>> rows;  // Views into the set.
};

Result<nlohmann::json> MetadataJson(const ReferenceSet& set) {
  nlohmann::json metadata = nlohmann::json::object();
  for (const auto& [key, reference] : set.entries()) {
    if (!IsMetadataKey(key) || key == ".zmetadata") continue;
    if (reference.kind != Reference::Kind::kInline) {
      return Status::InvalidArgument("reference set key '" + std::string(key) +
                                     "': Parquet references need metadata inline");
    }
    Result<nlohmann::json> value = core::ParseJson(AsChars(reference.data), key);
    // Metadata is written as JSON objects (fsspec's form); text that is not JSON stays a string.
    metadata[std::string(key)] = value.ok() ? std::move(value).value()
                                            : nlohmann::json(std::string(AsChars(reference.data)));
  }
  return metadata;
}

Result<std::map<std::string, ArrayChunks>> GroupChunks(const ReferenceSet& set) {
  std::map<std::string, ArrayChunks> arrays;
  for (const auto& [key, reference] : set.entries()) {
    if (IsMetadataKey(key)) continue;
    const std::size_t slash = key.rfind('/');
    if (slash == std::string_view::npos) {
      return Status::InvalidArgument("reference set key '" + std::string(key) +
                                     "': Parquet references cannot hold root-level chunks");
    }
    const std::string field(key.substr(0, slash));
    auto it = arrays.find(field);
    if (it == arrays.end()) {
      CHUNKWISE_ASSIGN_OR_RETURN(const std::optional<Reference> zarray,
                                 set.Find(field + "/.zarray"));
      if (!zarray) {
        return Status::Unsupported("reference set key '" + std::string(key) +
                                   "': Parquet references place every key in the chunk grid of "
                                   "its array's .zarray, and there is no '" +
                                   field + "/.zarray'; " + std::string(kParquetNeedsZarrKeys))
            .WithField("reference_format");
      }
      if (zarray->kind != Reference::Kind::kInline) {
        return Status::InvalidArgument("reference set key '" + std::string(key) + "': '" + field +
                                       "/.zarray' is not inline, so it cannot place the key in "
                                       "the chunk grid");
      }
      CHUNKWISE_ASSIGN_OR_RETURN(ReferenceGrid grid,
                                 ReferenceGrid::FromZarray(AsChars(zarray->data), field));
      if (grid.slash_separator) {
        return Status::InvalidArgument(
            "array '" + field +
            "' uses dimension_separator \"/\"; Parquet references hold only "
            "'.'-separated chunk keys (rewrite the keys and .zarray with '.' first)");
      }
      it = arrays.emplace(field, ArrayChunks{std::move(grid), {}}).first;
    }
    const std::optional<std::uint64_t> row = it->second.grid.RowOfChunk(key.substr(slash + 1));
    if (!row) {
      return Status::InvalidArgument("reference set key '" + std::string(key) +
                                     "' is not a chunk of the grid of '" + field + "/.zarray'");
    }
    if (reference.kind == Reference::Kind::kRange &&
        (reference.offset > INT64_MAX || reference.length > INT64_MAX)) {
      return Status::InvalidArgument("reference set key '" + std::string(key) +
                                     "': range exceeds INT64");
    }
    it->second.rows.emplace_back(*row, reference);
  }
  return arrays;
}

// With overwrite, the previous set goes first, .zmetadata before its record
// files, so that no stale record file of it survives next to the new ones
// and no reader opens a set half of which is gone.
Status RemovePreviousSet(store::Store& store, const std::string& prefix,
                         const std::vector<std::string>& keys) {
  CHUNKWISE_RETURN_IF_ERROR(store.Erase(prefix + ".zmetadata"));
  for (const std::string& key : keys) {
    const std::size_t slash = key.rfind('/');
    const std::string_view name =
        std::string_view(key).substr(slash == std::string::npos ? 0 : slash + 1);
    if (name.starts_with("refs.") && name.ends_with(".parq")) {
      CHUNKWISE_RETURN_IF_ERROR(store.Erase(key));
    }
  }
  return Status::Ok();
}

// A zero-length range at offset 0 would read back as the whole file; empty
// inline data reads back as the same empty value.
const ReferenceView kEmptyInline;

Status WriteRecord(store::Store& store, const std::string& field,
                   std::span<const std::pair<std::uint64_t, ReferenceView>> rows,
                   const ParquetReferenceOptions& options) {
  const std::uint64_t record = rows.front().first / options.record_size;
  RecordToWrite record_rows;
  record_rows.references.assign(options.record_size, nullptr);
  for (const auto& [row, reference] : rows) {
    const bool empty_at_zero =
        reference.kind == Reference::Kind::kRange && reference.offset == 0 && reference.length == 0;
    record_rows.references[row % options.record_size] = empty_at_zero ? &kEmptyInline : &reference;
  }
  const std::string key = field + "/refs." + std::to_string(record) + ".parq";
  CHUNKWISE_ASSIGN_OR_RETURN(const Bytes file,
                             EncodeRecordFile(record_rows, static_cast<int>(options.compression),
                                              options.zstd_level, store.Describe(key)));
  CHUNKWISE_RETURN_IF_ERROR(store.Set(key, file));
  if (options.progress != nullptr) options.progress->Add(rows.size());
  return Status::Ok();
}

// What .zmetadata's "chunkwise_records" says of one array: the record files
// written, as inclusive ranges of record numbers, and how many references
// they hold, so that a reader can tell a lost file from a record with no keys.
nlohmann::json RecordListing(const ArrayChunks& array, std::uint64_t record_size) {
  nlohmann::json ranges = nlohmann::json::array();
  for (const auto& [row, reference] : array.rows) {
    const std::uint64_t record = row / record_size;
    if (!ranges.empty() && ranges.back()[1].get<std::uint64_t>() + 1 >= record) {
      ranges.back()[1] = record;
    } else {
      ranges.push_back({record, record});
    }
  }
  return {{"files", std::move(ranges)}, {"references", array.rows.size()}};
}

// Record files are independent: they are encoded and written in parallel,
// at most one per thread in memory at a time.
Status WriteArray(store::Store& store, const std::string& field, ArrayChunks& array,
                  const ParquetReferenceOptions& options, core::ThreadPool& pool) {
  std::sort(array.rows.begin(), array.rows.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<std::size_t> record_starts;
  for (std::size_t i = 0; i < array.rows.size(); ++i) {
    if (i == 0 || array.rows[i].first / options.record_size !=
                      array.rows[i - 1].first / options.record_size) {
      record_starts.push_back(i);
    }
  }
  record_starts.push_back(array.rows.size());
  const std::span<const std::pair<std::uint64_t, ReferenceView>> rows(array.rows);
  return pool.ParallelFor(record_starts.size() - 1, [&](std::size_t r) {
    return WriteRecord(store, field,
                       rows.subspan(record_starts[r], record_starts[r + 1] - record_starts[r]),
                       options);
  });
}

}  // namespace

Status WriteParquetReferences(const ReferenceSet& set, store::Store& store,
                              const std::string& prefix, const ParquetReferenceOptions& options) {
  if (options.record_size == 0 || options.record_size > (std::uint64_t{1} << 24)) {
    return Status::InvalidArgument("Parquet references: record_size must be 1 to 16777216");
  }
  CHUNKWISE_ASSIGN_OR_RETURN(const std::vector<std::string> existing, store.List(prefix));
  if (!existing.empty() && !options.overwrite) {
    return Status::InvalidArgument(store.Describe(existing.front()) +
                                   " already exists (overwrite not requested)")
        .WithField("overwrite");
  }
  CHUNKWISE_ASSIGN_OR_RETURN(nlohmann::json metadata, MetadataJson(set));
  CHUNKWISE_ASSIGN_OR_RETURN(auto arrays, GroupChunks(set));
  CHUNKWISE_RETURN_IF_ERROR(RemovePreviousSet(store, prefix, existing));
  core::ThreadPool pool(options.threads);
  nlohmann::json listing = nlohmann::json::object();
  for (auto& [field, array] : arrays) {
    CHUNKWISE_RETURN_IF_ERROR(WriteArray(store, prefix + field, array, options, pool));
    listing[field] = RecordListing(array, options.record_size);  // Rows sorted by WriteArray.
  }
  // Other readers ignore the extra top-level key (docs/formats/parquet.md, "fsspec
  // Parquet reference sets").
  const nlohmann::json zmetadata = {{"metadata", std::move(metadata)},
                                    {"record_size", options.record_size},
                                    {"chunkwise_records", std::move(listing)}};
  return store.Set(
      prefix + ".zmetadata",
      AsBytes(zmetadata.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace)));
}

}  // namespace chunkwise::formats::refs
