#include "pipelines/stream/shard_sink.h"

#include <utility>

#include "formats/zarr/shard_stream_writer.h"

namespace chunkwise::pipelines::stream {
namespace {

using formats::zarr::IndexLocation;

// A shard written through the zarr shard layout's stream-write path.
class StoreShardOutput final : public ShardOutput {
 public:
  explicit StoreShardOutput(std::unique_ptr<formats::zarr::ShardStreamWriter> writer)
      : writer_(std::move(writer)) {}

  Status Append(ByteView data) override { return writer_->Append(data); }
  Status Finish(ByteView index) override { return writer_->Finish(index); }

 private:
  std::unique_ptr<formats::zarr::ShardStreamWriter> writer_;
};

class DiscardShardOutput final : public ShardOutput {
 public:
  Status Append(ByteView) override { return Status::Ok(); }
  Status Finish(ByteView) override { return Status::Ok(); }
};

}  // namespace

StoreShardSink::StoreShardSink(std::shared_ptr<store::Store> store, std::string prefix,
                               formats::zarr::ChunkKeyEncoding encoding, IndexLocation location,
                               std::size_t index_bytes)
    : store_(std::move(store)),
      prefix_(std::move(prefix)),
      encoding_(std::move(encoding)),
      location_(location),
      index_bytes_(index_bytes) {}

Result<std::unique_ptr<ShardOutput>> StoreShardSink::Begin(const core::Coord& shard) {
  CHUNKWISE_ASSIGN_OR_RETURN(std::unique_ptr<formats::zarr::ShardStreamWriter> writer,
                             formats::zarr::ShardStreamWriter::Open(
                                 *store_, prefix_ + encoding_.Key(shard), location_, index_bytes_));
  return std::unique_ptr<ShardOutput>(std::make_unique<StoreShardOutput>(std::move(writer)));
}

Result<std::unique_ptr<ShardOutput>> DiscardShardSink::Begin(const core::Coord&) {
  return std::unique_ptr<ShardOutput>(std::make_unique<DiscardShardOutput>());
}

class MeteringShardSink::Output final : public ShardOutput {
 public:
  Output(MeteringShardSink& sink, std::unique_ptr<ShardOutput> inner)
      : sink_(sink), inner_(std::move(inner)) {}

  Status Append(ByteView data) override {
    if (inner_ != nullptr) CHUNKWISE_RETURN_IF_ERROR(inner_->Append(data));
    sink_.bytes_ += data.size();
    return Status::Ok();
  }
  Status Finish(ByteView index) override {
    if (inner_ != nullptr) CHUNKWISE_RETURN_IF_ERROR(inner_->Finish(index));
    sink_.bytes_ += index.size();
    ++sink_.shards_;
    return Status::Ok();
  }

 private:
  MeteringShardSink& sink_;
  std::unique_ptr<ShardOutput> inner_;
};

Result<std::unique_ptr<ShardOutput>> MeteringShardSink::Begin(const core::Coord& shard) {
  std::unique_ptr<ShardOutput> inner;
  if (inner_ != nullptr) {
    CHUNKWISE_ASSIGN_OR_RETURN(inner, inner_->Begin(shard));
  }
  return std::unique_ptr<ShardOutput>(std::make_unique<Output>(*this, std::move(inner)));
}

}  // namespace chunkwise::pipelines::stream
