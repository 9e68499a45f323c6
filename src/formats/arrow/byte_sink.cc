#include "formats/arrow/byte_sink.h"

#include <utility>

#include "formats/arrow/byte_copy.h"

namespace chunkwise::formats::arrow {
namespace {

// Small appends (message prefixes, padding, one-row buffers) are gathered so
// that a shard of thousands of tiny batches costs few writes to the store;
// large buffers bypass the gathering and go to the store straight from the
// caller. 256 KiB, not more: export-shards keeps dozens of shards open until
// its scan ends, and what they still gather is written then, by one thread
// while the other cores wait (at 1 MiB that tail was up to 8 ms of a 130 ms
// export).
constexpr std::size_t kGatherBytes = 1 << 18;

class StoreSink final : public ByteSink {
 public:
  StoreSink(std::shared_ptr<store::Store> store, std::unique_ptr<store::ValueWriter> writer,
            std::string name)
      : store_(std::move(store)), writer_(std::move(writer)), name_(std::move(name)) {
    pending_.reserve(kGatherBytes);
  }

  Status Append(ByteView bytes) override {
    position_ += bytes.size();
    if (pending_.size() + bytes.size() <= kGatherBytes) {
      internal::AppendBytes(pending_, bytes);
      return Status::Ok();
    }
    CHUNKWISE_RETURN_IF_ERROR(Flush());
    if (bytes.size() >= kGatherBytes / 2) return writer_->Append(bytes);
    internal::AppendBytes(pending_, bytes);
    return Status::Ok();
  }
  std::uint64_t position() const override { return position_; }
  Status Commit() override {
    CHUNKWISE_RETURN_IF_ERROR(Flush());
    return writer_->Commit();
  }
  const std::string& name() const override { return name_; }

 private:
  Status Flush() {
    if (pending_.empty()) return Status::Ok();
    Status status = writer_->Append(pending_);
    pending_.clear();
    return status;
  }

  std::shared_ptr<store::Store> store_;  // Outlives the writer it made.
  std::unique_ptr<store::ValueWriter> writer_;
  std::string name_;
  Bytes pending_;
  std::uint64_t position_ = 0;
};

}  // namespace

Status MemorySink::Append(ByteView bytes) {
  internal::AppendBytes(bytes_, bytes);
  return Status::Ok();
}

Result<std::unique_ptr<ByteSink>> CreateStoreSink(std::shared_ptr<store::Store> store,
                                                  std::string key, StoreSinkOptions options) {
  std::string name = store->Describe(key);
  if (!options.overwrite) {
    CHUNKWISE_ASSIGN_OR_RETURN(const bool exists, store->Exists(key));
    if (exists) return Status::InvalidArgument(name + " already exists; not replacing it");
  }
  CHUNKWISE_ASSIGN_OR_RETURN(std::unique_ptr<store::ValueWriter> writer, store->OpenWriter(key));
  return std::unique_ptr<ByteSink>(
      std::make_unique<StoreSink>(std::move(store), std::move(writer), std::move(name)));
}

}  // namespace chunkwise::formats::arrow
