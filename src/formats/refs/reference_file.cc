#include "formats/refs/reference_file.h"

#include "formats/refs/json_reader.h"
#include "formats/refs/json_writer.h"
#include "formats/refs/parquet_references.h"

namespace chunkwise::formats::refs {
namespace {

// The prefix of the values of a Parquet set named `key`.
std::string ParquetPrefix(const std::string& key) { return key.empty() ? key : key + "/"; }

Status WriteParquet(store::Store& store, const std::string& key, const ReferenceSet& set,
                    const ReferenceWriteOptions& options) {
  ParquetReferenceOptions parquet;
  parquet.record_size = options.record_size;
  parquet.overwrite = options.overwrite;
  if (set.Find(".zarray").value().has_value()) {
    const std::string name = options.root_array_name.empty() ? "data" : options.root_array_name;
    return WriteParquetReferences(NestRootArray(set, name), store, ParquetPrefix(key), parquet);
  }
  return WriteParquetReferences(set, store, ParquetPrefix(key), parquet);
}

Result<std::shared_ptr<const store::ReferenceIndex>> OpenParquet(
    std::shared_ptr<const store::Store> store, const std::string& key) {
  CHUNKWISE_ASSIGN_OR_RETURN(std::unique_ptr<store::ReferenceIndex> index,
                             OpenParquetReferences(std::move(store), ParquetPrefix(key)));
  return std::shared_ptr<const store::ReferenceIndex>(std::move(index));
}

}  // namespace

ReferenceSet NestRootArray(const ReferenceSet& set, const std::string& name) {
  if (!set.Find(".zarray").value().has_value()) return set;
  ReferenceSet nested;
  constexpr std::string_view kGroup = "{\n    \"zarr_format\": 2\n}";
  nested.Set(".zgroup", store::Reference::Inline(CopyToBytes(AsBytes(kGroup))));
  for (const auto& [key, reference] : set.entries()) {
    if (key == ".zgroup") continue;
    nested.Set(name + "/" + std::string(key), reference);
  }
  return nested;
}

Result<ReferenceFormat> ParseReferenceFormat(std::string_view text) {
  if (text == "json") return ReferenceFormat::kJsonV0;
  if (text == "json-v1") return ReferenceFormat::kJsonV1;
  if (text == "parquet") return ReferenceFormat::kParquet;
  return Status::InvalidArgument("reference format must be json, json-v1 or parquet, got \"" +
                                 std::string(text) + "\"");
}

Status WriteReferences(store::Store& store, const std::string& key, const ReferenceSet& set,
                       const ReferenceWriteOptions& options) {
  if (options.format == ReferenceFormat::kParquet) {
    return WriteParquet(store, key, set, options);
  }
  JsonWriteOptions json;
  json.version = options.format == ReferenceFormat::kJsonV0 ? JsonVersion::kV0 : JsonVersion::kV1;
  json.templates = options.templates;
  return WriteReferenceJson(store, key, set, json, options.overwrite);
}

Result<std::shared_ptr<const store::ReferenceIndex>> OpenReferences(
    std::shared_ptr<const store::Store> store, const std::string& key) {
  const std::string prefix = ParquetPrefix(key);
  CHUNKWISE_ASSIGN_OR_RETURN(const bool parquet, store->Exists(prefix + ".zmetadata"));
  if (parquet) return OpenParquet(std::move(store), key);
  bool json = false;
  if (!key.empty()) {
    CHUNKWISE_ASSIGN_OR_RETURN(json, store->Exists(key));
  }
  if (!json) {
    Result<std::vector<std::string>> inside = store->List(prefix);
    // A store that cannot list (http) has no directory to tell of: the set is missing.
    if (!inside.ok() && inside.status().code() != StatusCode::kUnsupported) {
      return inside.status();
    }
    if (inside.ok() && !inside->empty()) {
      return Status::InvalidArgument(store->Describe(inside->front()) +
                                     ": a directory without .zmetadata, not a reference set");
    }
    return Status::NotFound(store->Describe(key.empty() ? ".zmetadata" : key) + " does not exist");
  }
  CHUNKWISE_ASSIGN_OR_RETURN(ReferenceSet set, ReadReferenceJson(*store, key));
  return std::shared_ptr<const store::ReferenceIndex>(
      std::make_shared<ReferenceSet>(std::move(set)));
}

}  // namespace chunkwise::formats::refs
