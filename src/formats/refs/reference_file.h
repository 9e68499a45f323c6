// Reference sets in a store in any of their forms: JSON v0 or v1 (one value),
// or the Parquet layout (values under a prefix). The one place that chooses
// between them, so the CLI and other callers stay unaware of the forms. A
// set is named by a key: the JSON value, or the Parquet set under `key/`.
#ifndef CHUNKWISE_FORMATS_REFS_REFERENCE_FILE_H_
#define CHUNKWISE_FORMATS_REFS_REFERENCE_FILE_H_

#include <cstdint>
#include <memory>
#include <string_view>

#include "chunkwise/core/result.h"
#include "chunkwise/store/reference.h"
#include "chunkwise/store/store.h"
#include "formats/refs/reference_set.h"

namespace chunkwise::formats::refs {

enum class ReferenceFormat { kJsonV0, kJsonV1, kParquet };

// "json" (v0), "json-v1" or "parquet"; InvalidArgument otherwise.
Result<ReferenceFormat> ParseReferenceFormat(std::string_view text);

struct ReferenceWriteOptions {
  ReferenceFormat format = ReferenceFormat::kJsonV1;
  bool templates = true;               // JSON v1: shorten shared URL directories.
  std::uint64_t record_size = 100000;  // Parquet: references per file.
  // Parquet: the layout keeps chunks under an array path, so a set whose
  // root is an array is written as this array inside a root group. Empty:
  // "data" here; the facade's BuildReferencesInto names it after the source
  // (ReferenceRootArrayName).
  std::string root_array_name;
  bool overwrite = false;
};

// Writes `set` as `key` of `store` in the chosen form (the value `key` for
// JSON, the values under `key/` for Parquet), each value atomically; an
// existing output is refused unless overwrite. For Parquet a root-level array
// moves under options.root_array_name.
Status WriteReferences(store::Store& store, const std::string& key, const ReferenceSet& set,
                       const ReferenceWriteOptions& options);

// `set` with its root-level array (".zarray", ".zattrs", chunk keys) moved
// under `name`/ and a ".zgroup" at the root; other sets are returned as they are.
ReferenceSet NestRootArray(const ReferenceSet& set, const std::string& name);

// Opens the reference set `key` of `store`: a `key/.zmetadata` makes it the
// Parquet layout (`key` "" is the store's root), a value `key` is read as
// JSON (v0 or v1). NotFound naming the key if neither is there;
// InvalidArgument if `key/` holds values but no .zmetadata.
Result<std::shared_ptr<const store::ReferenceIndex>> OpenReferences(
    std::shared_ptr<const store::Store> store, const std::string& key);

}  // namespace chunkwise::formats::refs

#endif  // CHUNKWISE_FORMATS_REFS_REFERENCE_FILE_H_
