// ValueWriter: one value written in pieces and made visible at once.
//
// A value too large to hold in memory (a streamed shard) is appended piece by
// piece and published by Commit with the atomicity of Store::Set: a reader
// sees the old value or the whole new one, never a part. Bytes already
// appended may be overwritten in place before Commit (a shard whose index
// sits at its start reserves the room first and fills it in last). Dropping a
// writer without Commit discards what it wrote. A writer is used by one
// thread at a time.
#ifndef CHUNKWISE_STORE_VALUE_WRITER_H_
#define CHUNKWISE_STORE_VALUE_WRITER_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "chunkwise/core/bytes.h"
#include "chunkwise/core/status.h"

namespace chunkwise::store {

class Store;

class ValueWriter {
 public:
  virtual ~ValueWriter() = default;
  // Adds `data` at the end of the value.
  virtual Status Append(ByteView data) = 0;
  // Replaces bytes [offset, offset + data.size()), which must already have
  // been appended (InvalidArgument otherwise).
  virtual Status Overwrite(std::uint64_t offset, ByteView data) = 0;
  // Publishes the value under its key. The writer is finished afterwards.
  virtual Status Commit() = 0;
  // Bytes appended so far.
  virtual std::uint64_t size() const = 0;
};

// The writer every store has unless it does better: the value is gathered in
// memory and handed to Store::Set on Commit.
class BufferedValueWriter final : public ValueWriter {
 public:
  // `store` must outlive the writer.
  BufferedValueWriter(Store& store, std::string key) : store_(store), key_(std::move(key)) {}

  Status Append(ByteView data) override;
  Status Overwrite(std::uint64_t offset, ByteView data) override;
  Status Commit() override;
  std::uint64_t size() const override { return value_.size(); }

 private:
  Store& store_;
  std::string key_;
  Bytes value_;
  bool committed_ = false;
};

// InvalidArgument unless [offset, offset + length) lies inside `size` bytes
// already written to `key`: the rule every Overwrite checks.
Status CheckOverwriteRange(std::uint64_t offset, std::uint64_t length, std::uint64_t size,
                           std::string_view key);

}  // namespace chunkwise::store

#endif  // CHUNKWISE_STORE_VALUE_WRITER_H_
