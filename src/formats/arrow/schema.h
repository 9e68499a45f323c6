// The Arrow schema model: fields with a name, a type, nullability and custom
// metadata, and a schema of top-level fields with its own metadata.
//
// Covers the types chunkwise writes and reads in Arrow IPC files: the signed
// and unsigned integers of 8 to 64 bits, Binary, Utf8 and List (32-bit
// offsets, one child field). Facts from Arrow's columnar format
// (docs/source/format/Columnar.rst) and Schema.fbs; prose in
// docs/formats/arrow-ipc.md. Plain value types, not synchronised.
#ifndef CHUNKWISE_FORMATS_ARROW_SCHEMA_H_
#define CHUNKWISE_FORMATS_ARROW_SCHEMA_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "chunkwise/core/result.h"

namespace chunkwise::formats::arrow {

enum class TypeId : std::uint8_t {
  kInt8,
  kInt16,
  kInt32,
  kInt64,
  kUInt8,
  kUInt16,
  kUInt32,
  kUInt64,
  kBinary,  // Variable-size bytes, 32-bit offsets.
  kUtf8,    // Variable-size UTF-8 text, 32-bit offsets.
  kList,    // Variable-size list of its one child field, 32-bit offsets.
};

// Bytes per value for the integer types; 0 for Binary, Utf8 and List.
int ByteWidth(TypeId type);
bool IsInteger(TypeId type);
bool IsSignedInteger(TypeId type);
// The integer type of `bit_width` bits, or InvalidArgument for other widths.
Result<TypeId> IntegerType(int bit_width, bool is_signed);

// One custom-metadata entry. Order is kept as written.
struct KeyValue {
  std::string key;
  std::string value;
  bool operator==(const KeyValue&) const = default;
};
using Metadata = std::vector<KeyValue>;

struct Field {
  std::string name;
  TypeId type = TypeId::kInt32;
  bool nullable = true;
  std::vector<Field> children;  // Exactly one for kList, none otherwise.
  Metadata metadata;

  static Field Primitive(std::string name, TypeId type, bool nullable = true,
                         Metadata metadata = {});
  // A List whose child is `item` (pyarrow and Go name it "item", nullable).
  static Field List(std::string name, Field item, bool nullable = true, Metadata metadata = {});

  bool operator==(const Field&) const = default;
};

struct Schema {
  std::vector<Field> fields;
  Metadata metadata;

  bool operator==(const Schema&) const = default;
};

// "int32", "uint64", "binary", "utf8", "list<uint64>": the type as pyarrow prints it.
std::string TypeName(const Field& field);

// InvalidArgument (naming the field path) if a List does not have exactly one
// child or another type has children.
Status ValidateSchema(const Schema& schema);

}  // namespace chunkwise::formats::arrow

#endif  // CHUNKWISE_FORMATS_ARROW_SCHEMA_H_
