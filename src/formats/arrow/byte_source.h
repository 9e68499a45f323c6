// Random-access byte sources for the IPC readers: a store value, memory.
//
// A reader asks a source for byte ranges only, so opening a file-format shard
// and fetching one record batch reads the trailer, the footer and that batch,
// never the whole value. Sources are immutable after creation and thread-safe.
#ifndef CHUNKWISE_FORMATS_ARROW_BYTE_SOURCE_H_
#define CHUNKWISE_FORMATS_ARROW_BYTE_SOURCE_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "chunkwise/core/bytes.h"
#include "chunkwise/core/result.h"
#include "chunkwise/store/store.h"

namespace chunkwise::formats::arrow {

class ByteSource {
 public:
  virtual ~ByteSource() = default;
  // The size in bytes, fixed when the source was opened.
  virtual std::uint64_t size() const = 0;
  // Bytes [offset, offset + length). Corruption naming the source if the range
  // runs past its end (a reader follows offsets found inside the data, so a
  // range past the end means the data is truncated or lies); IOError on a
  // failed read.
  virtual Result<Bytes> Read(std::uint64_t offset, std::uint64_t length) const = 0;
  // The store key (as the store describes it), for messages.
  virtual const std::string& name() const = 0;

  // Bytes [offset, offset + length) as a view kept alive by `owner`, with the
  // errors of Read. Sources that hold their bytes in memory hand out a view
  // without copying; the default reads into a fresh buffer.
  struct SharedBytes {
    std::shared_ptr<const void> owner;
    ByteView view;
  };
  virtual Result<SharedBytes> ReadShared(std::uint64_t offset, std::uint64_t length) const;
};

// The value of `key` in `store`, read by ranges through one store::ValueReader
// (a FileStore holds the file open: every read is a pread of the version
// opened). NotFound if the key is absent.
Result<std::shared_ptr<ByteSource>> OpenStoreSource(std::shared_ptr<const store::Store> store,
                                                    std::string key);
// Bytes already in memory; `name` is used in messages. ReadShared hands out
// views of them, so batches read from it are not copied.
std::shared_ptr<ByteSource> MemorySource(Bytes bytes, std::string name);

// Corruption "<name>: <what> (bytes [offset, offset+length) of a <size>-byte source)"
// unless the range lies inside the source; shared by every source.
Status CheckRange(const ByteSource& source, std::uint64_t offset, std::uint64_t length,
                  std::string_view what);

}  // namespace chunkwise::formats::arrow

#endif  // CHUNKWISE_FORMATS_ARROW_BYTE_SOURCE_H_
