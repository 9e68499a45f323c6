#include "chunkwise/store/store.h"

#include <cstring>
#include <string>

#include "chunkwise/store/key.h"

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

Result<bool> Store::Exists(std::string_view key) const {
  CHUNKWISE_ASSIGN_OR_RETURN(std::optional<std::uint64_t> size, Size(key));
  return size.has_value();
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

Result<bool> Store::GetRangesInto(std::string_view key, std::span<const ByteRange> ranges,
                                  MutableByteView out) const {
  CHUNKWISE_RETURN_IF_ERROR(CheckRangesFill(ranges, out.size(), Describe(key)));
  std::size_t at = 0;
  for (const ByteRange& range : ranges) {
    CHUNKWISE_ASSIGN_OR_RETURN(std::optional<Bytes> value, GetRange(key, range));
    if (!value) return false;
    if (value->size() > out.size() - at) {
      return Status::Internal(Describe(key) + ": a range came back longer than asked for");
    }
    std::memcpy(out.data() + at, value->data(), value->size());
    at += value->size();
  }
  return true;
}

Status Store::SetParts(std::string_view key, std::span<const ByteView> parts) {
  return Set(key, JoinBytes(parts));
}

Result<std::unique_ptr<ValueWriter>> Store::OpenWriter(std::string_view key) {
  CHUNKWISE_RETURN_IF_ERROR(ValidateKey(key));
  return std::unique_ptr<ValueWriter>(
      std::make_unique<BufferedValueWriter>(*this, std::string(key)));
}

}  // namespace chunkwise::store
