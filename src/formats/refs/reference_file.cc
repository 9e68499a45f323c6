#include "chunkwise/formats/refs/reference_file.h"

#include <system_error>

#include "chunkwise/formats/refs/json_reader.h"
#include "chunkwise/formats/refs/json_writer.h"

namespace chunkwise::formats::refs {
namespace {

// PARQUET HOOK: the Parquet layout (formats/refs/parquet_references.*) is
// built on another branch; the merge replaces these two functions' bodies
// with calls into it.
Status WriteParquetReferences(const std::filesystem::path& path, const ReferenceSet&,
                              const ReferenceWriteOptions&) {
  return Status::Unsupported(path.string() +
                             ": Parquet reference sets are not built in this branch");
}
Result<std::shared_ptr<const store::ReferenceIndex>> OpenParquetReferences(
    const std::filesystem::path& path) {
  return Status::Unsupported(path.string() +
                             ": Parquet reference sets are not built in this branch");
}

}  // namespace

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
    return WriteParquetReferences(path, set, options);
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
    if (std::filesystem::exists(path / ".zmetadata", error)) return OpenParquetReferences(path);
    return Status::InvalidArgument(path.string() +
                                   " is a directory without .zmetadata, not a reference set");
  }
  CHUNKWISE_ASSIGN_OR_RETURN(ReferenceSet set, ReadReferenceJson(path));
  return std::shared_ptr<const store::ReferenceIndex>(
      std::make_shared<ReferenceSet>(std::move(set)));
}

}  // namespace chunkwise::formats::refs
