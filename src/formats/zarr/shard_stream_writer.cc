#include "formats/zarr/shard_stream_writer.h"

#include <utility>

namespace chunkwise::formats::zarr {

ShardStreamWriter::ShardStreamWriter(std::unique_ptr<store::ValueWriter> writer, std::string where,
                                     IndexLocation location, std::size_t index_bytes)
    : writer_(std::move(writer)),
      where_(std::move(where)),
      location_(location),
      index_bytes_(index_bytes) {}

Result<std::unique_ptr<ShardStreamWriter>> ShardStreamWriter::Open(store::Store& store,
                                                                   const std::string& key,
                                                                   IndexLocation location,
                                                                   std::size_t index_bytes) {
  CHUNKWISE_ASSIGN_OR_RETURN(std::unique_ptr<store::ValueWriter> writer, store.OpenWriter(key));
  if (location == IndexLocation::kStart) {
    // Room for the index, written over once the offsets are known.
    CHUNKWISE_RETURN_IF_ERROR(writer->Append(Bytes(index_bytes, 0)));
  }
  return std::unique_ptr<ShardStreamWriter>(
      new ShardStreamWriter(std::move(writer), store.Describe(key), location, index_bytes));
}

Status ShardStreamWriter::Append(ByteView data) { return writer_->Append(data); }

Status ShardStreamWriter::Finish(ByteView index) {
  if (index.size() != index_bytes_) {
    return Status::Internal(where_ + ": a shard index of " + std::to_string(index.size()) +
                            " bytes where " + std::to_string(index_bytes_) + " were planned");
  }
  if (location_ == IndexLocation::kStart) {
    CHUNKWISE_RETURN_IF_ERROR(writer_->Overwrite(0, index));
  } else {
    CHUNKWISE_RETURN_IF_ERROR(writer_->Append(index));
  }
  return writer_->Commit();
}

}  // namespace chunkwise::formats::zarr
