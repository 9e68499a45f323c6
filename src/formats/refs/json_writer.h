// Writing reference sets as fsspec/kerchunk JSON, version 0 or version 1.
//
// Spec: docs/formats/refs.md, "Which fsspec reads what" and "JSON: what we write".
// Written for the widest range of readers: metadata and other inline text as
// JSON strings (never objects, which fsspec reads only since 2024.6), bytes
// that are not UTF-8 text (or that start with "base64:") as "base64:…", and
// no `gen` (fsspec 2026.6 ignores it by default). Version 1 may shorten URLs
// with `templates`: every directory part that two or more references share
// becomes `{{name}}`, which fsspec's simple templates and jinja2 both expand.
// Keys come out sorted, so equal sets give equal files.
#ifndef CHUNKWISE_FORMATS_REFS_JSON_WRITER_H_
#define CHUNKWISE_FORMATS_REFS_JSON_WRITER_H_

#include <string>

#include "chunkwise/core/result.h"
#include "chunkwise/store/store.h"
#include "formats/refs/reference_set.h"

namespace chunkwise::formats::refs {

enum class JsonVersion { kV0, kV1 };

struct JsonWriteOptions {
  JsonVersion version = JsonVersion::kV1;
  // Version 1 only: shorten repeated URL directories with templates.
  bool templates = true;
};

// The JSON text of `set`. InvalidArgument naming the key for a URL that holds
// "{{" (a reader would take it for a template).
Result<std::string> FormatReferenceJson(const ReferenceSet& set, const JsonWriteOptions& options);

// Sets the JSON text as the value of `key` in `store` (atomically, as every
// Set). An existing value is refused (InvalidArgument naming the key) unless
// `overwrite`.
Status WriteReferenceJson(store::Store& store, std::string_view key, const ReferenceSet& set,
                          const JsonWriteOptions& options, bool overwrite);

}  // namespace chunkwise::formats::refs

#endif  // CHUNKWISE_FORMATS_REFS_JSON_WRITER_H_
