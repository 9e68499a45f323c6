// The flatbuffer metadata of Arrow IPC: Message (Schema, RecordBatch) and Footer.
//
// Built and read with the flatbuffers runtime (Debian's libflatbuffers-dev)
// without generated code: the tables below are described by their vtable slot
// numbers, taken from Arrow's Schema.fbs, Message.fbs and File.fbs. A slot n
// lives at vtable byte 4 + 2n; a union takes two slots, its type byte first.
// Every buffer is run through flatbuffers::Verifier before a field is read.
#ifndef CHUNKWISE_SRC_FORMATS_ARROW_IPC_METADATA_H_
#define CHUNKWISE_SRC_FORMATS_ARROW_IPC_METADATA_H_

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "chunkwise/core/bytes.h"
#include "chunkwise/core/result.h"
#include "formats/arrow/ipc_format.h"
#include "formats/arrow/schema.h"

namespace chunkwise::formats::arrow::internal {

// The voffset of slot n.
constexpr std::uint16_t Slot(int n) { return static_cast<std::uint16_t>(4 + 2 * n); }

// Slots, in Arrow's declaration order.
namespace footer_slot {
inline constexpr int kVersion = 0, kSchema = 1, kDictionaries = 2, kRecordBatches = 3,
                     kCustomMetadata = 4;
}
namespace message_slot {
inline constexpr int kVersion = 0, kHeaderType = 1, kHeader = 2, kBodyLength = 3,
                     kCustomMetadata = 4;
}
namespace schema_slot {
inline constexpr int kEndianness = 0, kFields = 1, kCustomMetadata = 2, kFeatures = 3;
}
namespace field_slot {
inline constexpr int kName = 0, kNullable = 1, kTypeType = 2, kType = 3, kDictionary = 4,
                     kChildren = 5, kCustomMetadata = 6;
}
namespace key_value_slot {
inline constexpr int kKey = 0, kValue = 1;
}
namespace int_slot {
inline constexpr int kBitWidth = 0, kIsSigned = 1;
}
namespace record_batch_slot {
inline constexpr int kLength = 0, kNodes = 1, kBuffers = 2, kCompression = 3,
                     kVariadicBufferCounts = 4;
}
namespace body_compression_slot {
inline constexpr int kCodec = 0, kMethod = 1;
}

// MessageHeader union members.
enum class MessageType : std::uint8_t {
  kNone = 0,
  kSchema = 1,
  kDictionaryBatch = 2,
  kRecordBatch = 3,
  kTensor = 4,
  kSparseTensor = 5
};
// Type union members that chunkwise handles.
inline constexpr std::uint8_t kTypeInt = 2, kTypeBinary = 4, kTypeUtf8 = 5, kTypeList = 12;

// FieldNode and Buffer structs of a RecordBatch (16 bytes each).
struct FieldNode {
  std::int64_t length = 0;
  std::int64_t null_count = 0;
};
struct BufferSpec {
  std::int64_t offset = 0;  // From the start of the body.
  std::int64_t length = 0;
};
struct RecordBatchHeader {
  std::int64_t length = 0;
  std::vector<FieldNode> nodes;  // Depth-first, pre-order over the schema's fields.
  std::vector<BufferSpec> buffers;
};

struct DecodedMessage {
  MessageType type = MessageType::kNone;
  std::int16_t version = 0;
  std::int64_t body_length = 0;
  std::optional<Schema> schema;            // For kSchema.
  std::optional<RecordBatchHeader> batch;  // For kRecordBatch.
};

struct DecodedFooter {
  Schema schema;
  std::vector<MessageBlock> record_batches;
  std::size_t dictionary_count = 0;
};

// The Message flatbuffer of a schema (bodyLength 0), unpadded.
Bytes EncodeSchemaMessage(const Schema& schema);
// The Message flatbuffer of a record batch, unpadded.
Bytes EncodeRecordBatchMessage(const RecordBatchHeader& header, std::int64_t body_length);
// The Footer flatbuffer of a file.
Bytes EncodeFooter(const Schema& schema, std::span<const MessageBlock> record_batches);

// Verifies and decodes a Message flatbuffer. Corruption (naming `context`) if
// the verifier refuses it or a field is out of range; Unsupported for a
// schema with types chunkwise does not read, dictionary encoding, big-endian
// data, compressed bodies, or metadata versions before V4. Message types
// other than Schema and RecordBatch are returned with only their type set.
Result<DecodedMessage> DecodeMessage(ByteView flatbuffer, std::string_view context);
// Verifies and decodes a Footer flatbuffer, with the same errors.
Result<DecodedFooter> DecodeFooter(ByteView flatbuffer, std::string_view context);

}  // namespace chunkwise::formats::arrow::internal

#endif  // CHUNKWISE_SRC_FORMATS_ARROW_IPC_METADATA_H_
