#include "formats/arrow/ipc_reader.h"

#include <cstring>
#include <string>
#include <utility>

#include "formats/arrow/ipc_metadata.h"
#include "formats/arrow/record_batch_body.h"

namespace chunkwise::formats::arrow {
namespace {

using internal::DecodedMessage;
using internal::MessageType;

// The framing word(s) before a Message flatbuffer.
struct Prefix {
  std::uint64_t bytes = 0;          // 8 with the continuation word, 4 for pre-0.15 streams.
  std::uint64_t metadata_size = 0;  // The flatbuffer and its padding.
  bool end_of_stream = false;
};

// Parses the prefix at the start of `head` (4 to 8 bytes available).
Result<Prefix> ParsePrefix(ByteView head, std::uint64_t offset, const std::string& name) {
  const std::string where = name + ": message at byte " + std::to_string(offset);
  if (head.size() < 4) return Status::Corruption(where + " is cut short (truncated?)");
  Prefix prefix;
  std::uint32_t word = LoadLittleEndian<std::uint32_t>(head.data());
  prefix.bytes = 4;
  if (word == kContinuation) {
    if (head.size() < 8) return Status::Corruption(where + " is cut short (truncated?)");
    word = LoadLittleEndian<std::uint32_t>(head.data() + 4);
    prefix.bytes = 8;
  }
  const auto size = static_cast<std::int32_t>(word);
  if (size < 0 || static_cast<std::uint64_t>(size) > kMaxMetadataBytes) {
    return Status::Corruption(where + " has metadata size " + std::to_string(size) +
                              " (bad framing; not an Arrow IPC stream?)");
  }
  prefix.metadata_size = static_cast<std::uint64_t>(size);
  prefix.end_of_stream = size == 0;
  return prefix;
}

std::string MessageContext(const std::string& name, std::uint64_t offset) {
  return name + ": message at byte " + std::to_string(offset);
}

// A message read from a stream position: its decoded metadata and framing sizes.
struct MessageHead {
  DecodedMessage message;
  std::uint64_t metadata_length = 0;  // Prefix + flatbuffer + padding.
  bool end = false;                   // End-of-stream marker or end of data.
};

Result<MessageHead> ReadMessageHead(const ByteSource& source, std::uint64_t offset) {
  MessageHead head;
  const std::uint64_t remaining = source.size() - offset;
  if (remaining == 0) {
    head.end = true;  // A stream may end without the marker.
    return head;
  }
  CHUNKWISE_ASSIGN_OR_RETURN(const Bytes first,
                             source.Read(offset, std::min<std::uint64_t>(8, remaining)));
  CHUNKWISE_ASSIGN_OR_RETURN(const Prefix prefix, ParsePrefix(first, offset, source.name()));
  if (prefix.end_of_stream) {
    head.end = true;
    return head;
  }
  const std::string context = MessageContext(source.name(), offset);
  CHUNKWISE_RETURN_IF_ERROR(
      CheckRange(source, offset + prefix.bytes, prefix.metadata_size,
                 "metadata of the message at byte " + std::to_string(offset)));
  CHUNKWISE_ASSIGN_OR_RETURN(const Bytes metadata,
                             source.Read(offset + prefix.bytes, prefix.metadata_size));
  CHUNKWISE_ASSIGN_OR_RETURN(head.message, internal::DecodeMessage(metadata, context));
  head.metadata_length = prefix.bytes + prefix.metadata_size;
  CHUNKWISE_RETURN_IF_ERROR(CheckRange(source, offset + head.metadata_length,
                                       static_cast<std::uint64_t>(head.message.body_length),
                                       "body of the message at byte " + std::to_string(offset)));
  return head;
}

Status ExpectRecordBatch(const DecodedMessage& message, const std::string& context) {
  if (message.type == MessageType::kRecordBatch) return Status::Ok();
  if (message.type == MessageType::kDictionaryBatch) {
    return Status::Unsupported(context + " is a dictionary batch, which chunkwise does not read");
  }
  return Status::Corruption(context + " is not a record batch (message type " +
                            std::to_string(static_cast<int>(message.type)) + ")");
}

// Every block must lie between the file magic and the footer.
Status CheckFooterBlocks(const std::vector<MessageBlock>& blocks, std::uint64_t footer_start,
                         const std::string& name) {
  for (std::size_t i = 0; i < blocks.size(); ++i) {
    const MessageBlock& block = blocks[i];
    // body_length is checked alone first so that block.size() cannot wrap.
    if (block.offset < kFileHeaderBytes || block.metadata_length < 8 ||
        block.offset > footer_start || block.body_length > footer_start ||
        block.size() > footer_start - block.offset) {
      return Status::Corruption(name + ": footer block " + std::to_string(i) + " (offset " +
                                std::to_string(block.offset) + ", metadata " +
                                std::to_string(block.metadata_length) + ", body " +
                                std::to_string(block.body_length) +
                                ") lies outside the data before the footer");
    }
  }
  return Status::Ok();
}

}  // namespace

Result<bool> IsArrowFile(const ByteSource& source) {
  if (source.size() < kFileMagic.size()) return false;
  CHUNKWISE_ASSIGN_OR_RETURN(const Bytes head, source.Read(0, kFileMagic.size()));
  return AsChars(head) == kFileMagic;
}

Result<RecordBatch> ReadRecordBatchAt(const ByteSource& source, const Schema& schema,
                                      const MessageBlock& block) {
  CHUNKWISE_ASSIGN_OR_RETURN(LocatedRecordBatch located,
                             ReadLocatedRecordBatchAt(source, schema, block));
  return std::move(located.batch);
}

Result<LocatedRecordBatch> ReadLocatedRecordBatchAt(const ByteSource& source, const Schema& schema,
                                                    const MessageBlock& block) {
  const std::string context = MessageContext(source.name(), block.offset);
  if (block.metadata_length > 0 && block.metadata_length < 8) {
    return Status::Corruption(context + ": block metadata length " +
                              std::to_string(block.metadata_length) + " is below 8");
  }
  if (block.body_length > source.size()) {  // Also keeps block.size() from wrapping.
    return Status::Corruption(context + ": body length " + std::to_string(block.body_length) +
                              " exceeds the " + std::to_string(source.size()) + "-byte data");
  }
  CHUNKWISE_RETURN_IF_ERROR(CheckRange(source, block.offset, block.size(), "record batch message"));
  CHUNKWISE_ASSIGN_OR_RETURN(const ByteSource::SharedBytes bytes,
                             source.ReadShared(block.offset, block.size()));
  const ByteView all = bytes.view;
  CHUNKWISE_ASSIGN_OR_RETURN(
      const Prefix prefix,
      ParsePrefix(all.first(std::min<std::size_t>(8, all.size())), block.offset, source.name()));
  const std::uint64_t metadata_end = prefix.bytes + prefix.metadata_size;
  const std::uint64_t body_start = block.metadata_length > 0 ? block.metadata_length : metadata_end;
  if (prefix.end_of_stream || metadata_end > body_start || body_start > all.size()) {
    return Status::Corruption(context + ": message metadata (" + std::to_string(metadata_end) +
                              " bytes) does not fit its block of " + std::to_string(all.size()));
  }
  CHUNKWISE_ASSIGN_OR_RETURN(
      const DecodedMessage message,
      internal::DecodeMessage(all.subspan(prefix.bytes, prefix.metadata_size), context));
  CHUNKWISE_RETURN_IF_ERROR(ExpectRecordBatch(message, context));
  const auto body_length = static_cast<std::uint64_t>(message.body_length);
  if (body_length > all.size() - body_start) {
    return Status::Corruption(context + ": body of " + std::to_string(body_length) +
                              " bytes runs past its block (" +
                              std::to_string(all.size() - body_start) + " bytes)");
  }
  const ByteView body = all.subspan(body_start, body_length);
  CHUNKWISE_ASSIGN_OR_RETURN(
      RecordBatch batch,
      internal::DecodeRecordBatchBody(schema, *message.batch, body, bytes.owner, context));
  return LocatedRecordBatch{std::move(batch), block.offset + body_start, body};
}

Result<std::int64_t> ReadRecordBatchLength(const ByteSource& source, const MessageBlock& block) {
  const std::string context = MessageContext(source.name(), block.offset);
  CHUNKWISE_RETURN_IF_ERROR(
      CheckRange(source, block.offset, block.metadata_length, "message metadata"));
  CHUNKWISE_ASSIGN_OR_RETURN(const Bytes bytes, source.Read(block.offset, block.metadata_length));
  const ByteView all(bytes);
  CHUNKWISE_ASSIGN_OR_RETURN(
      const Prefix prefix,
      ParsePrefix(all.first(std::min<std::size_t>(8, all.size())), block.offset, source.name()));
  if (prefix.end_of_stream || prefix.bytes + prefix.metadata_size > all.size()) {
    return Status::Corruption(context + ": message metadata does not fit its block");
  }
  CHUNKWISE_ASSIGN_OR_RETURN(
      const DecodedMessage message,
      internal::DecodeMessage(all.subspan(prefix.bytes, prefix.metadata_size), context));
  CHUNKWISE_RETURN_IF_ERROR(ExpectRecordBatch(message, context));
  return message.batch->length;
}

Result<IpcFileReader> IpcFileReader::Open(std::shared_ptr<ByteSource> source) {
  const std::string& name = source->name();
  const std::uint64_t size = source->size();
  if (size < kFileHeaderBytes + kFileTrailerBytes) {
    return Status::Corruption(name + ": " + std::to_string(size) +
                              " bytes is too small for an Arrow IPC file (truncated?)");
  }
  CHUNKWISE_ASSIGN_OR_RETURN(const Bytes head, source->Read(0, kFileHeaderBytes));
  if (AsChars(ByteView(head).first(kFileMagic.size())) != kFileMagic) {
    return Status::Corruption(name + ": does not start with the Arrow file magic \"ARROW1\"");
  }
  CHUNKWISE_ASSIGN_OR_RETURN(const Bytes tail,
                             source->Read(size - kFileTrailerBytes, kFileTrailerBytes));
  if (AsChars(ByteView(tail).subspan(4)) != kFileMagic) {
    return Status::Corruption(name +
                              ": does not end with the Arrow file magic \"ARROW1\" "
                              "(truncated, or an IPC stream?)");
  }
  const auto footer_length =
      static_cast<std::int32_t>(LoadLittleEndian<std::uint32_t>(tail.data()));
  const std::uint64_t footer_room = size - kFileHeaderBytes - kFileTrailerBytes;
  if (footer_length <= 0 || static_cast<std::uint64_t>(footer_length) > footer_room) {
    return Status::Corruption(name + ": footer length " + std::to_string(footer_length) +
                              " does not fit the " + std::to_string(size) + "-byte file");
  }
  const std::uint64_t footer_start =
      size - kFileTrailerBytes - static_cast<std::uint64_t>(footer_length);
  CHUNKWISE_ASSIGN_OR_RETURN(const Bytes footer_bytes,
                             source->Read(footer_start, static_cast<std::uint64_t>(footer_length)));
  CHUNKWISE_ASSIGN_OR_RETURN(internal::DecodedFooter footer,
                             internal::DecodeFooter(footer_bytes, name + ": footer"));
  CHUNKWISE_RETURN_IF_ERROR(CheckFooterBlocks(footer.record_batches, footer_start, name));
  IpcFileReader reader;
  reader.source_ = std::move(source);
  reader.schema_ = std::move(footer.schema);
  reader.blocks_ = std::move(footer.record_batches);
  return reader;
}

Result<RecordBatch> IpcFileReader::ReadRecordBatch(std::size_t i) const {
  if (i >= blocks_.size()) {
    return Status::OutOfRange(source_->name() + ": record batch " + std::to_string(i) +
                              " requested, the file has " + std::to_string(blocks_.size()));
  }
  return ReadRecordBatchAt(*source_, schema_, blocks_[i]);
}

Result<IpcStreamReader> IpcStreamReader::Open(std::shared_ptr<ByteSource> source) {
  CHUNKWISE_ASSIGN_OR_RETURN(const MessageHead head, ReadMessageHead(*source, 0));
  if (head.end || head.message.type != MessageType::kSchema) {
    return Status::Corruption(source->name() +
                              ": an Arrow IPC stream must begin with a schema message");
  }
  IpcStreamReader reader;
  reader.schema_ = *head.message.schema;
  reader.schema_end_ = head.metadata_length + static_cast<std::uint64_t>(head.message.body_length);
  reader.position_ = reader.schema_end_;
  reader.source_ = std::move(source);
  return reader;
}

Result<std::optional<RecordBatch>> IpcStreamReader::Next() {
  if (ended_) return std::optional<RecordBatch>();
  CHUNKWISE_ASSIGN_OR_RETURN(const MessageHead head, ReadMessageHead(*source_, position_));
  if (head.end) {
    ended_ = true;
    return std::optional<RecordBatch>();
  }
  const MessageBlock block{position_, static_cast<std::uint32_t>(head.metadata_length),
                           static_cast<std::uint64_t>(head.message.body_length)};
  CHUNKWISE_RETURN_IF_ERROR(
      ExpectRecordBatch(head.message, MessageContext(source_->name(), position_)));
  CHUNKWISE_ASSIGN_OR_RETURN(RecordBatch batch, ReadRecordBatchAt(*source_, schema_, block));
  position_ = block.end();
  return std::optional<RecordBatch>(std::move(batch));
}

Result<std::vector<MessageBlock>> IpcStreamReader::ScanRecordBatchBlocks() {
  std::vector<MessageBlock> blocks;
  while (!ended_) {
    CHUNKWISE_ASSIGN_OR_RETURN(const MessageHead head, ReadMessageHead(*source_, position_));
    if (head.end) break;
    CHUNKWISE_RETURN_IF_ERROR(
        ExpectRecordBatch(head.message, MessageContext(source_->name(), position_)));
    blocks.push_back({position_, static_cast<std::uint32_t>(head.metadata_length),
                      static_cast<std::uint64_t>(head.message.body_length)});
    position_ = blocks.back().end();
  }
  ended_ = true;
  return blocks;
}

}  // namespace chunkwise::formats::arrow
