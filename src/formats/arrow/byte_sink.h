// Ordered append-only byte sinks for the IPC writer: a store value, memory.
//
// A writer appends messages one after another and calls Commit once the
// stream or file is complete. Until then the output is invisible under its
// key: a store sink streams into Store::OpenWriter, which publishes the value
// atomically on Commit (a FileStore writes a temporary and renames it). A sink
// destroyed without Commit leaves any existing value as it was. Not
// thread-safe: one writer appends at a time.
#ifndef CHUNKWISE_FORMATS_ARROW_BYTE_SINK_H_
#define CHUNKWISE_FORMATS_ARROW_BYTE_SINK_H_

#include <cstdint>
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
  // The output's key (as the store describes it), for messages.
  virtual const std::string& name() const = 0;
};

struct StoreSinkOptions {
  bool overwrite = false;  // Replace an existing value of the key.
};

// The value of `key` in `store`, streamed through Store::OpenWriter and
// published on Commit. InvalidArgument if the key holds a value and
// !options.overwrite; the errors of OpenWriter (an invalid key, say).
Result<std::unique_ptr<ByteSink>> CreateStoreSink(std::shared_ptr<store::Store> store,
                                                  std::string key, StoreSinkOptions options = {});

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
