// What the remote stores' batched range reads share about versions
// (GetRangeMany with pins, GetRangeAtVersionMany): a read's pin as an
// ObjectVersion, a pinned range too large for one GET, and a versioned
// reply as the batch returns it.
#ifndef CHUNKWISE_SRC_STORE_PINNED_RANGES_H_
#define CHUNKWISE_SRC_STORE_PINNED_RANGES_H_

#include <memory>
#include <optional>
#include <span>
#include <utility>
#include <vector>

#include "chunkwise/core/cancellation.h"
#include "chunkwise/store/generation.h"
#include "chunkwise/store/value_reader.h"
#include "store/batched_gets.h"
#include "store/object_version.h"
#include "store/ranged_reads.h"

namespace chunkwise::store {

// The version a read is pinned to (its generation's ETag, put in `slot`),
// or null when it is not pinned.
inline const ObjectVersion* PinOf(const std::optional<Generation>& pin, ObjectVersion& slot) {
  if (!pin || pin->absent()) return nullptr;
  slot.etag = pin->token();
  return &slot;
}

// A pinned span larger than one GET: read through a reader of that version
// (If-Match on each of its pieces), without a request to open it.
template <typename RemoteStore>
Result<std::optional<Bytes>> ReadPinnedAlone(const RemoteStore& store, const RangedKey& read) {
  const std::uint64_t end = read.range.offset + read.range.length;
  CHUNKWISE_ASSIGN_OR_RETURN(std::unique_ptr<ValueReader> reader,
                             store.OpenReaderOfVersion(read.key, end, read.pin));
  Bytes bytes(read.range.length);
  const ByteRange spans[] = {read.range};
  CHUNKWISE_RETURN_IF_ERROR(reader->ReadInto(spans, bytes));
  return std::optional<Bytes>(std::move(bytes));
}

// Each read of `alone` (indexes into `reads`) that a batch could not send,
// into `values`: a cancelled call's error, a pinned span through
// ReadPinnedAlone, any other by the store's own GetRange.
template <typename RemoteStore>
void ReadEachAlone(const RemoteStore& store, std::span<const RangedKey> reads,
                   std::span<const std::size_t> alone, const core::Cancellation* cancellation,
                   std::vector<Result<std::optional<Bytes>>>& values) {
  for (std::size_t i : alone) {
    ObjectVersion pinned;
    if (cancellation != nullptr && cancellation->cancelled()) {
      values[i] = cancellation->Check(store.Describe(reads[i].key));
    } else if (PinOf(reads[i].pin, pinned) != nullptr && !reads[i].range.suffix) {
      values[i] = ReadPinnedAlone(store, reads[i]);
    } else {
      values[i] = store.GetRange(reads[i].key, reads[i].range);
    }
  }
}

// A reply of VersionedRangeFrom as GetRangeAtVersionMany returns it.
inline Result<std::optional<RangeAtVersion>> AtVersion(Result<std::optional<VersionedRange>> got) {
  CHUNKWISE_RETURN_IF_ERROR(got.status());
  if (!got->has_value()) return std::optional<RangeAtVersion>();
  RangeAtVersion value;
  value.bytes = std::move((*got)->bytes);
  value.size = (*got)->info.size;
  if (!(*got)->info.version.etag.empty()) {
    value.generation = Generation::Of((*got)->info.version.etag);
  }
  return std::optional<RangeAtVersion>(std::move(value));
}

}  // namespace chunkwise::store

#endif  // CHUNKWISE_SRC_STORE_PINNED_RANGES_H_
