#include "chunkwise/pipelines/stream/shard_sink.h"

namespace chunkwise::pipelines::stream {
namespace {

using formats::zarr::IndexLocation;

class StoreShardOutput final : public ShardOutput {
 public:
  StoreShardOutput(std::unique_ptr<store::ValueWriter> writer, IndexLocation location)
      : writer_(std::move(writer)), location_(location) {}

  Status Append(ByteView data) override { return writer_->Append(data); }
  Status Finish(ByteView index) override {
    if (location_ == IndexLocation::kStart) {
      CHUNKWISE_RETURN_IF_ERROR(writer_->Overwrite(0, index));
    } else {
      CHUNKWISE_RETURN_IF_ERROR(writer_->Append(index));
    }
    return writer_->Commit();
  }

 private:
  std::unique_ptr<store::ValueWriter> writer_;
  IndexLocation location_;
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
  CHUNKWISE_ASSIGN_OR_RETURN(std::unique_ptr<store::ValueWriter> writer,
                             store_->OpenWriter(prefix_ + encoding_.Key(shard)));
  if (location_ == IndexLocation::kStart) {
    // Room for the index, written over once the offsets are known.
    CHUNKWISE_RETURN_IF_ERROR(writer->Append(Bytes(index_bytes_, 0)));
  }
  return std::unique_ptr<ShardOutput>(
      std::make_unique<StoreShardOutput>(std::move(writer), location_));
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
