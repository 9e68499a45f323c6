#include "chunkwise/formats/arrow/byte_source.h"

#include <utility>

#include "core/posix_file.h"
#include "formats/arrow/byte_copy.h"

namespace chunkwise::formats::arrow {
namespace {

class FileSource final : public ByteSource {
 public:
  FileSource(core::posix::OpenedFile file, std::filesystem::path path)
      : file_(std::move(file)), path_(std::move(path)), name_(path_.string()) {}

  std::uint64_t size() const override { return file_.size; }
  Result<Bytes> Read(std::uint64_t offset, std::uint64_t length) const override {
    CHUNKWISE_RETURN_IF_ERROR(CheckRange(*this, offset, length, "read"));
    Bytes out(static_cast<std::size_t>(length));
    CHUNKWISE_RETURN_IF_ERROR(core::posix::ReadAt(file_.fd.get(), offset, out, path_));
    return out;
  }
  const std::string& name() const override { return name_; }

 private:
  core::posix::OpenedFile file_;
  std::filesystem::path path_;
  std::string name_;
};

class StoreSource final : public ByteSource {
 public:
  StoreSource(std::shared_ptr<const store::Store> store, std::string key, std::uint64_t size)
      : store_(std::move(store)),
        key_(std::move(key)),
        size_(size),
        name_(store_->Describe(key_)) {}

  std::uint64_t size() const override { return size_; }
  Result<Bytes> Read(std::uint64_t offset, std::uint64_t length) const override {
    CHUNKWISE_RETURN_IF_ERROR(CheckRange(*this, offset, length, "read"));
    CHUNKWISE_ASSIGN_OR_RETURN(std::optional<Bytes> bytes,
                               store_->GetRange(key_, store::ByteRange::Span(offset, length)));
    if (!bytes.has_value()) return Status::NotFound(name_ + " disappeared while being read");
    if (bytes->size() != length) {
      return Status::IOError(name_ + ": short read of " + std::to_string(bytes->size()) +
                             " bytes, expected " + std::to_string(length));
    }
    return std::move(*bytes);
  }
  const std::string& name() const override { return name_; }

 private:
  std::shared_ptr<const store::Store> store_;
  std::string key_;
  std::uint64_t size_;
  std::string name_;
};

class InMemorySource final : public ByteSource {
 public:
  InMemorySource(Bytes bytes, std::string name)
      : bytes_(std::make_shared<const Bytes>(std::move(bytes))), name_(std::move(name)) {}

  std::uint64_t size() const override { return bytes_->size(); }
  Result<Bytes> Read(std::uint64_t offset, std::uint64_t length) const override {
    CHUNKWISE_ASSIGN_OR_RETURN(const SharedBytes shared, ReadShared(offset, length));
    return internal::CopyBytes(shared.view);
  }
  Result<SharedBytes> ReadShared(std::uint64_t offset, std::uint64_t length) const override {
    CHUNKWISE_RETURN_IF_ERROR(CheckRange(*this, offset, length, "read"));
    return SharedBytes{bytes_, ByteView(*bytes_).subspan(static_cast<std::size_t>(offset),
                                                         static_cast<std::size_t>(length))};
  }
  const std::string& name() const override { return name_; }

 private:
  std::shared_ptr<const Bytes> bytes_;
  std::string name_;
};

}  // namespace

Result<ByteSource::SharedBytes> ByteSource::ReadShared(std::uint64_t offset,
                                                       std::uint64_t length) const {
  auto bytes = std::make_shared<Bytes>();
  CHUNKWISE_ASSIGN_OR_RETURN(*bytes, Read(offset, length));
  const ByteView view(*bytes);
  return SharedBytes{std::move(bytes), view};
}

Status CheckRange(const ByteSource& source, std::uint64_t offset, std::uint64_t length,
                  std::string_view what) {
  const std::uint64_t size = source.size();
  if (offset <= size && length <= size - offset) return Status::Ok();
  return Status::Corruption(source.name() + ": " + std::string(what) + " (bytes [" +
                            std::to_string(offset) + ", " + std::to_string(offset) + " + " +
                            std::to_string(length) + ")) runs past the end of the " +
                            std::to_string(size) + "-byte data; truncated?");
}

Result<std::shared_ptr<ByteSource>> OpenFileSource(const std::filesystem::path& path) {
  CHUNKWISE_ASSIGN_OR_RETURN(core::posix::OpenedFile file, core::posix::OpenRegularFile(path));
  return std::shared_ptr<ByteSource>(std::make_shared<FileSource>(std::move(file), path));
}

Result<std::shared_ptr<ByteSource>> OpenStoreSource(std::shared_ptr<const store::Store> store,
                                                    std::string key) {
  CHUNKWISE_ASSIGN_OR_RETURN(std::optional<std::uint64_t> size, store->Size(key));
  if (!size.has_value()) return Status::NotFound(store->Describe(key) + " does not exist");
  return std::shared_ptr<ByteSource>(
      std::make_shared<StoreSource>(std::move(store), std::move(key), *size));
}

std::shared_ptr<ByteSource> MemorySource(Bytes bytes, std::string name) {
  return std::make_shared<InMemorySource>(std::move(bytes), std::move(name));
}

}  // namespace chunkwise::formats::arrow
