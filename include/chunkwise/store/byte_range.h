// ByteRange: a span or suffix of a value, as range reads ask for them.
#ifndef CHUNKWISE_STORE_BYTE_RANGE_H_
#define CHUNKWISE_STORE_BYTE_RANGE_H_

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

#include "chunkwise/core/result.h"

namespace chunkwise::store {

// A byte range of a value: [offset, offset + length), or the last `length`
// bytes when `suffix` is set (what a shard index read needs).
struct ByteRange {
  std::uint64_t offset = 0;
  std::uint64_t length = 0;
  bool suffix = false;

  static ByteRange Span(std::uint64_t offset, std::uint64_t length) {
    return {offset, length, false};
  }
  static ByteRange Suffix(std::uint64_t length) { return {0, length, true}; }
  // Resolves against a value of `size` bytes to an absolute [offset, offset+length);
  // OutOfRange (naming `key`) if the range does not lie inside the value.
  Result<ByteRange> Resolve(std::uint64_t size, std::string_view key) const;
  // The part of the range inside a value of `size` bytes, as an absolute
  // span: a span running past the end stops there, one starting past it is
  // empty, a suffix longer than the value is all of it. What HTTP range
  // requests return, and what zarr-python's stores promise.
  ByteRange ClampTo(std::uint64_t size) const;
};

// Limits on joining byte ranges of one value into fewer, larger requests
// (a shard's inner chunks; planned by src/store/range_coalescing.h). A
// request costs a round trip, so ranges close together are read as one
// request spanning them and the bytes between are thrown away. A range
// joins the request before it when at most `max_gap` bytes lie between
// them, the joined request is at most `max_request` bytes (a single range
// longer than that stays a request of its own), and either the gap is at
// most `small_gap` bytes (cheaper to read than to ask for again) or the
// bytes the joined request reads that no range needs stay within
// `max_waste` (a fraction) of its length.
struct RangeCoalescing {
  std::uint64_t max_gap = std::uint64_t{1} << 20;
  double max_waste = 0.5;
  std::uint64_t max_request = std::uint64_t{32} << 20;
  std::uint64_t small_gap = std::uint64_t{64} << 10;

  // Every range a request of its own, even touching or overlapping ones.
  static RangeCoalescing Off() { return {0, 0.0, 0, 0}; }
};

// Which stores a reader of many ranges of one value (a sharded zarr read)
// coalesces them on, and under which limits.
struct ReadCoalescing {
  // Stores whose requests cost a round trip (S3, HTTP: not
  // StoreCapabilities::local).
  bool remote = true;
  // Local stores (files, memory) too. Off by default: there a request is a
  // system call, and a chunk read by the thread that decodes it, just
  // before, is still in that core's cache when it is decoded.
  bool local = false;
  RangeCoalescing limits = {};

  // One request per range on every store.
  static ReadCoalescing Off() { return {false, false, RangeCoalescing::Off()}; }
};

// OK when the lengths of `ranges` add up to `out_size`; else InvalidArgument
// naming `where`. For GetRangesInto, ValueReader::ReadInto and their
// overrides.
Status CheckRangesFill(std::span<const ByteRange> ranges, std::size_t out_size,
                       std::string_view where);

}  // namespace chunkwise::store

#endif  // CHUNKWISE_STORE_BYTE_RANGE_H_
