#include "formats/parquet/thrift_compact.h"

#include <string>

#include "chunkwise/core/check.h"

namespace chunkwise::formats::parquet {

void ThriftWriter::EndStruct() {
  CHUNKWISE_CHECK(!last_ids_.empty());
  out_.push_back(0);
  last_ids_.pop_back();
}

void ThriftWriter::Varint(std::uint64_t value) {
  while (value >= 0x80) {
    out_.push_back(static_cast<std::uint8_t>(value | 0x80));
    value >>= 7;
  }
  out_.push_back(static_cast<std::uint8_t>(value));
}

void ThriftWriter::FieldHeader(std::int16_t id, ThriftType type) {
  CHUNKWISE_CHECK(!last_ids_.empty());
  const int delta = id - last_ids_.back();
  if (delta > 0 && delta <= 15) {
    out_.push_back(static_cast<std::uint8_t>((delta << 4) | static_cast<int>(type)));
  } else {
    out_.push_back(static_cast<std::uint8_t>(type));
    Varint(ZigZag(id));
  }
  last_ids_.back() = id;
}

void ThriftWriter::I32Field(std::int16_t id, std::int32_t value) {
  FieldHeader(id, ThriftType::kI32);
  Varint(ZigZag(value));
}

void ThriftWriter::I64Field(std::int16_t id, std::int64_t value) {
  FieldHeader(id, ThriftType::kI64);
  Varint(ZigZag(value));
}

void ThriftWriter::BoolField(std::int16_t id, bool value) {
  FieldHeader(id, value ? ThriftType::kBoolTrue : ThriftType::kBoolFalse);
}

void ThriftWriter::BinaryField(std::int16_t id, std::string_view value) {
  FieldHeader(id, ThriftType::kBinary);
  BinaryElement(value);
}

void ThriftWriter::BinaryElement(std::string_view value) {
  Varint(value.size());
  AppendBytes(out_, AsBytes(value));
}

void ThriftWriter::StructField(std::int16_t id) {
  FieldHeader(id, ThriftType::kStruct);
  BeginStruct();
}

void ThriftWriter::ListField(std::int16_t id, ThriftType element_type, std::size_t count) {
  FieldHeader(id, ThriftType::kList);
  if (count <= 14) {
    out_.push_back(static_cast<std::uint8_t>((count << 4) | static_cast<int>(element_type)));
  } else {
    out_.push_back(static_cast<std::uint8_t>(0xF0 | static_cast<int>(element_type)));
    Varint(count);
  }
}

Status ThriftReader::Error(std::string_view message) const {
  return Status::Corruption(what_ + ": " + std::string(message) + " at byte " +
                            std::to_string(position_));
}

Status ThriftReader::ExpectType(const Field& field, ThriftType expected) const {
  ThriftType actual = field.type;
  if (actual == ThriftType::kBoolFalse) actual = ThriftType::kBoolTrue;
  if (actual == expected) return Status::Ok();
  return Error("field " + std::to_string(field.id) + " has compact type " +
               std::to_string(static_cast<int>(field.type)) + ", expected " +
               std::to_string(static_cast<int>(expected)));
}

Result<std::uint64_t> ThriftReader::ReadVarint() {
  std::uint64_t value = 0;
  for (int shift = 0; shift < 64; shift += 7) {
    if (position_ >= data_.size()) return Error("truncated varint");
    const std::uint8_t byte = data_[position_++];
    value |= static_cast<std::uint64_t>(byte & 0x7F) << shift;
    if ((byte & 0x80) == 0) return value;
  }
  return Error("varint longer than 10 bytes");
}

Status ThriftReader::BeginStruct() {
  if (static_cast<int>(last_ids_.size()) >= kMaxDepth) return Error("structs nested too deeply");
  last_ids_.push_back(0);
  return Status::Ok();
}

Result<ThriftReader::Field> ThriftReader::NextField() {
  CHUNKWISE_CHECK(!last_ids_.empty());
  if (position_ >= data_.size()) return Error("struct without a stop byte");
  const std::uint8_t header = data_[position_++];
  Field field;
  field.type = static_cast<ThriftType>(header & 0x0F);
  if (field.type == ThriftType::kStop) {
    if (header != 0) return Error("bad field header");
    last_ids_.pop_back();
    return field;
  }
  if (static_cast<int>(field.type) > static_cast<int>(ThriftType::kStruct)) {
    return Error("unknown field type " + std::to_string(static_cast<int>(field.type)));
  }
  const int delta = header >> 4;
  if (delta != 0) {
    field.id = static_cast<std::int16_t>(last_ids_.back() + delta);
  } else {
    CHUNKWISE_ASSIGN_OR_RETURN(const std::int16_t id, ReadI16());
    field.id = id;
  }
  last_ids_.back() = field.id;
  field.bool_value = field.type == ThriftType::kBoolTrue;
  return field;
}

Result<std::int64_t> ThriftReader::ReadI64() {
  CHUNKWISE_ASSIGN_OR_RETURN(const std::uint64_t raw, ReadVarint());
  return static_cast<std::int64_t>(raw >> 1) ^ -static_cast<std::int64_t>(raw & 1);
}

Result<std::int32_t> ThriftReader::ReadI32() {
  CHUNKWISE_ASSIGN_OR_RETURN(const std::int64_t value, ReadI64());
  if (value < INT32_MIN || value > INT32_MAX) return Error("i32 out of range");
  return static_cast<std::int32_t>(value);
}

Result<std::int16_t> ThriftReader::ReadI16() {
  CHUNKWISE_ASSIGN_OR_RETURN(const std::int64_t value, ReadI64());
  if (value < INT16_MIN || value > INT16_MAX) return Error("i16 out of range");
  return static_cast<std::int16_t>(value);
}

Result<std::string_view> ThriftReader::ReadBinary() {
  CHUNKWISE_ASSIGN_OR_RETURN(const std::uint64_t length, ReadVarint());
  if (length > data_.size() - position_) return Error("binary value runs past the end");
  const std::string_view value = AsChars(data_.subspan(position_, length));
  position_ += length;
  return value;
}

Result<ThriftReader::ListHeader> ThriftReader::ReadListHeader() {
  if (position_ >= data_.size()) return Error("truncated list header");
  const std::uint8_t header = data_[position_++];
  ListHeader list;
  list.element_type = static_cast<ThriftType>(header & 0x0F);
  std::uint64_t count = header >> 4;
  if (count == 15) {
    CHUNKWISE_ASSIGN_OR_RETURN(count, ReadVarint());
  }
  // Every element, bools included, takes at least one byte inside a list.
  if (count > data_.size() - position_) return Error("list count exceeds the remaining bytes");
  list.count = static_cast<std::uint32_t>(count);
  return list;
}

Status ThriftReader::Skip(ThriftType type) { return SkipDepth(type, 0); }

Status ThriftReader::SkipDepth(ThriftType type, int depth) {
  if (depth + static_cast<int>(last_ids_.size()) >= kMaxDepth) return Error("nested too deeply");
  switch (type) {
    case ThriftType::kBoolTrue:
    case ThriftType::kBoolFalse:
      return Status::Ok();
    case ThriftType::kByte:
      if (position_ >= data_.size()) return Error("truncated byte");
      ++position_;
      return Status::Ok();
    case ThriftType::kI16:
    case ThriftType::kI32:
    case ThriftType::kI64:
      return ReadVarint().status();
    case ThriftType::kDouble:
      if (data_.size() - position_ < 8) return Error("truncated double");
      position_ += 8;
      return Status::Ok();
    case ThriftType::kBinary:
      return ReadBinary().status();
    case ThriftType::kList:
    case ThriftType::kSet: {
      CHUNKWISE_ASSIGN_OR_RETURN(const ListHeader list, ReadListHeader());
      for (std::uint32_t i = 0; i < list.count; ++i) {
        // Inside containers a bool is one byte.
        const bool is_bool = list.element_type == ThriftType::kBoolTrue ||
                             list.element_type == ThriftType::kBoolFalse;
        CHUNKWISE_RETURN_IF_ERROR(
            SkipDepth(is_bool ? ThriftType::kByte : list.element_type, depth + 1));
      }
      return Status::Ok();
    }
    case ThriftType::kMap: {
      CHUNKWISE_ASSIGN_OR_RETURN(const std::uint64_t count, ReadVarint());
      if (count == 0) return Status::Ok();
      if (count > data_.size() - position_) return Error("map count exceeds the remaining bytes");
      if (position_ >= data_.size()) return Error("truncated map header");
      const std::uint8_t types = data_[position_++];
      auto element = [](int code) {
        const auto t = static_cast<ThriftType>(code);
        return t == ThriftType::kBoolTrue || t == ThriftType::kBoolFalse ? ThriftType::kByte : t;
      };
      for (std::uint64_t i = 0; i < count; ++i) {
        CHUNKWISE_RETURN_IF_ERROR(SkipDepth(element(types >> 4), depth + 1));
        CHUNKWISE_RETURN_IF_ERROR(SkipDepth(element(types & 0x0F), depth + 1));
      }
      return Status::Ok();
    }
    case ThriftType::kStruct: {
      CHUNKWISE_RETURN_IF_ERROR(BeginStruct());
      while (true) {
        CHUNKWISE_ASSIGN_OR_RETURN(const Field field, NextField());
        if (field.type == ThriftType::kStop) break;
        CHUNKWISE_RETURN_IF_ERROR(SkipDepth(field.type, depth + 1));
      }
      return Status::Ok();
    }
    default:
      return Error("cannot skip type " + std::to_string(static_cast<int>(type)));
  }
}

}  // namespace chunkwise::formats::parquet
