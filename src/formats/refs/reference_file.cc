#include "chunkwise/formats/refs/reference_file.h"

#include <system_error>

#include "chunkwise/formats/refs/json_reader.h"
#include "chunkwise/formats/refs/json_writer.h"
#include "chunkwise/formats/refs/parquet_references.h"

namespace chunkwise::formats::refs {
namespace {

Status WriteParquet(const std::filesystem::path& path, const ReferenceSet& set,
                    const ReferenceWriteOptions& options) {
  ParquetReferenceOptions parquet;
  parquet.record_size = options.record_size;
  parquet.overwrite = options.overwrite;
  if (set.Find(".zarray").value().has_value()) {
    return WriteParquetReferences(NestRootArray(set, options.root_array_name), path.string(),
                                  parquet);
  }
  return WriteParquetReferences(set, path.string(), parquet);
}

Result<std::shared_ptr<const store::ReferenceIndex>> OpenParquet(
    const std::filesystem::path& path) {
  CHUNKWISE_ASSIGN_OR_RETURN(std::unique_ptr<store::ReferenceIndex> index,
                             OpenParquetReferences(path.string()));
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

Status WriteReferences(const std::filesystem::path& path, const ReferenceSet& set,
                       const ReferenceWriteOptions& options) {
  if (options.format == ReferenceFormat::kParquet) {
    return WriteParquet(path, set, options);
  }
  JsonWriteOptions json;
  json.version = options.format == ReferenceFormat::kJsonV0 ? JsonVersion::kV0 : JsonVersion::kV1;
  json.templates = options.templates;
  return WriteReferenceJson(path, set, json, options.overwrite);
}

Result<std::shared_ptr<const store::ReferenceIndex>> OpenReferences(
    const std::filesystem::path& path) {
  std::error_code error;
  if (std::filesystem::is_directory(path, error)) {
    if (std::filesystem::exists(path / ".zmetadata", error)) return OpenParquet(path);
    return Status::InvalidArgument(path.string() +
                                   " is a directory without .zmetadata, not a reference set");
  }
  CHUNKWISE_ASSIGN_OR_RETURN(ReferenceSet set, ReadReferenceJson(path));
  return std::shared_ptr<const store::ReferenceIndex>(
      std::make_shared<ReferenceSet>(std::move(set)));
}

}  // namespace chunkwise::formats::refs
