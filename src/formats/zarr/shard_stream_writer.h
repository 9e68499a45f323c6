// ShardStreamWriter: the stream-write path of a shard, for writers that never
// hold a whole shard (the stream writer).
//
// It is ShardStore's writing half without the codec: the caller encodes the
// inner chunks and builds the index (shard_index.h: offsets shifted by
// DataOffsetShift when the index is at the start); this class lays the bytes
// out as a shard. The inner chunks' bytes are appended in the order the
// caller chose, then Finish puts the index in its place (over room reserved
// at the start, or after the data) and publishes the shard whole through
// Store::OpenWriter. A writer dropped before Finish leaves nothing under the
// key. Used by one thread at a time.
#ifndef CHUNKWISE_FORMATS_ZARR_SHARD_STREAM_WRITER_H_
#define CHUNKWISE_FORMATS_ZARR_SHARD_STREAM_WRITER_H_

#include <cstddef>
#include <memory>
#include <string>

#include "chunkwise/core/bytes.h"
#include "chunkwise/core/result.h"
#include "chunkwise/store/store.h"
#include "formats/zarr/shard_index.h"

namespace chunkwise::formats::zarr {

class ShardStreamWriter {
 public:
  // Opens `key` of `store` for a shard whose index, of `index_bytes` bytes
  // (ShardIndex::EncodedSize of its inner chunk count), lies at `location`.
  static Result<std::unique_ptr<ShardStreamWriter>> Open(store::Store& store,
                                                         const std::string& key,
                                                         IndexLocation location,
                                                         std::size_t index_bytes);

  // Adds inner chunk bytes after those before.
  Status Append(ByteView data);
  // Puts the encoded index in its place and publishes the shard. Internal if
  // `index` is not the size given to Open.
  Status Finish(ByteView index);

 private:
  ShardStreamWriter(std::unique_ptr<store::ValueWriter> writer, std::string where,
                    IndexLocation location, std::size_t index_bytes);

  std::unique_ptr<store::ValueWriter> writer_;
  std::string where_;  // The key as messages name it.
  IndexLocation location_;
  std::size_t index_bytes_;
};

}  // namespace chunkwise::formats::zarr

#endif  // CHUNKWISE_FORMATS_ZARR_SHARD_STREAM_WRITER_H_
