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

// OK when the lengths of `ranges` add up to `out_size`; else InvalidArgument
// naming `where`. For GetRangesInto, ValueReader::ReadInto and their
// overrides.
Status CheckRangesFill(std::span<const ByteRange> ranges, std::size_t out_size,
                       std::string_view where);

}  // namespace chunkwise::store

#endif  // CHUNKWISE_STORE_BYTE_RANGE_H_
