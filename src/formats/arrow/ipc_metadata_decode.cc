// Reads Arrow's Message and Footer flatbuffers after verifying them.
#include <flatbuffers/flatbuffers.h>

#include <array>
#include <string>

#include "formats/arrow/ipc_metadata.h"
#include "formats/arrow/ipc_metadata_verify.h"
#include "formats/arrow/ipc_structs.h"

namespace chunkwise::formats::arrow::internal {
namespace {

using flatbuffers::Table;
using TableVector = flatbuffers::Vector<flatbuffers::Offset<Table>>;

// Schema.fbs's Type union members by id, for messages about types chunkwise refuses.
std::string TypeMemberName(std::uint8_t id) {
  static constexpr std::array<const char*, 27> kNames = {
      "NONE",          "Null",      "Int",           "FloatingPoint",
      "Binary",        "Utf8",      "Bool",          "Decimal",
      "Date",          "Time",      "Timestamp",     "Interval",
      "List",          "Struct_",   "Union",         "FixedSizeBinary",
      "FixedSizeList", "Map",       "Duration",      "LargeBinary",
      "LargeUtf8",     "LargeList", "RunEndEncoded", "BinaryView",
      "Utf8View",      "ListView",  "LargeListView"};
  return id < kNames.size() ? kNames[id] : "type " + std::to_string(id);
}

std::int64_t LoadInt64(const std::uint8_t* at) {
  return static_cast<std::int64_t>(LoadLittleEndian<std::uint64_t>(at));
}

std::string StringAt(const Table* table, int slot) {
  const auto* text = table->GetPointer<const flatbuffers::String*>(Slot(slot));
  return text == nullptr ? std::string() : text->str();
}

Metadata DecodeMetadata(const Table* table, int slot) {
  Metadata metadata;
  const auto* entries = table->GetPointer<const TableVector*>(Slot(slot));
  if (entries == nullptr) return metadata;
  for (flatbuffers::uoffset_t i = 0; i < entries->size(); ++i) {
    const Table* entry = entries->Get(i);
    metadata.push_back(
        {StringAt(entry, key_value_slot::kKey), StringAt(entry, key_value_slot::kValue)});
  }
  return metadata;
}

Result<TypeId> DecodeType(const Table* field, const std::string& where) {
  const auto member = field->GetField<std::uint8_t>(Slot(field_slot::kTypeType), 0);
  const Table* type = field->GetPointer<const Table*>(Slot(field_slot::kType));
  if (type == nullptr) return Status::Corruption(where + " has no type table");
  switch (member) {
    case kTypeInt: {
      const int bit_width = type->GetField<std::int32_t>(Slot(int_slot::kBitWidth), 0);
      const bool is_signed = type->GetField<std::uint8_t>(Slot(int_slot::kIsSigned), 0) != 0;
      Result<TypeId> id = IntegerType(bit_width, is_signed);
      if (!id.ok()) return Status::Corruption(where + ": " + std::string(id.status().message()));
      return id;
    }
    case kTypeBinary:
      return TypeId::kBinary;
    case kTypeUtf8:
      return TypeId::kUtf8;
    case kTypeList:
      return TypeId::kList;
    default:
      return Status::Unsupported(where + " has Arrow type " + TypeMemberName(member) +
                                 ", which chunkwise does not read");
  }
}

Result<Field> DecodeField(const Table* table, const std::string& context) {
  Field field;
  field.name = StringAt(table, field_slot::kName);
  const std::string where = context + ": field '" + field.name + "'";
  field.nullable = table->GetField<std::uint8_t>(Slot(field_slot::kNullable), 0) != 0;
  if (table->GetPointer<const Table*>(Slot(field_slot::kDictionary)) != nullptr) {
    return Status::Unsupported(where + " is dictionary-encoded, which chunkwise does not read");
  }
  CHUNKWISE_ASSIGN_OR_RETURN(field.type, DecodeType(table, where));
  if (const auto* children = table->GetPointer<const TableVector*>(Slot(field_slot::kChildren))) {
    for (flatbuffers::uoffset_t i = 0; i < children->size(); ++i) {
      CHUNKWISE_ASSIGN_OR_RETURN(Field child, DecodeField(children->Get(i), context));
      field.children.push_back(std::move(child));
    }
  }
  const std::size_t expected_children = field.type == TypeId::kList ? 1 : 0;
  if (field.children.size() != expected_children) {
    return Status::Corruption(where + " of type " +
                              TypeMemberName(field.type == TypeId::kList ? kTypeList : 0) +
                              " has " + std::to_string(field.children.size()) +
                              " children, expected " + std::to_string(expected_children));
  }
  field.metadata = DecodeMetadata(table, field_slot::kCustomMetadata);
  return field;
}

Result<Schema> DecodeSchema(const Table* table, std::string_view context) {
  const std::string where(context);
  if (table->GetField<std::int16_t>(Slot(schema_slot::kEndianness), 0) != 0) {
    return Status::Unsupported(where + ": schema is big-endian, which chunkwise does not read");
  }
  Schema schema;
  if (const auto* fields = table->GetPointer<const TableVector*>(Slot(schema_slot::kFields))) {
    for (flatbuffers::uoffset_t i = 0; i < fields->size(); ++i) {
      CHUNKWISE_ASSIGN_OR_RETURN(Field field, DecodeField(fields->Get(i), where));
      schema.fields.push_back(std::move(field));
    }
  }
  schema.metadata = DecodeMetadata(table, schema_slot::kCustomMetadata);
  return schema;
}

template <typename T>
const flatbuffers::Vector<T>* VectorAt(const Table* table, int slot) {
  return table->GetPointer<const flatbuffers::Vector<T>*>(Slot(slot));
}

Result<RecordBatchHeader> DecodeRecordBatch(const Table* table, std::string_view context) {
  if (table->GetPointer<const Table*>(Slot(record_batch_slot::kCompression)) != nullptr) {
    return Status::Unsupported(std::string(context) +
                               ": record batch body is compressed (IPC buffer compression), "
                               "which chunkwise does not read");
  }
  RecordBatchHeader header;
  header.length = table->GetField<std::int64_t>(Slot(record_batch_slot::kLength), 0);
  if (header.length < 0) {
    return Status::Corruption(std::string(context) + ": record batch length " +
                              std::to_string(header.length) + " is negative");
  }
  if (const auto* nodes = VectorAt<Struct16>(table, record_batch_slot::kNodes)) {
    for (flatbuffers::uoffset_t i = 0; i < nodes->size(); ++i) {
      const std::uint8_t* item = nodes->Data() + 16 * std::size_t{i};
      header.nodes.push_back({LoadInt64(item), LoadInt64(item + 8)});
    }
  }
  if (const auto* buffers = VectorAt<Struct16>(table, record_batch_slot::kBuffers)) {
    for (flatbuffers::uoffset_t i = 0; i < buffers->size(); ++i) {
      const std::uint8_t* item = buffers->Data() + 16 * std::size_t{i};
      header.buffers.push_back({LoadInt64(item), LoadInt64(item + 8)});
    }
  }
  return header;
}

// Refuses buffers the verifier cannot take and those whose root table fails `check`.
Result<const Table*> VerifiedRoot(flatbuffers::Verifier& verifier, ByteView flatbuffer,
                                  bool (*check)(flatbuffers::Verifier&, const Table*),
                                  std::string_view what, std::string_view context) {
  const Table* root = RootTable(verifier, flatbuffer);
  if (root == nullptr || !check(verifier, root)) {
    return Status::Corruption(std::string(context) + ": " + std::string(what) + " flatbuffer (" +
                              std::to_string(flatbuffer.size()) + " bytes) fails verification");
  }
  return root;
}

Status CheckVersion(std::int16_t version, std::string_view context) {
  if (version == kMetadataV4 || version == kMetadataV5) return Status::Ok();
  return Status::Unsupported(std::string(context) + ": metadata version V" +
                             std::to_string(version + 1) + " (chunkwise reads V4 and V5)");
}

}  // namespace

Result<DecodedMessage> DecodeMessage(ByteView flatbuffer, std::string_view context) {
  if (flatbuffer.size() > kMaxMetadataBytes) {
    return Status::Corruption(std::string(context) + ": message metadata of " +
                              std::to_string(flatbuffer.size()) + " bytes is implausibly large");
  }
  flatbuffers::Verifier verifier(flatbuffer.data(), flatbuffer.size());
  CHUNKWISE_ASSIGN_OR_RETURN(
      const Table* message,
      VerifiedRoot(verifier, flatbuffer, VerifyMessageTable, "Message", context));
  DecodedMessage decoded;
  decoded.version = message->GetField<std::int16_t>(Slot(message_slot::kVersion), 0);
  CHUNKWISE_RETURN_IF_ERROR(CheckVersion(decoded.version, context));
  decoded.type =
      static_cast<MessageType>(message->GetField<std::uint8_t>(Slot(message_slot::kHeaderType), 0));
  decoded.body_length = message->GetField<std::int64_t>(Slot(message_slot::kBodyLength), 0);
  if (decoded.body_length < 0) {
    return Status::Corruption(std::string(context) + ": negative message body length " +
                              std::to_string(decoded.body_length));
  }
  const Table* header = message->GetPointer<const Table*>(Slot(message_slot::kHeader));
  if (decoded.type == MessageType::kSchema || decoded.type == MessageType::kRecordBatch) {
    if (header == nullptr)
      return Status::Corruption(std::string(context) + ": message has no header");
  }
  if (decoded.type == MessageType::kSchema) {
    CHUNKWISE_ASSIGN_OR_RETURN(decoded.schema, DecodeSchema(header, context));
  } else if (decoded.type == MessageType::kRecordBatch) {
    CHUNKWISE_ASSIGN_OR_RETURN(decoded.batch, DecodeRecordBatch(header, context));
  }
  return decoded;
}

Result<DecodedFooter> DecodeFooter(ByteView flatbuffer, std::string_view context) {
  if (flatbuffer.size() > kMaxMetadataBytes) {
    return Status::Corruption(std::string(context) + ": footer of " +
                              std::to_string(flatbuffer.size()) + " bytes is implausibly large");
  }
  flatbuffers::Verifier verifier(flatbuffer.data(), flatbuffer.size());
  CHUNKWISE_ASSIGN_OR_RETURN(
      const Table* footer,
      VerifiedRoot(verifier, flatbuffer, VerifyFooterTable, "Footer", context));
  // Arrow 0.14 files leave the footer's version unset (reading as V1) while
  // their messages say V4; every message's own version is checked on read, so
  // only a footer from a future version is refused here.
  if (const auto version = footer->GetField<std::int16_t>(Slot(footer_slot::kVersion), 0);
      version > kMetadataV5) {
    CHUNKWISE_RETURN_IF_ERROR(CheckVersion(version, context));
  }
  const Table* schema = footer->GetPointer<const Table*>(Slot(footer_slot::kSchema));
  if (schema == nullptr) return Status::Corruption(std::string(context) + ": footer has no schema");
  DecodedFooter decoded;
  CHUNKWISE_ASSIGN_OR_RETURN(decoded.schema, DecodeSchema(schema, context));
  if (const auto* dictionaries = VectorAt<Struct24>(footer, footer_slot::kDictionaries)) {
    decoded.dictionary_count = dictionaries->size();
  }
  if (const auto* blocks = VectorAt<Struct24>(footer, footer_slot::kRecordBatches)) {
    for (flatbuffers::uoffset_t i = 0; i < blocks->size(); ++i) {
      // Block: offset i64 @0, metaDataLength i32 @8, padding, bodyLength i64 @16.
      const std::uint8_t* item = blocks->Data() + 24 * std::size_t{i};
      const std::int64_t offset = LoadInt64(item), body_length = LoadInt64(item + 16);
      const auto metadata_length =
          static_cast<std::int32_t>(LoadLittleEndian<std::uint32_t>(item + 8));
      if (offset < 0 || metadata_length < 0 || body_length < 0) {
        return Status::Corruption(std::string(context) + ": footer block " + std::to_string(i) +
                                  " has a negative offset or length");
      }
      decoded.record_batches.push_back({static_cast<std::uint64_t>(offset),
                                        static_cast<std::uint32_t>(metadata_length),
                                        static_cast<std::uint64_t>(body_length)});
    }
  }
  return decoded;
}

}  // namespace chunkwise::formats::arrow::internal
