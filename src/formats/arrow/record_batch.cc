#include "formats/arrow/record_batch.h"

#include <string>

namespace chunkwise::formats::arrow {
namespace {

Status Fault(std::string_view context, const std::string& path, const std::string& what) {
  return Status::Corruption(std::string(context) + ": field '" + path + "': " + what);
}

// Bytes needed for `count` items of `width` bytes, or -1 if that overflows.
std::int64_t BytesFor(std::int64_t count, std::int64_t width) {
  if (count < 0 || (width != 0 && count > INT64_MAX / width)) return -1;
  return count * width;
}

// Checks the offsets of a Binary/Utf8/List array: length + 1 of them, never
// decreasing, the first at 0 or more and the last at most `limit`.
Status CheckOffsets(const ArrayData& array, std::int64_t limit, std::string_view context,
                    const std::string& path) {
  if (array.length == 0 && array.offsets.empty()) return Status::Ok();
  const std::int64_t needed = array.length < INT64_MAX ? BytesFor(array.length + 1, 4) : -1;
  if (needed < 0 || static_cast<std::int64_t>(array.offsets.size()) < needed) {
    return Fault(context, path,
                 "offsets buffer has " + std::to_string(array.offsets.size()) +
                     " bytes, needs 4 * (" + std::to_string(array.length) + " + 1)");
  }
  std::int32_t previous = OffsetAt(array, 0);
  if (previous < 0) return Fault(context, path, "first offset is negative");
  for (std::int64_t i = 1; i <= array.length; ++i) {
    const std::int32_t next = OffsetAt(array, i);
    if (next < previous) {
      return Fault(context, path,
                   "offsets decrease at entry " + std::to_string(i) + " (" +
                       std::to_string(previous) + " then " + std::to_string(next) + ")");
    }
    previous = next;
  }
  if (previous > limit) {
    return Fault(context, path,
                 "last offset " + std::to_string(previous) + " is past the end of the data (" +
                     std::to_string(limit) + ")");
  }
  return Status::Ok();
}

Status CheckArray(const Field& field, const ArrayData& array, std::int64_t expected_length,
                  std::string_view context, const std::string& path) {
  if (array.length < 0 || (expected_length >= 0 && array.length != expected_length)) {
    return Fault(context, path,
                 "has length " + std::to_string(array.length) + ", expected " +
                     std::to_string(expected_length));
  }
  if (array.null_count < 0 || array.null_count > array.length) {
    return Fault(context, path,
                 "null count " + std::to_string(array.null_count) + " is outside [0, " +
                     std::to_string(array.length) + "]");
  }
  // Written without length + 7, which could wrap for a hostile length.
  const std::int64_t bitmap_bytes = array.length / 8 + (array.length % 8 != 0 ? 1 : 0);
  if (array.null_count > 0 && static_cast<std::int64_t>(array.validity.size()) < bitmap_bytes) {
    return Fault(context, path, "has nulls but its validity bitmap is too short");
  }
  const std::size_t expected_children = field.type == TypeId::kList ? 1 : 0;
  if (array.children.size() != expected_children) {
    return Fault(context, path, "has " + std::to_string(array.children.size()) + " child arrays");
  }
  if (IsInteger(field.type)) {
    const std::int64_t needed = BytesFor(array.length, ByteWidth(field.type));
    if (needed < 0 || static_cast<std::int64_t>(array.values.size()) < needed) {
      return Fault(context, path,
                   "values buffer has " + std::to_string(array.values.size()) + " bytes, needs " +
                       std::to_string(ByteWidth(field.type)) + " * " +
                       std::to_string(array.length));
    }
    return Status::Ok();
  }
  if (field.type == TypeId::kList) {
    const ArrayData& child = array.children[0];
    CHUNKWISE_RETURN_IF_ERROR(CheckOffsets(array, child.length, context, path));
    return CheckArray(field.children[0], child, -1, context, path + "." + field.children[0].name);
  }
  return CheckOffsets(array, static_cast<std::int64_t>(array.values.size()), context, path);
}

}  // namespace

Status ValidateArray(const Field& field, const ArrayData& array, std::int64_t expected_length,
                     std::string_view context) {
  return CheckArray(field, array, expected_length, context, field.name);
}

Status ValidateRecordBatch(const Schema& schema, const RecordBatch& batch,
                           std::string_view context) {
  if (batch.num_rows < 0) {
    return Status::Corruption(std::string(context) + ": negative row count " +
                              std::to_string(batch.num_rows));
  }
  if (batch.columns.size() != schema.fields.size()) {
    return Status::Corruption(std::string(context) + ": record batch has " +
                              std::to_string(batch.columns.size()) + " columns, schema has " +
                              std::to_string(schema.fields.size()) + " fields");
  }
  for (std::size_t i = 0; i < batch.columns.size(); ++i) {
    CHUNKWISE_RETURN_IF_ERROR(
        ValidateArray(schema.fields[i], batch.columns[i], batch.num_rows, context));
  }
  return Status::Ok();
}

ArrayData BinaryArray(std::span<const std::int32_t> offsets, ByteView data) {
  ArrayData array;
  array.length = offsets.empty() ? 0 : static_cast<std::int64_t>(offsets.size()) - 1;
  array.offsets =
      ByteView(reinterpret_cast<const std::uint8_t*>(offsets.data()), offsets.size_bytes());
  array.values = data;
  return array;
}

ArrayData ListArray(std::span<const std::int32_t> offsets, ArrayData child) {
  ArrayData array;
  array.length = offsets.empty() ? 0 : static_cast<std::int64_t>(offsets.size()) - 1;
  array.offsets =
      ByteView(reinterpret_cast<const std::uint8_t*>(offsets.data()), offsets.size_bytes());
  array.children.push_back(std::move(child));
  return array;
}

ArrayData WithValidity(ArrayData array, ByteView validity, std::int64_t null_count) {
  array.validity = validity;
  array.null_count = null_count;
  return array;
}

bool IsValid(const ArrayData& array, std::int64_t i) {
  CHUNKWISE_CHECK(i >= 0 && i < array.length);
  if (array.null_count == 0) return true;
  return ((array.validity[static_cast<std::size_t>(i / 8)] >> (i % 8)) & 1) != 0;
}

std::int32_t OffsetAt(const ArrayData& array, std::int64_t i) {
  CHUNKWISE_CHECK(i >= 0 && i <= array.length &&
                  static_cast<std::size_t>(i) * 4 + 4 <= array.offsets.size());
  return static_cast<std::int32_t>(
      LoadLittleEndian<std::uint32_t>(array.offsets.data() + static_cast<std::size_t>(i) * 4));
}

ByteView BinaryAt(const ArrayData& array, std::int64_t i) {
  CHUNKWISE_CHECK(i >= 0 && i < array.length);
  const std::int32_t begin = OffsetAt(array, i), end = OffsetAt(array, i + 1);
  return array.values.subspan(static_cast<std::size_t>(begin),
                              static_cast<std::size_t>(end - begin));
}

}  // namespace chunkwise::formats::arrow
