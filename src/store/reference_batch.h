// Batched gets through a ReferenceStore: the keys of one read (a zarr
// array's chunks) looked up in the set, and their targets' byte ranges sent
// to each target's store as one batch (store/batched_gets.h), so that a
// region of an array over a kerchunk set of http(s) or s3 objects has its
// requests in flight together from the calling thread.
//
// Inline values are answered directly. Ranges go as ranged GETs, whose
// replies say the object's size, so no HEAD is sent first (the one-key path
// sends one per target); whole files go as the target store's GetMany, a
// second batch after the ranges'.
// Ranges of one target object at most kReferenceCoalescing's gaps apart are
// one request. Local targets, and URLs no store batches (an http URL with a
// query), are read by Get, one by one. A target that is absent is NotFound
// naming the reference key and the target URL; any other failure of a
// batched read is read again by Get, so that its error is Get's (a range
// past the target's end, a status naming the URL) and a server that ignores
// Range still serves it as it serves Get.
#ifndef CHUNKWISE_SRC_STORE_REFERENCE_BATCH_H_
#define CHUNKWISE_SRC_STORE_REFERENCE_BATCH_H_

#include <optional>
#include <span>
#include <string>
#include <vector>

#include "chunkwise/core/cancellation.h"
#include "chunkwise/store/byte_range.h"
#include "chunkwise/store/reference_store.h"

namespace chunkwise::store {

// How near ranges of one target object join one request: touching chunks
// of a file (kerchunk's HDF5 and netCDF chunks often are) or a few KiB
// apart always, up to 64 KiB apart while at most a quarter of the request is
// unneeded, up to 16 MiB a request.
inline constexpr RangeCoalescing kReferenceCoalescing = {
    .max_gap = std::uint64_t{64} << 10,
    .max_waste = 0.25,
    .max_request = std::uint64_t{16} << 20,
    .small_gap = std::uint64_t{4} << 10,
};

// A friend of ReferenceStore (its header is public; this one is not).
class ReferenceBatch {
 public:
  // True if GetMany batches `store`'s keys: it may read remote targets.
  static bool Batches(const ReferenceStore& store);
  // Result i is keys[i]'s, as store.Get would return it.
  static std::vector<Result<std::optional<Bytes>>> GetMany(const ReferenceStore& store,
                                                           std::span<const std::string> keys,
                                                           const core::Cancellation* cancellation);

 private:
  struct Target;
  struct Read;
  struct TargetReads;
  struct Batch;
  static Target TargetOf(const ReferenceStore& store, const std::string& url);
  static Target HttpTarget(const ReferenceStore& store, const std::string& url);
  static void SendRanges(Batch& batch, TargetReads& target);
  static void SendWholes(Batch& batch, TargetReads& target);
  static void Answer(Batch& batch, const Read& read, Result<std::optional<Bytes>> reply);
};

}  // namespace chunkwise::store

#endif  // CHUNKWISE_SRC_STORE_REFERENCE_BATCH_H_
