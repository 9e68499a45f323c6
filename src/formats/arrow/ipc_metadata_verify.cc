#include "formats/arrow/ipc_metadata_verify.h"

#include "formats/arrow/ipc_metadata.h"
#include "formats/arrow/ipc_structs.h"

namespace chunkwise::formats::arrow::internal {
namespace {

using flatbuffers::Table;
using flatbuffers::Verifier;
using TableVector = flatbuffers::Vector<flatbuffers::Offset<Table>>;
using TableCheck = bool (*)(Verifier&, const Table*);

bool VerifyStringSlot(Verifier& verifier, const Table* table, int slot) {
  return table->VerifyOffset(verifier, Slot(slot)) &&
         verifier.VerifyString(table->GetPointer<const flatbuffers::String*>(Slot(slot)));
}

// A vector of scalars or structs of `T`.
template <typename T>
bool VerifyVectorSlot(Verifier& verifier, const Table* table, int slot) {
  return table->VerifyOffset(verifier, Slot(slot)) &&
         verifier.VerifyVector(table->GetPointer<const flatbuffers::Vector<T>*>(Slot(slot)));
}

bool VerifyTableVectorSlot(Verifier& verifier, const Table* table, int slot, TableCheck check) {
  if (!VerifyVectorSlot<flatbuffers::Offset<Table>>(verifier, table, slot)) return false;
  const auto* vector = table->GetPointer<const TableVector*>(Slot(slot));
  if (vector == nullptr) return true;
  for (flatbuffers::uoffset_t i = 0; i < vector->size(); ++i) {
    if (!check(verifier, vector->Get(i))) return false;
  }
  return true;
}

bool VerifyTableSlot(Verifier& verifier, const Table* table, int slot, TableCheck check) {
  if (!table->VerifyOffset(verifier, Slot(slot))) return false;
  const Table* child = table->GetPointer<const Table*>(Slot(slot));
  return child == nullptr || check(verifier, child);
}

// A table none of whose fields chunkwise reads (Binary, Utf8, List, and
// members it refuses): only its vtable is checked.
bool VerifyOpaqueTable(Verifier& verifier, const Table* table) {
  return table->VerifyTableStart(verifier) && verifier.EndTable();
}

bool VerifyKeyValue(Verifier& verifier, const Table* table) {
  return table->VerifyTableStart(verifier) &&
         VerifyStringSlot(verifier, table, key_value_slot::kKey) &&
         VerifyStringSlot(verifier, table, key_value_slot::kValue) && verifier.EndTable();
}

bool VerifyIntType(Verifier& verifier, const Table* table) {
  return table->VerifyTableStart(verifier) &&
         table->VerifyField<std::int32_t>(verifier, Slot(int_slot::kBitWidth), 4) &&
         table->VerifyField<std::uint8_t>(verifier, Slot(int_slot::kIsSigned), 1) &&
         verifier.EndTable();
}

bool VerifyField(Verifier& verifier, const Table* table) {
  if (!table->VerifyTableStart(verifier) || !VerifyStringSlot(verifier, table, field_slot::kName) ||
      !table->VerifyField<std::uint8_t>(verifier, Slot(field_slot::kNullable), 1) ||
      !table->VerifyField<std::uint8_t>(verifier, Slot(field_slot::kTypeType), 1)) {
    return false;
  }
  const auto type_type = table->GetField<std::uint8_t>(Slot(field_slot::kTypeType), 0);
  const TableCheck type_check = type_type == kTypeInt ? VerifyIntType : VerifyOpaqueTable;
  return VerifyTableSlot(verifier, table, field_slot::kType, type_check) &&
         VerifyTableSlot(verifier, table, field_slot::kDictionary, VerifyOpaqueTable) &&
         VerifyTableVectorSlot(verifier, table, field_slot::kChildren, VerifyField) &&
         VerifyTableVectorSlot(verifier, table, field_slot::kCustomMetadata, VerifyKeyValue) &&
         verifier.EndTable();
}

bool VerifySchema(Verifier& verifier, const Table* table) {
  return table->VerifyTableStart(verifier) &&
         table->VerifyField<std::int16_t>(verifier, Slot(schema_slot::kEndianness), 2) &&
         VerifyTableVectorSlot(verifier, table, schema_slot::kFields, VerifyField) &&
         VerifyTableVectorSlot(verifier, table, schema_slot::kCustomMetadata, VerifyKeyValue) &&
         VerifyVectorSlot<std::int64_t>(verifier, table, schema_slot::kFeatures) &&
         verifier.EndTable();
}

bool VerifyBodyCompression(Verifier& verifier, const Table* table) {
  return table->VerifyTableStart(verifier) &&
         table->VerifyField<std::int8_t>(verifier, Slot(body_compression_slot::kCodec), 1) &&
         table->VerifyField<std::int8_t>(verifier, Slot(body_compression_slot::kMethod), 1) &&
         verifier.EndTable();
}

bool VerifyRecordBatch(Verifier& verifier, const Table* table) {
  return table->VerifyTableStart(verifier) &&
         table->VerifyField<std::int64_t>(verifier, Slot(record_batch_slot::kLength), 8) &&
         VerifyVectorSlot<Struct16>(verifier, table, record_batch_slot::kNodes) &&
         VerifyVectorSlot<Struct16>(verifier, table, record_batch_slot::kBuffers) &&
         VerifyTableSlot(verifier, table, record_batch_slot::kCompression, VerifyBodyCompression) &&
         VerifyVectorSlot<std::int64_t>(verifier, table,
                                        record_batch_slot::kVariadicBufferCounts) &&
         verifier.EndTable();
}

}  // namespace

bool VerifyMessageTable(Verifier& verifier, const Table* message) {
  if (!message->VerifyTableStart(verifier) ||
      !message->VerifyField<std::int16_t>(verifier, Slot(message_slot::kVersion), 2) ||
      !message->VerifyField<std::uint8_t>(verifier, Slot(message_slot::kHeaderType), 1) ||
      !message->VerifyField<std::int64_t>(verifier, Slot(message_slot::kBodyLength), 8)) {
    return false;
  }
  const auto type =
      static_cast<MessageType>(message->GetField<std::uint8_t>(Slot(message_slot::kHeaderType), 0));
  const TableCheck header_check = type == MessageType::kSchema        ? VerifySchema
                                  : type == MessageType::kRecordBatch ? VerifyRecordBatch
                                                                      : VerifyOpaqueTable;
  return VerifyTableSlot(verifier, message, message_slot::kHeader, header_check) &&
         VerifyTableVectorSlot(verifier, message, message_slot::kCustomMetadata, VerifyKeyValue) &&
         verifier.EndTable();
}

bool VerifyFooterTable(Verifier& verifier, const Table* footer) {
  return footer->VerifyTableStart(verifier) &&
         footer->VerifyField<std::int16_t>(verifier, Slot(footer_slot::kVersion), 2) &&
         VerifyTableSlot(verifier, footer, footer_slot::kSchema, VerifySchema) &&
         VerifyVectorSlot<Struct24>(verifier, footer, footer_slot::kDictionaries) &&
         VerifyVectorSlot<Struct24>(verifier, footer, footer_slot::kRecordBatches) &&
         VerifyTableVectorSlot(verifier, footer, footer_slot::kCustomMetadata, VerifyKeyValue) &&
         verifier.EndTable();
}

const Table* RootTable(Verifier& verifier, ByteView buffer) {
  const flatbuffers::uoffset_t root = verifier.VerifyOffset(0);
  if (root == 0) return nullptr;
  return reinterpret_cast<const Table*>(buffer.data() + root);
}

}  // namespace chunkwise::formats::arrow::internal
