#include "formats/arrow/ipc_writer.h"

#include <algorithm>
#include <array>
#include <string>
#include <utility>

#include "formats/arrow/ipc_metadata.h"

namespace chunkwise::formats::arrow {
namespace {

using internal::RecordBatchHeader;

std::uint64_t RoundUp(std::uint64_t value, std::uint64_t alignment) {
  return (value + alignment - 1) / alignment * alignment;
}

// The body of one record batch: nodes and buffers in pre-order, and the views to write.
struct BodyPlan {
  RecordBatchHeader header;
  std::vector<ByteView> buffers;
  std::uint64_t body_length = 0;
  std::uint32_t alignment = 8;

  void AddBuffer(ByteView bytes) {
    header.buffers.push_back(
        {static_cast<std::int64_t>(body_length), static_cast<std::int64_t>(bytes.size())});
    buffers.push_back(bytes);
    body_length += RoundUp(bytes.size(), alignment);
  }

  // Only the bytes the array's length covers are written, so a view onto a
  // larger allocation does not leak its tail into the file.
  void AddArray(const Field& field, const ArrayData& array) {
    header.nodes.push_back({array.length, array.null_count});
    const auto length = static_cast<std::size_t>(array.length);
    AddBuffer(array.null_count == 0 ? ByteView() : array.validity.first((length + 7) / 8));
    if (IsInteger(field.type)) {
      AddBuffer(array.values.first(length * static_cast<std::size_t>(ByteWidth(field.type))));
      return;
    }
    const bool has_offsets = !(array.length == 0 && array.offsets.empty());
    AddBuffer(has_offsets ? array.offsets.first((length + 1) * 4) : ByteView());
    if (field.type == TypeId::kList) {
      AddArray(field.children[0], array.children[0]);
      return;
    }
    const std::size_t end =
        has_offsets ? static_cast<std::size_t>(OffsetAt(array, array.length)) : 0;
    AddBuffer(array.values.first(end));
  }
};

}  // namespace

Result<std::unique_ptr<IpcWriter>> IpcWriter::Create(std::unique_ptr<ByteSink> sink, Schema schema,
                                                     IpcWriteOptions options) {
  if (options.alignment < 8 || (options.alignment & (options.alignment - 1)) != 0) {
    return Status::InvalidArgument(sink->name() + ": IPC alignment " +
                                   std::to_string(options.alignment) +
                                   " is not a power of two of at least 8");
  }
  CHUNKWISE_RETURN_IF_ERROR(ValidateSchema(schema).WithContext(sink->name()));
  std::unique_ptr<IpcWriter> writer(new IpcWriter(std::move(sink), std::move(schema), options));
  if (options.format == IpcFormat::kFile) {
    CHUNKWISE_RETURN_IF_ERROR(writer->Append(AsBytes(kFileMagic)));
    CHUNKWISE_RETURN_IF_ERROR(writer->AppendZeros(kFileHeaderBytes - kFileMagic.size()));
  }
  const Bytes message = internal::EncodeSchemaMessage(writer->schema_);
  CHUNKWISE_RETURN_IF_ERROR(writer->AppendMetadata(message));
  writer->schema_end_ = writer->sink_->position();
  return writer;
}

Status IpcWriter::Append(ByteView bytes) {
  if (!failed_.ok()) return failed_;
  failed_ = sink_->Append(bytes);
  return failed_;
}

Status IpcWriter::AppendZeros(std::uint64_t count) {
  static constexpr std::array<std::uint8_t, 64> kZeros{};
  while (count > 0) {
    const std::uint64_t step = std::min<std::uint64_t>(count, kZeros.size());
    CHUNKWISE_RETURN_IF_ERROR(Append(ByteView(kZeros.data(), step)));
    count -= step;
  }
  return Status::Ok();
}

Result<std::uint32_t> IpcWriter::AppendMetadata(ByteView flatbuffer) {
  // Pad so that the body after prefix + metadata starts 8-byte aligned.
  const std::uint64_t padded =
      RoundUp(kMessagePrefixBytes + flatbuffer.size(), 8) - kMessagePrefixBytes;
  if (padded > kMaxMetadataBytes) {
    return Status::InvalidArgument(sink_->name() + ": message metadata of " +
                                   std::to_string(padded) + " bytes is too large");
  }
  std::array<std::uint8_t, kMessagePrefixBytes> prefix;
  StoreLittleEndian(kContinuation, prefix.data());
  StoreLittleEndian(static_cast<std::uint32_t>(padded), prefix.data() + 4);
  CHUNKWISE_RETURN_IF_ERROR(Append(prefix));
  CHUNKWISE_RETURN_IF_ERROR(Append(flatbuffer));
  CHUNKWISE_RETURN_IF_ERROR(AppendZeros(padded - flatbuffer.size()));
  return static_cast<std::uint32_t>(kMessagePrefixBytes + padded);
}

Result<MessageBlock> IpcWriter::WriteRecordBatch(const RecordBatch& batch) {
  CHUNKWISE_CHECK(!finished_);
  if (Status status = ValidateRecordBatch(schema_, batch, sink_->name()); !status.ok()) {
    return Status::InvalidArgument(std::string(status.message()));
  }
  BodyPlan plan;
  plan.alignment = options_.alignment;
  plan.header.length = batch.num_rows;
  for (std::size_t i = 0; i < batch.columns.size(); ++i) {
    plan.AddArray(schema_.fields[i], batch.columns[i]);
  }
  MessageBlock block;
  block.offset = sink_->position();
  const Bytes metadata =
      internal::EncodeRecordBatchMessage(plan.header, static_cast<std::int64_t>(plan.body_length));
  CHUNKWISE_ASSIGN_OR_RETURN(block.metadata_length, AppendMetadata(metadata));
  for (const ByteView buffer : plan.buffers) {
    CHUNKWISE_RETURN_IF_ERROR(Append(buffer));
    CHUNKWISE_RETURN_IF_ERROR(
        AppendZeros(RoundUp(buffer.size(), options_.alignment) - buffer.size()));
  }
  block.body_length = plan.body_length;
  blocks_.push_back(block);
  return block;
}

Status IpcWriter::Finish() {
  CHUNKWISE_CHECK(!finished_);
  finished_ = true;
  std::array<std::uint8_t, kEndOfStreamBytes> end_of_stream{};
  StoreLittleEndian(kContinuation, end_of_stream.data());
  CHUNKWISE_RETURN_IF_ERROR(Append(end_of_stream));
  if (options_.format == IpcFormat::kFile) {
    const Bytes footer = internal::EncodeFooter(schema_, blocks_);
    std::array<std::uint8_t, 4> length;
    StoreLittleEndian(static_cast<std::uint32_t>(footer.size()), length.data());
    CHUNKWISE_RETURN_IF_ERROR(Append(footer));
    CHUNKWISE_RETURN_IF_ERROR(Append(length));
    CHUNKWISE_RETURN_IF_ERROR(Append(AsBytes(kFileMagic)));
  }
  return sink_->Commit();
}

}  // namespace chunkwise::formats::arrow
