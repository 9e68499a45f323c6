#include "pipelines/export/shard_writer_stage.h"

#include <optional>
#include <unordered_map>

namespace chunkwise::pipelines::detail {

void PipelineFailure::Fail(Status status) {
  std::vector<std::function<void()>> hooks;
  {
    std::lock_guard lock(mutex_);
    if (failed_.load()) return;
    first_ = std::move(status);
    failed_.store(true, std::memory_order_release);
    hooks = hooks_;
  }
  for (const auto& hook : hooks) hook();
}

void PipelineFailure::AddCancelHook(std::function<void()> hook) {
  {
    std::lock_guard lock(mutex_);
    if (!failed_.load()) {
      hooks_.push_back(std::move(hook));
      return;
    }
  }
  hook();
}

Status PipelineFailure::status() const {
  std::lock_guard lock(mutex_);
  return first_;
}

struct ShardWriterStage::OpenShard {
  std::string stem;
  std::unique_ptr<formats::dvid::ArrowShardWriter> writer;  // Made on the first record.
  std::uint64_t received = 0;                               // Records and skips.
  std::optional<std::uint64_t> expected;                    // Set by the close message.
};

ShardWriterStage::ShardWriterStage(std::shared_ptr<store::Store> store, std::string prefix,
                                   formats::dvid::ArrowShardWriterOptions options,
                                   std::size_t threads, std::size_t queue_batches,
                                   PipelineFailure& failure, PublishHook before_publish)
    : store_(std::move(store)),
      prefix_(std::move(prefix)),
      options_(options),
      failure_(failure),
      before_publish_(std::move(before_publish)) {
  for (std::size_t t = 0; t < std::max<std::size_t>(threads, 1); ++t) {
    queues_.push_back(
        std::make_unique<core::BoundedQueue<std::vector<ShardMessage>>>(queue_batches));
  }
  for (std::size_t t = 0; t < queues_.size(); ++t) threads_.emplace_back([this, t] { Run(t); });
}

ShardWriterStage::~ShardWriterStage() {
  Cancel();
  for (std::thread& thread : threads_) {
    if (thread.joinable()) thread.join();
  }
}

bool ShardWriterStage::SendBatch(std::vector<ShardMessage> messages) {
  if (queues_.size() == 1) return messages.empty() || queues_[0]->Push(std::move(messages));
  std::vector<std::vector<ShardMessage>> per_queue(queues_.size());
  for (ShardMessage& message : messages) {
    per_queue[message.shard % queues_.size()].push_back(std::move(message));
  }
  for (std::size_t q = 0; q < queues_.size(); ++q) {
    if (!per_queue[q].empty() && !queues_[q]->Push(std::move(per_queue[q]))) return false;
  }
  return true;
}

void ShardWriterStage::Cancel() {
  for (auto& queue : queues_) queue->Close();
}

Status ShardWriterStage::Finish() {
  for (auto& queue : queues_) queue->Close();
  for (std::thread& thread : threads_) {
    if (thread.joinable()) thread.join();
  }
  if (!failure_.failed() && shards_left_open_.load() != 0) {
    return Status::Internal("export: " + std::to_string(shards_left_open_.load()) +
                            " shard(s) under \"" + prefix_ + "\" were never closed");
  }
  return Status::Ok();
}

void ShardWriterStage::Run(std::size_t thread) {
  std::unordered_map<std::uint64_t, OpenShard> open;
  while (std::optional<std::vector<ShardMessage>> batch = queues_[thread]->Pop()) {
    for (ShardMessage& message : *batch) {
      if (failure_.failed()) break;  // Drain; unfinished writers discard their temporaries.
      if (Status status = Handle(message, open); !status.ok()) failure_.Fail(std::move(status));
    }
  }
  if (!failure_.failed()) shards_left_open_ += open.size();
}

Status ShardWriterStage::Handle(ShardMessage& message,
                                std::unordered_map<std::uint64_t, OpenShard>& open) {
  OpenShard& shard = open[message.shard];
  if (shard.stem.empty()) shard.stem = message.stem;
  switch (message.kind) {
    case ShardMessage::Kind::kRecord:
      if (shard.writer == nullptr) {
        CHUNKWISE_ASSIGN_OR_RETURN(shard.writer, formats::dvid::ArrowShardWriter::Create(
                                                     store_, prefix_ + shard.stem, options_));
      }
      CHUNKWISE_RETURN_IF_ERROR(
          shard.writer->Add(message.block)
              .WithContext(store_->Describe(prefix_ + shard.stem + ".arrow")));
      ++shard.received;
      break;
    case ShardMessage::Kind::kSkip:
      ++shard.received;
      break;
    case ShardMessage::Kind::kClose:
      shard.expected = message.expected_blocks;
      break;
  }
  if (shard.expected.has_value() && shard.received == *shard.expected) {
    CHUNKWISE_RETURN_IF_ERROR(FinishShard(shard));
    open.erase(message.shard);
  }
  return Status::Ok();
}

Status ShardWriterStage::FinishShard(OpenShard& shard) {
  if (shard.writer == nullptr) return Status::Ok();  // Every block skipped: no files.
  if (before_publish_)
    CHUNKWISE_RETURN_IF_ERROR(before_publish_(store_->Describe(prefix_ + shard.stem + ".arrow")));
  CHUNKWISE_RETURN_IF_ERROR(shard.writer->Finish());
  file_bytes_ += shard.writer->bytes_written();
  shard.writer.reset();
  ++shards_written_;
  return Status::Ok();
}

}  // namespace chunkwise::pipelines::detail
