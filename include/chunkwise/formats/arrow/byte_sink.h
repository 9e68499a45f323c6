// Ordered append-only byte sinks for the IPC writer: a file, a store value, memory.
//
// A writer appends messages one after another and calls Commit once the
// stream or file is complete. Until then the output is invisible under its
// final name: a FileSink writes a temporary sibling and renames it on Commit,
// a StoreSink buffers and Sets the value on Commit. A sink destroyed without
// Commit removes its temporary and leaves any existing output as it was. Not
// thread-safe: one writer appends at a time.
#ifndef CHUNKWISE_FORMATS_ARROW_BYTE_SINK_H_
#define CHUNKWISE_FORMATS_ARROW_BYTE_SINK_H_

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>

#include "chunkwise/core/bytes.h"
#include "chunkwise/core/result.h"
#include "chunkwise/store/store.h"

namespace chunkwise::formats::arrow {

class ByteSink {
 public:
  virtual ~ByteSink() = default;
  // Appends `bytes`; IOError (naming the output) if the write fails.
  virtual Status Append(ByteView bytes) = 0;
  // Bytes appended so far.
  virtual std::uint64_t position() const = 0;
  // Makes the output visible under its final name. REQUIRES: called once.
  virtual Status Commit() = 0;
  // The output's path or key, for messages.
  virtual const std::string& name() const = 0;
};

struct FileSinkOptions {
  bool overwrite = false;  // Replace an existing file (the CLI's --overwrite).
  bool fsync = false;      // fsync the file before the rename and the directory after.
};

// A file written through a temporary sibling. InvalidArgument if `path`
// exists and !options.overwrite; IOError if the temporary cannot be created.
Result<std::unique_ptr<ByteSink>> CreateFileSink(const std::filesystem::path& path,
                                                 FileSinkOptions options = {});
// A store value, buffered in memory and Set on Commit.
std::unique_ptr<ByteSink> CreateStoreSink(std::shared_ptr<store::Store> store, std::string key);

// Bytes in memory, for tests and staging; `bytes()` holds what was appended.
class MemorySink final : public ByteSink {
 public:
  explicit MemorySink(std::string name = "memory") : name_(std::move(name)) {}
  // Appends into `buffer` after clearing it, reusing its capacity.
  MemorySink(std::string name, Bytes buffer) : bytes_(std::move(buffer)), name_(std::move(name)) {
    bytes_.clear();
  }
  Status Append(ByteView bytes) override;
  std::uint64_t position() const override { return bytes_.size(); }
  Status Commit() override { return Status::Ok(); }
  const std::string& name() const override { return name_; }
  const Bytes& bytes() const { return bytes_; }
  // Reserves room for `size` bytes in all, so appends do not reallocate.
  void Reserve(std::size_t size) { bytes_.reserve(size); }
  Bytes Take() { return std::move(bytes_); }

 private:
  Bytes bytes_;
  std::string name_;
};

}  // namespace chunkwise::formats::arrow

#endif  // CHUNKWISE_FORMATS_ARROW_BYTE_SINK_H_
