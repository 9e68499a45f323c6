#include "chunkwise/store/byte_range.h"

#include <string>

#include "store/key.h"

namespace chunkwise::store {

Result<ByteRange> ByteRange::Resolve(std::uint64_t size, std::string_view key) const {
  if (suffix) {
    if (length > size) {
      return Status::OutOfRange("suffix of " + std::to_string(length) + " bytes is longer than " +
                                QuoteKey(key) + " (" + std::to_string(size) + " bytes)");
    }
    return Span(size - length, length);
  }
  // Written as two comparisons so offset + length cannot overflow.
  if (offset > size || length > size - offset) {
    return Status::OutOfRange("range [" + std::to_string(offset) + ", +" + std::to_string(length) +
                              ") lies outside " + QuoteKey(key) + " (" + std::to_string(size) +
                              " bytes)");
  }
  return Span(offset, length);
}

ByteRange ByteRange::ClampTo(std::uint64_t size) const {
  if (suffix) return length >= size ? Span(0, size) : Span(size - length, length);
  if (offset >= size) return Span(size, 0);
  return Span(offset, length > size - offset ? size - offset : length);
}

Status CheckRangesFill(std::span<const ByteRange> ranges, std::size_t out_size,
                       std::string_view where) {
  std::uint64_t total = 0;
  for (const ByteRange& range : ranges) total += range.length;
  if (total == out_size) return Status::Ok();
  return Status::InvalidArgument(std::string(where) + ": " + std::to_string(ranges.size()) +
                                 " ranges of " + std::to_string(total) +
                                 " bytes do not fill a buffer of " + std::to_string(out_size));
}

}  // namespace chunkwise::store
