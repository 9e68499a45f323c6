// OpenReaderOfVersion: a reader of a value at a version seen before, for a
// cache that kept what it read through an earlier reader (a shard's index).
#ifndef CHUNKWISE_SRC_STORE_READER_OF_VERSION_H_
#define CHUNKWISE_SRC_STORE_READER_OF_VERSION_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string_view>

#include "chunkwise/core/result.h"
#include "chunkwise/store/generation.h"
#include "chunkwise/store/store.h"
#include "chunkwise/store/value_reader.h"

namespace chunkwise::store {

// A reader of `key` at the version an earlier reader of it saw: `size` and
// `generation` are that reader's. Where opening costs a request (an http(s)
// store, S3 or GCS: a GET of the value's tail, to learn its size and ETag),
// none is sent: the reads are pinned to the ETag (If-Match; NotFound once the
// value changed) or, with none, trust `size` (a change by another writer is not
// seen, docs/api.md "The chunk cache"). Elsewhere store.OpenReader(key), whose
// size and generation the caller compares (null if absent).
Result<std::unique_ptr<ValueReader>> OpenReaderOfVersion(
    const Store& store, std::string_view key, std::uint64_t size,
    const std::optional<Generation>& generation);

}  // namespace chunkwise::store

#endif  // CHUNKWISE_SRC_STORE_READER_OF_VERSION_H_
