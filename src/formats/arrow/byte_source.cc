#include "formats/arrow/byte_source.h"

#include <utility>

#include "formats/arrow/byte_copy.h"

namespace chunkwise::formats::arrow {
namespace {

class StoreSource final : public ByteSource {
 public:
  StoreSource(std::shared_ptr<const store::Store> store, std::unique_ptr<store::ValueReader> reader,
              std::string name)
      : store_(std::move(store)), reader_(std::move(reader)), name_(std::move(name)) {}

  std::uint64_t size() const override { return reader_->size(); }
  Result<Bytes> Read(std::uint64_t offset, std::uint64_t length) const override {
    CHUNKWISE_RETURN_IF_ERROR(CheckRange(*this, offset, length, "read"));
    Bytes out(static_cast<std::size_t>(length));
    const store::ByteRange range = store::ByteRange::Span(offset, length);
    CHUNKWISE_RETURN_IF_ERROR(reader_->ReadInto(std::span(&range, 1), out));
    return out;
  }
  const std::string& name() const override { return name_; }

 private:
  std::shared_ptr<const store::Store> store_;  // Outlives the reader it made.
  std::unique_ptr<store::ValueReader> reader_;
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

Result<std::shared_ptr<ByteSource>> OpenStoreSource(std::shared_ptr<const store::Store> store,
                                                    std::string key) {
  CHUNKWISE_ASSIGN_OR_RETURN(std::unique_ptr<store::ValueReader> reader, store->OpenReader(key));
  std::string name = store->Describe(key);
  if (reader == nullptr) return Status::NotFound(name + " does not exist");
  return std::shared_ptr<ByteSource>(
      std::make_shared<StoreSource>(std::move(store), std::move(reader), std::move(name)));
}

std::shared_ptr<ByteSource> MemorySource(Bytes bytes, std::string name) {
  return std::make_shared<InMemorySource>(std::move(bytes), std::move(name));
}

}  // namespace chunkwise::formats::arrow
