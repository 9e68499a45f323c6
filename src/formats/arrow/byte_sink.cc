#include "chunkwise/formats/arrow/byte_sink.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

#include "chunkwise/core/file_io.h"
#include "core/posix_file.h"
#include "formats/arrow/byte_copy.h"

namespace chunkwise::formats::arrow {
namespace {

namespace posix = core::posix;

// Small appends (message prefixes, padding, one-row buffers) are gathered so
// that a shard of thousands of tiny batches costs few system calls; large
// buffers bypass the gathering and are written straight from the caller.
// 256 KiB, not more: export-shards keeps dozens of shards open until its scan
// ends, and what they still gather is written then, by one thread while the
// other cores wait (at 1 MiB that tail was up to 8 ms of a 130 ms export).
constexpr std::size_t kGatherBytes = 1 << 18;

class FileSink final : public ByteSink {
 public:
  FileSink(posix::Fd fd, std::filesystem::path temporary, std::filesystem::path path,
           FileSinkOptions options)
      : fd_(std::move(fd)),
        temporary_(std::move(temporary)),
        path_(std::move(path)),
        name_(path_.string()),
        options_(options) {
    pending_.reserve(kGatherBytes);
  }
  ~FileSink() override {
    if (!committed_) {
      fd_.Reset();
      ::unlink(temporary_.c_str());
    }
  }

  Status Append(ByteView bytes) override {
    position_ += bytes.size();
    if (pending_.size() + bytes.size() <= kGatherBytes) {
      internal::AppendBytes(pending_, bytes);
      return Status::Ok();
    }
    CHUNKWISE_RETURN_IF_ERROR(Flush());
    if (bytes.size() >= kGatherBytes / 2) return posix::WriteAll(fd_.get(), bytes, temporary_);
    internal::AppendBytes(pending_, bytes);
    return Status::Ok();
  }
  std::uint64_t position() const override { return position_; }
  Status Commit() override {
    CHUNKWISE_RETURN_IF_ERROR(Flush());
    if (options_.fsync && ::fsync(fd_.get()) != 0) {
      return posix::ErrnoStatus("fsync", temporary_, errno);
    }
    if (::close(fd_.Release()) != 0) return posix::ErrnoStatus("close", temporary_, errno);
    if (::rename(temporary_.c_str(), path_.c_str()) != 0) {
      return posix::ErrnoStatus("rename into place", path_, errno);
    }
    committed_ = true;
    if (!options_.fsync) return Status::Ok();
    return posix::SyncDirectory(path_.parent_path().empty() ? "." : path_.parent_path());
  }
  const std::string& name() const override { return name_; }

 private:
  Status Flush() {
    if (pending_.empty()) return Status::Ok();
    Status status = posix::WriteAll(fd_.get(), pending_, temporary_);
    pending_.clear();
    return status;
  }

  posix::Fd fd_;
  std::filesystem::path temporary_;
  std::filesystem::path path_;
  std::string name_;
  FileSinkOptions options_;
  Bytes pending_;
  std::uint64_t position_ = 0;
  bool committed_ = false;
};

class StoreSink final : public ByteSink {
 public:
  StoreSink(std::shared_ptr<store::Store> store, std::string key)
      : store_(std::move(store)), key_(std::move(key)), name_(store_->Describe(key_)) {}

  Status Append(ByteView bytes) override {
    internal::AppendBytes(bytes_, bytes);
    return Status::Ok();
  }
  std::uint64_t position() const override { return bytes_.size(); }
  Status Commit() override { return store_->Set(key_, bytes_); }
  const std::string& name() const override { return name_; }

 private:
  std::shared_ptr<store::Store> store_;
  std::string key_;
  std::string name_;
  Bytes bytes_;
};

}  // namespace

Status MemorySink::Append(ByteView bytes) {
  internal::AppendBytes(bytes_, bytes);
  return Status::Ok();
}

Result<std::unique_ptr<ByteSink>> CreateFileSink(const std::filesystem::path& path,
                                                 FileSinkOptions options) {
  CHUNKWISE_RETURN_IF_ERROR(core::CheckOutputPath(path, options.overwrite));
  std::filesystem::path temporary = core::TemporarySibling(path);
  posix::Fd fd(::open(temporary.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644));
  if (fd.get() < 0) return posix::ErrnoStatus("create", temporary, errno);
  return std::unique_ptr<ByteSink>(
      std::make_unique<FileSink>(std::move(fd), std::move(temporary), path, options));
}

std::unique_ptr<ByteSink> CreateStoreSink(std::shared_ptr<store::Store> store, std::string key) {
  return std::make_unique<StoreSink>(std::move(store), std::move(key));
}

}  // namespace chunkwise::formats::arrow
