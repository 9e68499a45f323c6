// ShardSink: where the streaming shard writer emits finished shards.
//
// The design's sink receives a whole shard (data, then index). Here a shard is
// opened, its data appended as each epoch's compressed tiles arrive in
// shard-major order, and its index handed over last, so a shard never has to
// be held in memory whole. The index bytes already carry the offsets and CRC
// for their location (index_location "start" shifts every offset by the
// index size, errata 3); the sink only puts them in their place. A shard
// output dropped without Finish leaves nothing under the shard's key.
#ifndef CHUNKWISE_PIPELINES_STREAM_SHARD_SINK_H_
#define CHUNKWISE_PIPELINES_STREAM_SHARD_SINK_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>

#include "chunkwise/core/bytes.h"
#include "chunkwise/core/index.h"
#include "chunkwise/core/result.h"
#include "chunkwise/store/store.h"
#include "formats/zarr/chunk_key_encoding.h"
#include "formats/zarr/shard_index.h"

namespace chunkwise::pipelines::stream {

class ShardOutput {
 public:
  virtual ~ShardOutput() = default;
  // Adds shard data after what came before.
  virtual Status Append(ByteView data) = 0;
  // Adds the encoded index and publishes the shard.
  virtual Status Finish(ByteView index) = 0;
};

class ShardSink {
 public:
  virtual ~ShardSink() = default;
  // Opens the shard at grid coordinate `shard`. May be called from several
  // threads at once, for different shards; each output is used by one
  // thread at a time.
  virtual Result<std::unique_ptr<ShardOutput>> Begin(const core::Coord& shard) = 0;
};

// Shards as zarr v3 objects in a store: key prefix + encoding.Key(coord),
// written through Store::OpenWriter, so each appears whole or not at all.
class StoreShardSink final : public ShardSink {
 public:
  StoreShardSink(std::shared_ptr<store::Store> store, std::string prefix,
                 formats::zarr::ChunkKeyEncoding encoding, formats::zarr::IndexLocation location,
                 std::size_t index_bytes);
  Result<std::unique_ptr<ShardOutput>> Begin(const core::Coord& shard) override;

 private:
  std::shared_ptr<store::Store> store_;
  std::string prefix_;
  formats::zarr::ChunkKeyEncoding encoding_;
  formats::zarr::IndexLocation location_;
  std::size_t index_bytes_;
};

// Drops every shard: for measuring the pipeline without I/O.
class DiscardShardSink final : public ShardSink {
 public:
  Result<std::unique_ptr<ShardOutput>> Begin(const core::Coord& shard) override;
};

// Counts what passes through to `inner` (null: nothing is kept).
class MeteringShardSink final : public ShardSink {
 public:
  explicit MeteringShardSink(ShardSink* inner = nullptr) : inner_(inner) {}
  Result<std::unique_ptr<ShardOutput>> Begin(const core::Coord& shard) override;

  std::uint64_t shards() const { return shards_.load(); }
  std::uint64_t bytes() const { return bytes_.load(); }

 private:
  class Output;
  ShardSink* inner_;
  std::atomic<std::uint64_t> shards_{0};
  std::atomic<std::uint64_t> bytes_{0};
};

}  // namespace chunkwise::pipelines::stream

#endif  // CHUNKWISE_PIPELINES_STREAM_SHARD_SINK_H_
