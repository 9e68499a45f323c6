// Builds Arrow's Message and Footer flatbuffers with the flatbuffers runtime builder.
#include <flatbuffers/flatbuffers.h>

#include "formats/arrow/byte_copy.h"
#include "formats/arrow/ipc_metadata.h"
#include "formats/arrow/ipc_structs.h"

namespace chunkwise::formats::arrow::internal {
namespace {

using flatbuffers::FlatBufferBuilder;
using flatbuffers::Offset;
using TableOffset = Offset<flatbuffers::Table>;

// Finished tables are referred to by their offset from the buffer end.
TableOffset AsTable(flatbuffers::uoffset_t end) { return TableOffset(end); }

Offset<flatbuffers::Vector<Offset<flatbuffers::Table>>> EncodeMetadata(FlatBufferBuilder& builder,
                                                                       const Metadata& metadata) {
  std::vector<TableOffset> entries;
  entries.reserve(metadata.size());
  for (const KeyValue& entry : metadata) {
    const auto key = builder.CreateString(entry.key);
    const auto value = builder.CreateString(entry.value);
    const auto start = builder.StartTable();
    builder.AddOffset(Slot(key_value_slot::kKey), key);
    builder.AddOffset(Slot(key_value_slot::kValue), value);
    entries.push_back(AsTable(builder.EndTable(start)));
  }
  return builder.CreateVector(entries);
}

// The Type union member of `field`: an Int table, or an empty Binary/Utf8/List table.
std::pair<std::uint8_t, TableOffset> EncodeType(FlatBufferBuilder& builder, const Field& field) {
  const auto start = builder.StartTable();
  if (IsInteger(field.type)) {
    builder.AddElement<std::int32_t>(Slot(int_slot::kBitWidth), ByteWidth(field.type) * 8, 0);
    builder.AddElement<std::uint8_t>(Slot(int_slot::kIsSigned), IsSignedInteger(field.type), 0);
    return {kTypeInt, AsTable(builder.EndTable(start))};
  }
  const std::uint8_t member = field.type == TypeId::kBinary ? kTypeBinary
                              : field.type == TypeId::kUtf8 ? kTypeUtf8
                                                            : kTypeList;
  return {member, AsTable(builder.EndTable(start))};
}

TableOffset EncodeField(FlatBufferBuilder& builder, const Field& field) {
  std::vector<TableOffset> children;
  for (const Field& child : field.children) children.push_back(EncodeField(builder, child));
  const auto name = builder.CreateString(field.name);
  const auto [type_type, type] = EncodeType(builder, field);
  // Arrow C++ refuses a Field without a children vector, so even leaves get an empty one.
  const auto children_vector = builder.CreateVector(children);
  const auto metadata = field.metadata.empty() ? 0 : EncodeMetadata(builder, field.metadata);
  const auto start = builder.StartTable();
  builder.AddOffset(Slot(field_slot::kName), name);
  builder.AddElement<std::uint8_t>(Slot(field_slot::kNullable), field.nullable, 0);
  builder.AddElement<std::uint8_t>(Slot(field_slot::kTypeType), type_type, 0);
  builder.AddOffset(Slot(field_slot::kType), type);
  builder.AddOffset(Slot(field_slot::kChildren), children_vector);
  if (!field.metadata.empty()) builder.AddOffset(Slot(field_slot::kCustomMetadata), metadata);
  return AsTable(builder.EndTable(start));
}

TableOffset EncodeSchema(FlatBufferBuilder& builder, const Schema& schema) {
  std::vector<TableOffset> fields;
  for (const Field& field : schema.fields) fields.push_back(EncodeField(builder, field));
  const auto fields_vector = builder.CreateVector(fields);
  const auto metadata = schema.metadata.empty() ? 0 : EncodeMetadata(builder, schema.metadata);
  const auto start = builder.StartTable();
  // Endianness Little is the default (0), so the slot stays absent.
  builder.AddOffset(Slot(schema_slot::kFields), fields_vector);
  if (!schema.metadata.empty()) builder.AddOffset(Slot(schema_slot::kCustomMetadata), metadata);
  return AsTable(builder.EndTable(start));
}

Bytes Finish(FlatBufferBuilder& builder, TableOffset root) {
  builder.Finish(root);
  const std::uint8_t* data = builder.GetBufferPointer();
  return CopyBytes(ByteView(data, builder.GetSize()));
}

Bytes EncodeMessage(FlatBufferBuilder& builder, MessageType type, TableOffset header,
                    std::int64_t body_length) {
  const auto start = builder.StartTable();
  builder.AddElement<std::int64_t>(Slot(message_slot::kBodyLength), body_length, 0);
  builder.AddOffset(Slot(message_slot::kHeader), header);
  builder.AddElement<std::int16_t>(Slot(message_slot::kVersion), kMetadataV5, 0);
  builder.AddElement<std::uint8_t>(Slot(message_slot::kHeaderType), static_cast<std::uint8_t>(type),
                                   0);
  return Finish(builder, AsTable(builder.EndTable(start)));
}

}  // namespace

Bytes EncodeSchemaMessage(const Schema& schema) {
  FlatBufferBuilder builder(1024);
  const TableOffset header = EncodeSchema(builder, schema);
  return EncodeMessage(builder, MessageType::kSchema, header, 0);
}

Bytes EncodeRecordBatchMessage(const RecordBatchHeader& header, std::int64_t body_length) {
  FlatBufferBuilder builder(256 + 16 * (header.nodes.size() + header.buffers.size()));
  std::vector<Struct16> nodes(header.nodes.size()), buffers(header.buffers.size());
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    nodes[i] = Struct16::Of(header.nodes[i].length, header.nodes[i].null_count);
  }
  for (std::size_t i = 0; i < buffers.size(); ++i) {
    buffers[i] = Struct16::Of(header.buffers[i].offset, header.buffers[i].length);
  }
  const auto nodes_vector = builder.CreateVectorOfStructs(nodes.data(), nodes.size());
  const auto buffers_vector = builder.CreateVectorOfStructs(buffers.data(), buffers.size());
  const auto start = builder.StartTable();
  builder.AddElement<std::int64_t>(Slot(record_batch_slot::kLength), header.length, 0);
  builder.AddOffset(Slot(record_batch_slot::kNodes), nodes_vector);
  builder.AddOffset(Slot(record_batch_slot::kBuffers), buffers_vector);
  // No compression slot: bodies are written uncompressed.
  return EncodeMessage(builder, MessageType::kRecordBatch, AsTable(builder.EndTable(start)),
                       body_length);
}

Bytes EncodeFooter(const Schema& schema, std::span<const MessageBlock> record_batches) {
  FlatBufferBuilder builder(1024 + 24 * record_batches.size());
  const TableOffset schema_table = EncodeSchema(builder, schema);
  std::vector<Struct24> blocks(record_batches.size());
  for (std::size_t i = 0; i < blocks.size(); ++i) blocks[i] = Struct24::Of(record_batches[i]);
  const auto dictionaries = builder.CreateVectorOfStructs<Struct24>(nullptr, 0);
  const auto batches = builder.CreateVectorOfStructs(blocks.data(), blocks.size());
  const auto start = builder.StartTable();
  builder.AddOffset(Slot(footer_slot::kSchema), schema_table);
  builder.AddOffset(Slot(footer_slot::kDictionaries), dictionaries);
  builder.AddOffset(Slot(footer_slot::kRecordBatches), batches);
  builder.AddElement<std::int16_t>(Slot(footer_slot::kVersion), kMetadataV5, 0);
  return Finish(builder, AsTable(builder.EndTable(start)));
}

}  // namespace chunkwise::formats::arrow::internal
