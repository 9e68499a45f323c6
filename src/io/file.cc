#include "chunkwise/io/file.h"

#include <cstdio>
#include <system_error>
#include <utility>

namespace chunkwise::io {
namespace {

namespace fs = std::filesystem;

// Keeps the store that made `inner` alive as long as the writer.
class FileWriter final : public store::ValueWriter {
 public:
  FileWriter(std::shared_ptr<store::FileStore> store, std::unique_ptr<store::ValueWriter> inner)
      : store_(std::move(store)), inner_(std::move(inner)) {}

  Status Append(ByteView data) override { return inner_->Append(data); }
  Status Overwrite(std::uint64_t offset, ByteView data) override {
    return inner_->Overwrite(offset, data);
  }
  Status Commit() override { return inner_->Commit(); }
  std::uint64_t size() const override { return inner_->size(); }

 private:
  std::shared_ptr<store::FileStore> store_;
  std::unique_ptr<store::ValueWriter> inner_;
};

// Standard output as a value: appended bytes go out at once.
class StandardOutputWriter final : public store::ValueWriter {
 public:
  Status Append(ByteView data) override {
    if (!data.empty() && std::fwrite(data.data(), 1, data.size(), stdout) != data.size()) {
      return Status::IOError("writing to standard output failed");
    }
    size_ += data.size();
    return Status::Ok();
  }
  Status Overwrite(std::uint64_t /*offset*/, ByteView /*data*/) override {
    return Status::Unsupported("standard output cannot rewrite bytes already written");
  }
  Status Commit() override {
    if (std::fflush(stdout) != 0) return Status::IOError("writing to standard output failed");
    return Status::Ok();
  }
  std::uint64_t size() const override { return size_; }

 private:
  std::uint64_t size_ = 0;
};

}  // namespace

bool IsStandardOutput(const fs::path& path) { return path == "-"; }

Result<FileKey> LocateFile(const fs::path& given, bool create_directory) {
  // "dir/" names the directory "dir" (a Parquet reference set, an export).
  const fs::path path =
      !given.has_filename() && given.has_parent_path() ? given.parent_path() : given;
  const fs::path name = path.filename();
  if (name.empty() || name == "." || name == "..") {
    return Status::InvalidArgument(given.string() + " names no file");
  }
  const fs::path directory = path.has_parent_path() ? path.parent_path() : fs::path(".");
  CHUNKWISE_ASSIGN_OR_RETURN(std::shared_ptr<store::FileStore> store,
                             OpenDirectory(directory, create_directory));
  return FileKey{std::move(store), name.string()};
}

Result<std::shared_ptr<store::FileStore>> OpenDirectory(const fs::path& path, bool create) {
  Result<std::shared_ptr<store::FileStore>> store =
      store::FileStore::Open(path, {.create_root = create});
  if (!store.ok() && store.status().code() == StatusCode::kNotFound) {
    return Status::NotFound("directory " + path.string() + " does not exist");
  }
  return store;
}

Status WriteFile(const fs::path& path, ByteView data) {
  return WriteFile(path, std::span<const ByteView>(&data, 1));
}

Status WriteFile(const fs::path& path, std::span<const ByteView> parts) {
  if (IsStandardOutput(path)) {
    StandardOutputWriter out;
    for (ByteView part : parts) CHUNKWISE_RETURN_IF_ERROR(out.Append(part));
    return out.Commit();
  }
  CHUNKWISE_ASSIGN_OR_RETURN(const FileKey file, LocateFile(path));
  return file.store->SetParts(file.key, parts);
}

Result<std::unique_ptr<store::ValueWriter>> OpenFileWriter(const fs::path& path) {
  if (IsStandardOutput(path)) {
    return std::unique_ptr<store::ValueWriter>(std::make_unique<StandardOutputWriter>());
  }
  CHUNKWISE_ASSIGN_OR_RETURN(FileKey file, LocateFile(path));
  CHUNKWISE_ASSIGN_OR_RETURN(std::unique_ptr<store::ValueWriter> writer,
                             file.store->OpenWriter(file.key));
  return std::unique_ptr<store::ValueWriter>(
      std::make_unique<FileWriter>(std::move(file.store), std::move(writer)));
}

Status CheckOutputPath(const fs::path& path, bool overwrite) {
  std::error_code error;
  if (!overwrite && !IsStandardOutput(path) && fs::exists(path, error)) {
    return Status::InvalidArgument(path.string() +
                                   " already exists (overwrite not requested)").WithField("overwrite");
  }
  return Status::Ok();
}

}  // namespace chunkwise::io
