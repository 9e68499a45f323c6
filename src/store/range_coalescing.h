// Coalescing byte ranges of one object into fewer, larger requests.
//
// A shard's chunks are read as many small ranges; each request to an object
// store costs a round trip and a fee, so ranges close together are read as
// one request that spans them, and the bytes between are thrown away. Two
// limits bound the waste: ranges join only across a gap of at most
// `max_gap` bytes, and a request grows to at most `max_length` bytes (a
// single range longer than that stays a request of its own).
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

// Groups absolute `ranges` (no suffixes) into requests, ordered by offset.
// Every range lies inside its group; overlapping and repeated ranges share one.
std::vector<CoalescedRange> CoalesceRanges(std::span<const ByteRange> ranges, std::uint64_t max_gap,
                                           std::uint64_t max_length);

}  // namespace chunkwise::store

#endif  // CHUNKWISE_SRC_STORE_RANGE_COALESCING_H_
