#include "store/s3_writer.h"

#include <algorithm>
#include <cstring>

namespace chunkwise::store {
namespace {

// S3 allows at most this many parts in one upload.
constexpr int kMaxParts = 10000;
// Parts double in size after every this many, so that 10,000 parts of an
// 8 MiB start reach past S3's 5 TiB object limit.
constexpr int kPartsPerSize = 1000;

}  // namespace

std::uint64_t S3ValueWriter::PartSize(std::uint64_t part_size, int part_number) {
  return part_size << std::min((part_number - 1) / kPartsPerSize, 9);
}

S3ValueWriter::S3ValueWriter(std::shared_ptr<const S3Client> client, std::string object_key,
                             S3WriteCondition condition)
    : client_(std::move(client)),
      object_key_(std::move(object_key)),
      condition_(std::move(condition)),
      part_size_(client_->options().transfer.part_size) {}

S3ValueWriter::~S3ValueWriter() {
  if (committed_) return;
  (void)WaitForParts();
  AbortUpload();
}

Status S3ValueWriter::CheckOpen() const {
  if (finished_) {
    return Status::InvalidArgument(client_->Url(object_key_) + ": the value is already committed");
  }
  return Status::Ok();
}

Status S3ValueWriter::Append(ByteView data) {
  CHUNKWISE_RETURN_IF_ERROR(CheckOpen());
  while (!data.empty()) {
    Bytes& filling = current_number_ == 1 ? first_ : current_;
    const std::uint64_t room = PartSize(part_size_, current_number_) - filling.size();
    const std::size_t take = static_cast<std::size_t>(std::min<std::uint64_t>(room, data.size()));
    if (filling.capacity() == 0) filling.reserve(static_cast<std::size_t>(part_size_));
    AppendBytes(filling, data.first(take));
    data = data.subspan(take);
    size_ += take;
    if (filling.size() < PartSize(part_size_, current_number_)) continue;
    if (current_number_ > 1)
      CHUNKWISE_RETURN_IF_ERROR(SendPart(current_number_, std::move(current_)));
    current_ = Bytes();
    ++current_number_;
    current_start_ = size_;
    if (current_number_ > kMaxParts) {
      return Status::OutOfRange(client_->Url(object_key_) + ": a value of more than " +
                                std::to_string(size_) + " bytes needs more than " +
                                std::to_string(kMaxParts) + " parts");
    }
  }
  return Status::Ok();
}

Status S3ValueWriter::Overwrite(std::uint64_t offset, ByteView data) {
  CHUNKWISE_RETURN_IF_ERROR(CheckOpen());
  CHUNKWISE_RETURN_IF_ERROR(
      CheckOverwriteRange(offset, data.size(), size_, client_->Url(object_key_)));
  while (!data.empty()) {
    if (offset < first_.size()) {
      const std::size_t n =
          static_cast<std::size_t>(std::min<std::uint64_t>(data.size(), first_.size() - offset));
      std::memcpy(first_.data() + offset, data.data(), n);
      offset += n;
      data = data.subspan(n);
    } else if (current_number_ > 1 && offset >= current_start_) {
      std::memcpy(current_.data() + (offset - current_start_), data.data(), data.size());
      return Status::Ok();
    } else {
      return Status::Unsupported(client_->Url(object_key_) + ": byte " + std::to_string(offset) +
                                 " was already uploaded in a part and cannot be overwritten; only "
                                 "the first part and the bytes since the last part can");
    }
  }
  return Status::Ok();
}

Status S3ValueWriter::SendPart(int number, Bytes data) {
  std::unique_lock lock(mutex_);
  part_done_.wait(lock, [&] {
    return in_flight_ < client_->options().transfer.parts_in_flight || !error_.ok();
  });
  if (!error_.ok()) return error_;
  if (upload_id_.empty()) {
    lock.unlock();
    CHUNKWISE_ASSIGN_OR_RETURN(upload_id_, client_->CreateMultipartUpload(object_key_));
    lock.lock();
  }
  if (etags_.size() < static_cast<std::size_t>(number)) etags_.resize(number);
  ++in_flight_;
  auto part = std::make_shared<Bytes>(std::move(data));
  client_->pool().Submit([this, number, part] {
    const ByteView body[] = {*part};
    Result<std::string> etag = client_->UploadPart(object_key_, upload_id_, number, body);
    std::lock_guard done(mutex_);
    if (etag.ok()) {
      etags_[number - 1] = std::move(*etag);
    } else if (error_.ok()) {
      error_ = etag.status();
    }
    --in_flight_;
    part_done_.notify_all();
  });
  return Status::Ok();
}

Status S3ValueWriter::WaitForParts() {
  std::unique_lock lock(mutex_);
  part_done_.wait(lock, [&] { return in_flight_ == 0; });
  return error_;
}

void S3ValueWriter::AbortUpload() {
  if (upload_id_.empty()) return;
  // Best effort: the caller's own error is the one to report.
  (void)client_->AbortMultipartUpload(object_key_, upload_id_);
  upload_id_.clear();
}

Status S3ValueWriter::Finish() {
  if (upload_id_.empty()) {
    const ByteView body[] = {first_, current_};
    CHUNKWISE_ASSIGN_OR_RETURN(version_, client_->Put(object_key_, body, condition_));
    return Status::Ok();
  }
  if (!current_.empty()) CHUNKWISE_RETURN_IF_ERROR(SendPart(current_number_, std::move(current_)));
  CHUNKWISE_RETURN_IF_ERROR(SendPart(1, std::move(first_)));
  CHUNKWISE_RETURN_IF_ERROR(WaitForParts());
  std::vector<std::string> etags;
  {
    std::lock_guard lock(mutex_);
    etags = etags_;
  }
  for (std::size_t i = 0; i < etags.size(); ++i) {
    if (etags[i].empty()) {
      return Status::Internal(client_->Url(object_key_) + ": part " + std::to_string(i + 1) +
                              " was never uploaded");
    }
  }
  CHUNKWISE_ASSIGN_OR_RETURN(
      version_, client_->CompleteMultipartUpload(object_key_, upload_id_, etags, condition_));
  return Status::Ok();
}

Status S3ValueWriter::Commit() {
  CHUNKWISE_RETURN_IF_ERROR(CheckOpen());
  finished_ = true;
  if (Status status = Finish(); !status.ok()) {
    (void)WaitForParts();
    AbortUpload();
    return status;
  }
  committed_ = true;
  upload_id_.clear();
  return Status::Ok();
}

}  // namespace chunkwise::store
