// Reference: where one key of a reference set keeps its bytes, and
// ReferenceIndex: the lookup a ReferenceStore reads through.
//
// A reference set (fsspec/kerchunk JSON v0/v1 or the Parquet layout) maps
// zarr keys to inline bytes, a whole file, or a byte range of a file. The
// formats layer parses the sets; the store layer only needs this lookup, so a
// JSON set held in memory and a Parquet set loaded record by record look the
// same to ReferenceStore.
#ifndef CHUNKWISE_STORE_REFERENCE_H_
#define CHUNKWISE_STORE_REFERENCE_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "chunkwise/core/bytes.h"
#include "chunkwise/core/result.h"

namespace chunkwise::store {

struct Reference {
  enum class Kind { kInline, kWholeFile, kRange };

  Kind kind = Kind::kInline;
  Bytes data;                // kInline: the value itself (already decoded from base64:).
  std::string url;           // kWholeFile, kRange: as written in the set (may be relative).
  std::uint64_t offset = 0;  // kRange
  std::uint64_t length = 0;  // kRange

  static Reference Inline(Bytes data) { return {Kind::kInline, std::move(data), {}, 0, 0}; }
  static Reference WholeFile(std::string url) {
    return {Kind::kWholeFile, {}, std::move(url), 0, 0};
  }
  static Reference Range(std::string url, std::uint64_t offset, std::uint64_t length) {
    return {Kind::kRange, {}, std::move(url), offset, length};
  }
};

// Key → reference. Implementations are thread-safe: readers look keys up in
// parallel.
class ReferenceIndex {
 public:
  virtual ~ReferenceIndex() = default;
  // The reference of `key`, or nullopt if the set has no such key.
  virtual Result<std::optional<Reference>> Find(std::string_view key) const = 0;
  // Every key that starts with `prefix`, sorted.
  virtual Result<std::vector<std::string>> Keys(std::string_view prefix) const = 0;
};

}  // namespace chunkwise::store

#endif  // CHUNKWISE_STORE_REFERENCE_H_
