#include "formats/arrow/schema.h"

#include <utility>

namespace chunkwise::formats::arrow {
namespace {

Status ValidateField(const Field& field, const std::string& path) {
  const std::string here = path.empty() ? field.name : path + "." + field.name;
  if (field.type == TypeId::kList) {
    if (field.children.size() != 1) {
      return Status::InvalidArgument("field '" + here + "': a list needs exactly one child, has " +
                                     std::to_string(field.children.size()));
    }
    return ValidateField(field.children[0], here);
  }
  if (!field.children.empty()) {
    return Status::InvalidArgument("field '" + here + "': type " + TypeName(field) +
                                   " cannot have children");
  }
  return Status::Ok();
}

}  // namespace

int ByteWidth(TypeId type) {
  switch (type) {
    case TypeId::kInt8:
    case TypeId::kUInt8:
      return 1;
    case TypeId::kInt16:
    case TypeId::kUInt16:
      return 2;
    case TypeId::kInt32:
    case TypeId::kUInt32:
      return 4;
    case TypeId::kInt64:
    case TypeId::kUInt64:
      return 8;
    case TypeId::kBinary:
    case TypeId::kUtf8:
    case TypeId::kList:
      return 0;
  }
  return 0;
}

bool IsInteger(TypeId type) { return ByteWidth(type) != 0; }

bool IsSignedInteger(TypeId type) {
  return type == TypeId::kInt8 || type == TypeId::kInt16 || type == TypeId::kInt32 ||
         type == TypeId::kInt64;
}

Result<TypeId> IntegerType(int bit_width, bool is_signed) {
  switch (bit_width) {
    case 8:
      return is_signed ? TypeId::kInt8 : TypeId::kUInt8;
    case 16:
      return is_signed ? TypeId::kInt16 : TypeId::kUInt16;
    case 32:
      return is_signed ? TypeId::kInt32 : TypeId::kUInt32;
    case 64:
      return is_signed ? TypeId::kInt64 : TypeId::kUInt64;
    default:
      return Status::InvalidArgument("integer bit width " + std::to_string(bit_width) +
                                     " is not 8, 16, 32 or 64");
  }
}

Field Field::Primitive(std::string name, TypeId type, bool nullable, Metadata metadata) {
  return Field{std::move(name), type, nullable, {}, std::move(metadata)};
}

Field Field::List(std::string name, Field item, bool nullable, Metadata metadata) {
  Field field{std::move(name), TypeId::kList, nullable, {}, std::move(metadata)};
  field.children.push_back(std::move(item));
  return field;
}

std::string TypeName(const Field& field) {
  switch (field.type) {
    case TypeId::kInt8:
      return "int8";
    case TypeId::kInt16:
      return "int16";
    case TypeId::kInt32:
      return "int32";
    case TypeId::kInt64:
      return "int64";
    case TypeId::kUInt8:
      return "uint8";
    case TypeId::kUInt16:
      return "uint16";
    case TypeId::kUInt32:
      return "uint32";
    case TypeId::kUInt64:
      return "uint64";
    case TypeId::kBinary:
      return "binary";
    case TypeId::kUtf8:
      return "utf8";
    case TypeId::kList:
      return field.children.size() == 1 ? "list<" + TypeName(field.children[0]) + ">" : "list<?>";
  }
  return "?";
}

Status ValidateSchema(const Schema& schema) {
  for (const Field& field : schema.fields) {
    CHUNKWISE_RETURN_IF_ERROR(ValidateField(field, ""));
  }
  return Status::Ok();
}

}  // namespace chunkwise::formats::arrow
