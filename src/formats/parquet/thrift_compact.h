// The Thrift compact protocol, the encoding of Parquet's footer and page
// headers: a writer that appends fields to a buffer and a reader with strict
// bounds checks and a nesting limit.
//
// Spec: docs/formats/parquet.md, "Thrift compact protocol". A struct is its
// fields then a 0x00 stop byte; a field header holds the id as a delta (1–15)
// from the previous id of the same struct, or the type byte then a zigzag
// varint id. Integers are zigzag ULEB128 varints; binary (strings too) is a
// varint length then the bytes; list headers put a count of up to 14 in the
// high nibble. Only the parts Parquet uses are written; every type is read or
// skipped.
#ifndef CHUNKWISE_FORMATS_PARQUET_THRIFT_COMPACT_H_
#define CHUNKWISE_FORMATS_PARQUET_THRIFT_COMPACT_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "chunkwise/core/bytes.h"
#include "chunkwise/core/result.h"

namespace chunkwise::formats::parquet {

// Compact-protocol type codes as they appear in field and list headers.
enum class ThriftType : std::uint8_t {
  kStop = 0,
  kBoolTrue = 1,
  kBoolFalse = 2,
  kByte = 3,
  kI16 = 4,
  kI32 = 5,
  kI64 = 6,
  kDouble = 7,
  kBinary = 8,
  kList = 9,
  kSet = 10,
  kMap = 11,
  kStruct = 12,
};

// Appends compact-protocol values to a buffer. Calls must nest properly:
// every BeginStruct (or StructField) is closed by EndStruct. Not thread-safe.
class ThriftWriter {
 public:
  explicit ThriftWriter(Bytes& out) : out_(out) {}

  // Opens a top-level struct or a struct that is a list element.
  void BeginStruct() { last_ids_.push_back(0); }
  // Writes the stop byte and closes the innermost struct.
  void EndStruct();

  void I32Field(std::int16_t id, std::int32_t value);
  void I64Field(std::int16_t id, std::int64_t value);
  void BoolField(std::int16_t id, bool value);
  void BinaryField(std::int16_t id, std::string_view value);
  // A struct-valued field: writes its header and opens the struct.
  void StructField(std::int16_t id);
  // A list-valued field: the header of `count` elements of `element_type`,
  // which the caller then writes with the element functions below.
  void ListField(std::int16_t id, ThriftType element_type, std::size_t count);

  void I32Element(std::int32_t value) { Varint(ZigZag(value)); }
  void BinaryElement(std::string_view value);

 private:
  static std::uint64_t ZigZag(std::int64_t value) {
    return (static_cast<std::uint64_t>(value) << 1) ^ static_cast<std::uint64_t>(value >> 63);
  }
  void FieldHeader(std::int16_t id, ThriftType type);
  void Varint(std::uint64_t value);

  Bytes& out_;
  std::vector<std::int16_t> last_ids_;
};

// Reads compact-protocol values from a byte view. Every read checks the
// bounds; errors are Corruption naming `what` (e.g. "parquet footer of
// x.parq") and the byte position. Structs may nest at most kMaxDepth deep.
class ThriftReader {
 public:
  static constexpr int kMaxDepth = 32;

  struct Field {
    ThriftType type = ThriftType::kStop;  // kStop: the struct ended.
    std::int16_t id = 0;
    bool bool_value = false;  // For kBoolTrue/kBoolFalse fields, the value.
  };
  struct ListHeader {
    ThriftType element_type = ThriftType::kStop;
    std::uint32_t count = 0;
  };

  ThriftReader(ByteView data, std::string what) : data_(data), what_(std::move(what)) {}

  Status BeginStruct();
  // The next field of the innermost struct; on the stop byte returns type
  // kStop and closes the struct.
  Result<Field> NextField();

  Result<std::int32_t> ReadI32();
  Result<std::int64_t> ReadI64();
  Result<std::int16_t> ReadI16();
  Result<std::string_view> ReadBinary();
  // The list header; Corruption if the count could not fit in the remaining
  // bytes (every element takes at least one byte, except bools in a header).
  Result<ListHeader> ReadListHeader();
  // Skips one value of `type` (used for unknown fields), nested values included.
  Status Skip(ThriftType type);

  // Corruption "<what>: <message> at byte <position>".
  Status Error(std::string_view message) const;
  // Corruption unless `field` has `expected` type (both bool types match kBoolTrue).
  Status ExpectType(const Field& field, ThriftType expected) const;

  std::size_t position() const { return position_; }

 private:
  Result<std::uint64_t> ReadVarint();
  Status SkipDepth(ThriftType type, int depth);

  ByteView data_;
  std::string what_;
  std::size_t position_ = 0;
  std::vector<std::int16_t> last_ids_;
};

}  // namespace chunkwise::formats::parquet

#endif  // CHUNKWISE_FORMATS_PARQUET_THRIFT_COMPACT_H_
