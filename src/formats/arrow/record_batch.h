// Arrow arrays and record batches as views over buffers, built column by column.
//
// An ArrayData is one column's buffers in Arrow's columnar layout
// (Columnar.rst): an optional validity bitmap (LSB first, 1 = valid), then for
// integers the values, for Binary/Utf8 the int32 offsets (length + 1 of them)
// and the data bytes, for List the int32 offsets and one child array. The
// views do not own their bytes: a RecordBatch keeps an `owner` alive (the
// message body it was read from), and a writer's caller keeps its buffers
// alive until WriteRecordBatch returns. Values are little-endian; accessors
// copy them out, so buffers need no particular alignment.
#ifndef CHUNKWISE_FORMATS_ARROW_RECORD_BATCH_H_
#define CHUNKWISE_FORMATS_ARROW_RECORD_BATCH_H_

#include <bit>
#include <cstdint>
#include <memory>
#include <span>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "chunkwise/core/bytes.h"
#include "chunkwise/core/check.h"
#include "chunkwise/core/result.h"
#include "formats/arrow/schema.h"

namespace chunkwise::formats::arrow {

static_assert(std::endian::native == std::endian::little,
              "Arrow views hand out host integers as little-endian buffers");

struct ArrayData {
  std::int64_t length = 0;
  std::int64_t null_count = 0;
  ByteView validity;  // Empty when null_count is 0.
  ByteView offsets;   // Binary, Utf8, List: int32 × (length + 1); may be empty when length is 0.
  ByteView values;    // Integers: the values; Binary, Utf8: the data bytes.
  std::vector<ArrayData> children;  // List: the one child.
};

struct RecordBatch {
  std::int64_t num_rows = 0;
  std::vector<ArrayData> columns;     // One per top-level schema field.
  std::shared_ptr<const void> owner;  // Keeps the viewed bytes alive (may be null).
};

// Checks `array` against `field` and a batch of `expected_length` rows (-1:
// any length, for list children): node lengths and null counts, buffer sizes,
// offsets that start at 0 or more, never decrease and end within the data or
// the child. Returns Corruption naming `context` and the field. Readers call
// it on every array they hand out; writers on every array they write.
Status ValidateArray(const Field& field, const ArrayData& array, std::int64_t expected_length,
                     std::string_view context);
// ValidateArray for every column; also checks the column count.
Status ValidateRecordBatch(const Schema& schema, const RecordBatch& batch,
                           std::string_view context);

// --- Building arrays from caller-owned memory (no copies). ---

template <typename T>  // One template for the closed set of integer types.
requires std::is_integral_v<T> ArrayData IntegerArray(std::span<const T> values) {
  ArrayData array;
  array.length = static_cast<std::int64_t>(values.size());
  array.values =
      ByteView(reinterpret_cast<const std::uint8_t*>(values.data()), values.size_bytes());
  return array;
}
// `offsets` has one more entry than there are values.
ArrayData BinaryArray(std::span<const std::int32_t> offsets, ByteView data);
ArrayData ListArray(std::span<const std::int32_t> offsets, ArrayData child);
// Marks values invalid: `validity` is the bitmap (bit i of byte i/8, LSB first).
ArrayData WithValidity(ArrayData array, ByteView validity, std::int64_t null_count);

// --- Reading values of a validated array. REQUIRES: i < array.length. ---

bool IsValid(const ArrayData& array, std::int64_t i);

template <typename T>
requires std::is_integral_v<T> T IntegerAt(const ArrayData& array, std::int64_t i) {
  CHUNKWISE_CHECK(i >= 0 && i < array.length);
  using Unsigned = std::make_unsigned_t<T>;
  return static_cast<T>(
      LoadLittleEndian<Unsigned>(array.values.data() + static_cast<std::size_t>(i) * sizeof(T)));
}

// Entry i of a Binary/Utf8/List offsets buffer. REQUIRES: i <= array.length.
std::int32_t OffsetAt(const ArrayData& array, std::int64_t i);
// The bytes of value i of a Binary or Utf8 array.
ByteView BinaryAt(const ArrayData& array, std::int64_t i);
// The values of list entry i of a List whose child is an integer array of T.
template <typename T>
requires std::is_integral_v<T> std::vector<T> ListIntegersAt(const ArrayData& array,
                                                             std::int64_t i) {
  const std::int32_t begin = OffsetAt(array, i), end = OffsetAt(array, i + 1);
  std::vector<T> out;
  out.reserve(static_cast<std::size_t>(end - begin));
  for (std::int32_t k = begin; k < end; ++k) out.push_back(IntegerAt<T>(array.children[0], k));
  return out;
}

}  // namespace chunkwise::formats::arrow

#endif  // CHUNKWISE_FORMATS_ARROW_RECORD_BATCH_H_
