// Coalescing byte ranges of one object into fewer, larger requests: the one
// planner of the library (the remote stores' GetRangesInto and the sharded
// zarr reads call it), under the limits of store::RangeCoalescing
// (chunkwise/store/byte_range.h).
#ifndef CHUNKWISE_SRC_STORE_RANGE_COALESCING_H_
#define CHUNKWISE_SRC_STORE_RANGE_COALESCING_H_

#include <cstdint>
#include <span>
#include <vector>

#include "chunkwise/store/byte_range.h"

namespace chunkwise::store {

struct CoalescedRange {
  std::uint64_t offset = 0;
  std::uint64_t length = 0;
  std::vector<std::size_t> members;  // Indexes into the ranges given, by offset.
};

// Groups absolute `ranges` (no suffixes) into requests, ordered by offset,
// greedily: each range, by offset, joins the request before it if `limits`
// allow, else starts one. Every range lies inside its group; overlapping
// and repeated ranges share one (unless limits.max_request is 0: Off).
std::vector<CoalescedRange> CoalesceRanges(std::span<const ByteRange> ranges,
                                           const RangeCoalescing& limits);

}  // namespace chunkwise::store

#endif  // CHUNKWISE_SRC_STORE_RANGE_COALESCING_H_
