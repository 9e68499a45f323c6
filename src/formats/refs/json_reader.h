// Reading fsspec/kerchunk JSON reference sets, version 0 and version 1.
//
// Spec: docs/formats/refs.md, "JSON: what we read". Both versions are accepted
// in every form fsspec has accepted: values as strings (inline; "base64:"
// decoded here), [url], [url, offset, length] (a null url is kept as "" and
// refused when read), or JSON objects (their text is the value); v1 `templates`
// substituted into URLs and `gen` expanded with the jinja2 subset of
// reference_template.h. The text is read in one pass without building a JSON
// tree (a 10-million reference set is read in seconds); only `templates` and
// `gen`, which are small, go through nlohmann::json.
#ifndef CHUNKWISE_FORMATS_REFS_JSON_READER_H_
#define CHUNKWISE_FORMATS_REFS_JSON_READER_H_

#include <cstdint>
#include <string_view>

#include "chunkwise/core/result.h"
#include "chunkwise/store/store.h"
#include "formats/refs/reference_set.h"

namespace chunkwise::formats::refs {

struct JsonReadOptions {
  // A `gen` item may describe more references than memory holds; sets whose
  // `gen` would produce more than this many are refused (InvalidArgument).
  std::uint64_t max_generated_references = std::uint64_t{1} << 31;
  // Threads that read parts of a large set at once; 0 picks half the cores
  // (at most 8) on machines with 4 or more, else 1. Measured on a loaded
  // 2-core machine, a second thread made loading slower, not faster.
  unsigned threads = 0;
  // Parts smaller than this are not given their own thread.
  std::size_t min_part_bytes = std::size_t{4} << 20;
};

// Parses the text of a reference set; `name` (a file name) is used in
// messages. Corruption with the byte offset for malformed JSON; InvalidArgument
// naming the key for a value of the wrong shape, bad base64, an unknown
// template or an unknown version; Unsupported for jinja2 beyond the subset.
Result<ReferenceSet> ParseReferenceJson(std::string_view text, std::string_view name,
                                        const JsonReadOptions& options = {});

// Reads and parses the value of `key` in `store`; NotFound naming the key if
// it is absent.
Result<ReferenceSet> ReadReferenceJson(const store::Store& store, std::string_view key,
                                       const JsonReadOptions& options = {});

}  // namespace chunkwise::formats::refs

#endif  // CHUNKWISE_FORMATS_REFS_JSON_READER_H_
