// ValueReader: byte ranges of one value, opened once and read many times.
//
// A shard is read in several requests: its index, then the chunks the index
// points at. Made as separate Store calls, a Set landing between them pairs
// one version's index with the other version's bytes, and a chunk stored
// without a checksum would then decode to wrong data with no error. A reader
// opened once sees one version throughout where the store can hold on to it
// (pinned(): a file's open descriptor keeps its inode, a memory store keeps
// its value), and a file is opened once for all the requests instead of once
// per request. A reader is safe to use from several threads at once.
#ifndef CHUNKWISE_STORE_VALUE_READER_H_
#define CHUNKWISE_STORE_VALUE_READER_H_

#include <cstdint>
#include <optional>
#include <span>
#include <string>

#include "chunkwise/core/bytes.h"
#include "chunkwise/core/status.h"
#include "chunkwise/store/byte_range.h"
#include "chunkwise/store/generation.h"

namespace chunkwise::store {

class Store;

class ValueReader {
 public:
  virtual ~ValueReader() = default;
  // The value's size when the reader was opened.
  virtual std::uint64_t size() const = 0;
  // Reads `ranges` one after another into `out`, whose size must be the sum
  // of their lengths (InvalidArgument otherwise). OutOfRange if a range lies
  // outside the value; NotFound if an unpinned value vanished meanwhile.
  virtual Status ReadInto(std::span<const ByteRange> ranges, MutableByteView out) const = 0;
  // True if every read sees the version the reader was opened on.
  virtual bool pinned() const = 0;
  // The generation of the version a pinned reader reads (store/generation.h),
  // for a conditional write of a changed value; nullopt when the store
  // cannot tell.
  virtual std::optional<Generation> generation() const { return std::nullopt; }
};

// The reader every store has unless it does better: each read is a
// Store::GetRangesInto call, so a Set between reads is seen (not pinned).
class StoreValueReader final : public ValueReader {
 public:
  // `store` must outlive the reader.
  StoreValueReader(const Store& store, std::string key, std::uint64_t size)
      : store_(store), key_(std::move(key)), size_(size) {}

  std::uint64_t size() const override { return size_; }
  Status ReadInto(std::span<const ByteRange> ranges, MutableByteView out) const override;
  bool pinned() const override { return false; }

 private:
  const Store& store_;
  std::string key_;
  std::uint64_t size_;
};

}  // namespace chunkwise::store

#endif  // CHUNKWISE_STORE_VALUE_READER_H_
