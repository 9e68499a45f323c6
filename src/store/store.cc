#include "chunkwise/store/store.h"

#include <cstring>
#include <string>

#include "store/key.h"

namespace chunkwise::store {

Result<bool> Store::Exists(std::string_view key) const {
  CHUNKWISE_ASSIGN_OR_RETURN(std::optional<std::uint64_t> size, Size(key));
  return size.has_value();
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

Result<bool> Store::GetRangesThroughReader(std::string_view key, std::span<const ByteRange> ranges,
                                           MutableByteView out) const {
  CHUNKWISE_ASSIGN_OR_RETURN(std::unique_ptr<ValueReader> reader, OpenReader(key));
  if (reader == nullptr) return false;
  CHUNKWISE_RETURN_IF_ERROR(reader->ReadInto(ranges, out));
  return true;
}

Result<std::unique_ptr<ValueReader>> Store::OpenReader(std::string_view key) const {
  CHUNKWISE_ASSIGN_OR_RETURN(std::optional<std::uint64_t> size, Size(key));
  if (!size) return std::unique_ptr<ValueReader>();
  return std::unique_ptr<ValueReader>(
      std::make_unique<StoreValueReader>(*this, std::string(key), *size));
}

Status Store::SetParts(std::string_view key, std::span<const ByteView> parts) {
  if (parts.size() == 1) return Set(key, parts[0]);  // Nothing to join: no copy.
  return Set(key, JoinBytes(parts));
}

Status Store::NoConditionalWrites(std::string_view key, std::string_view what) const {
  return Status::Unsupported(Describe(key) + ": " + std::string(what) +
                             " needs conditional writes, which this store lacks");
}

Status GenerationConflict(std::string_view where, const Generation& expected,
                          const Generation& found) {
  return Status::Conflict(std::string(where) + ": changed since it was read (expected generation " +
                          expected.ToString() + ", found " + found.ToString() + ")");
}

Result<Generation> Store::GetGeneration(std::string_view key) const {
  return NoConditionalWrites(key, "reading a generation");
}

Result<std::optional<VersionedValue>> Store::GetVersioned(std::string_view key) const {
  CHUNKWISE_ASSIGN_OR_RETURN(std::unique_ptr<ValueReader> reader, OpenReader(key));
  if (reader == nullptr) return std::optional<VersionedValue>();
  const std::optional<Generation> generation = reader->generation();
  if (!reader->pinned() || !generation.has_value()) {
    return NoConditionalWrites(key, "reading a generation");
  }
  VersionedValue versioned{Bytes(reader->size()), *generation};
  const ByteRange whole = ByteRange::Span(0, reader->size());
  CHUNKWISE_RETURN_IF_ERROR(reader->ReadInto(std::span(&whole, 1), versioned.value));
  return std::optional<VersionedValue>(std::move(versioned));
}

Result<Generation> Store::SetPartsIf(std::string_view key, std::span<const ByteView> parts,
                                     const Generation& expected) {
  return NoConditionalWrites(key, "a conditional write");
}

Status Store::EraseIf(std::string_view key, const Generation& expected) {
  return NoConditionalWrites(key, "a conditional erase");
}

Result<Generation> Store::SetIf(std::string_view key, ByteView value, const Generation& expected) {
  return SetPartsIf(key, std::span<const ByteView>(&value, 1), expected);
}

Result<Generation> Store::CreateIfAbsent(std::string_view key, ByteView value) {
  return SetIf(key, value, Generation::Absent());
}

Result<std::unique_ptr<ValueWriter>> Store::OpenWriter(std::string_view key) {
  CHUNKWISE_RETURN_IF_ERROR(ValidateKey(key));
  return std::unique_ptr<ValueWriter>(
      std::make_unique<BufferedValueWriter>(*this, std::string(key)));
}

}  // namespace chunkwise::store
