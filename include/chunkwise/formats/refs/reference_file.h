// Reference sets on disk in any of their forms: JSON v0, JSON v1, or the
// Parquet directory layout. The one place that chooses between them, so the
// CLI and other callers stay unaware of the forms.
#ifndef CHUNKWISE_FORMATS_REFS_REFERENCE_FILE_H_
#define CHUNKWISE_FORMATS_REFS_REFERENCE_FILE_H_

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string_view>

#include "chunkwise/core/result.h"
#include "chunkwise/formats/refs/reference_set.h"
#include "chunkwise/store/reference.h"

namespace chunkwise::formats::refs {

enum class ReferenceFormat { kJsonV0, kJsonV1, kParquet };

// "json" (v0), "json-v1" or "parquet"; InvalidArgument otherwise.
Result<ReferenceFormat> ParseReferenceFormat(std::string_view text);

struct ReferenceWriteOptions {
  ReferenceFormat format = ReferenceFormat::kJsonV1;
  bool templates = true;               // JSON v1: shorten shared URL directories.
  std::uint64_t record_size = 100000;  // Parquet: references per file.
  // Parquet: the layout keeps chunks under an array path, so a set whose
  // root is an array is written as this array inside a root group.
  std::string root_array_name = "data";
  bool overwrite = false;
};

// Writes `set` to `path` in the chosen form (a file for JSON, a directory for
// Parquet), atomically; an existing output is refused unless overwrite. For
// Parquet a root-level array moves under options.root_array_name.
Status WriteReferences(const std::filesystem::path& path, const ReferenceSet& set,
                       const ReferenceWriteOptions& options);

// `set` with its root-level array (".zarray", ".zattrs", chunk keys) moved
// under `name`/ and a ".zgroup" at the root; other sets are returned as they are.
ReferenceSet NestRootArray(const ReferenceSet& set, const std::string& name);

// Opens the reference set at `path`: a directory holding `.zmetadata` is the
// Parquet layout, anything else is read as JSON (v0 or v1).
Result<std::shared_ptr<const store::ReferenceIndex>> OpenReferences(
    const std::filesystem::path& path);

}  // namespace chunkwise::formats::refs

#endif  // CHUNKWISE_FORMATS_REFS_REFERENCE_FILE_H_
