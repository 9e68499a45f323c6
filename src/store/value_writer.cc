#include "chunkwise/store/value_writer.h"

#include <cstring>

#include "chunkwise/store/store.h"
#include "store/key.h"

namespace chunkwise::store {

Status CheckOverwriteRange(std::uint64_t offset, std::uint64_t length, std::uint64_t size,
                           std::string_view key) {
  if (offset > size || length > size - offset) {
    return Status::InvalidArgument("overwrite of [" + std::to_string(offset) + ", +" +
                                   std::to_string(length) + ") lies past the " +
                                   std::to_string(size) + " bytes written to " + QuoteKey(key));
  }
  return Status::Ok();
}

Status BufferedValueWriter::Append(ByteView data) {
  if (committed_) return Status::InvalidArgument("append to committed " + QuoteKey(key_));
  AppendBytes(value_, data);
  return Status::Ok();
}

Status BufferedValueWriter::Overwrite(std::uint64_t offset, ByteView data) {
  CHUNKWISE_RETURN_IF_ERROR(CheckOverwriteRange(offset, data.size(), value_.size(), key_));
  if (!data.empty()) std::memcpy(value_.data() + offset, data.data(), data.size());
  return Status::Ok();
}

Status BufferedValueWriter::Commit() {
  if (committed_) return Status::InvalidArgument(QuoteKey(key_) + " is already committed");
  committed_ = true;
  return store_.Set(key_, value_);
}

}  // namespace chunkwise::store
