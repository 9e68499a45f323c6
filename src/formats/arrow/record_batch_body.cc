#include "formats/arrow/record_batch_body.h"

#include <string>
#include <utility>

namespace chunkwise::formats::arrow::internal {
namespace {

// Hands out nodes and buffers in the pre-order in which the schema needs them.
class BodyCursor {
 public:
  BodyCursor(const RecordBatchHeader& header, ByteView body, std::string_view context)
      : header_(header), body_(body), context_(context) {}

  Result<ArrayData> ReadArray(const Field& field) {
    if (next_node_ >= header_.nodes.size()) {
      return Fault("has fewer field nodes (" + std::to_string(header_.nodes.size()) +
                   ") than the schema needs");
    }
    const FieldNode& node = header_.nodes[next_node_++];
    ArrayData array;
    array.length = node.length;
    array.null_count = node.null_count;
    CHUNKWISE_ASSIGN_OR_RETURN(const ByteView validity, NextBuffer());
    if (array.null_count != 0) array.validity = validity;
    if (IsInteger(field.type)) {
      CHUNKWISE_ASSIGN_OR_RETURN(array.values, NextBuffer());
      return array;
    }
    CHUNKWISE_ASSIGN_OR_RETURN(array.offsets, NextBuffer());
    if (field.type == TypeId::kList) {
      CHUNKWISE_ASSIGN_OR_RETURN(ArrayData child, ReadArray(field.children[0]));
      array.children.push_back(std::move(child));
      return array;
    }
    CHUNKWISE_ASSIGN_OR_RETURN(array.values, NextBuffer());
    return array;
  }

  Status CheckAllUsed() const {
    if (next_node_ == header_.nodes.size() && next_buffer_ == header_.buffers.size()) {
      return Status::Ok();
    }
    return Fault("lists " + std::to_string(header_.nodes.size()) + " field nodes and " +
                 std::to_string(header_.buffers.size()) + " buffers, the schema needs " +
                 std::to_string(next_node_) + " and " + std::to_string(next_buffer_));
  }

 private:
  Status Fault(const std::string& what) const {
    return Status::Corruption(std::string(context_) + ": record batch " + what);
  }

  Result<ByteView> NextBuffer() {
    if (next_buffer_ >= header_.buffers.size()) {
      return Fault("has fewer buffers (" + std::to_string(header_.buffers.size()) +
                   ") than the schema needs");
    }
    const std::size_t index = next_buffer_++;
    const BufferSpec& buffer = header_.buffers[index];
    const auto size = static_cast<std::int64_t>(body_.size());
    if (buffer.offset < 0 || buffer.length < 0 || buffer.offset > size ||
        buffer.length > size - buffer.offset) {
      return Fault("buffer " + std::to_string(index) + " (offset " + std::to_string(buffer.offset) +
                   ", length " + std::to_string(buffer.length) + ") lies outside the " +
                   std::to_string(size) + "-byte body");
    }
    return body_.subspan(static_cast<std::size_t>(buffer.offset),
                         static_cast<std::size_t>(buffer.length));
  }

  const RecordBatchHeader& header_;
  ByteView body_;
  std::string_view context_;
  std::size_t next_node_ = 0;
  std::size_t next_buffer_ = 0;
};

}  // namespace

Result<RecordBatch> DecodeRecordBatchBody(const Schema& schema, const RecordBatchHeader& header,
                                          ByteView body, std::shared_ptr<const void> owner,
                                          std::string_view context) {
  BodyCursor cursor(header, body, context);
  RecordBatch batch;
  batch.num_rows = header.length;
  for (const Field& field : schema.fields) {
    CHUNKWISE_ASSIGN_OR_RETURN(ArrayData array, cursor.ReadArray(field));
    batch.columns.push_back(std::move(array));
  }
  CHUNKWISE_RETURN_IF_ERROR(cursor.CheckAllUsed());
  CHUNKWISE_RETURN_IF_ERROR(ValidateRecordBatch(schema, batch, context));
  batch.owner = std::move(owner);
  return batch;
}

}  // namespace chunkwise::formats::arrow::internal
