// The third stage of export-shards: writer threads that own the open shards.
//
// Shards are dealt to writer threads by shard number, so one thread appends
// every record of a shard and a shard's ArrowShardWriter needs no lock. A
// shard is created on its first record (a shard whose blocks were all skipped
// writes no files) and finished once it has received, as records or skips,
// the number of blocks the scan reported in its close message; records may
// arrive after that message, since they pass through the chunk handlers.
#ifndef CHUNKWISE_SRC_PIPELINES_EXPORT_SHARD_WRITER_STAGE_H_
#define CHUNKWISE_SRC_PIPELINES_EXPORT_SHARD_WRITER_STAGE_H_

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "core/bounded_queue.h"
#include "formats/dvid/arrow_shard_writer.h"

namespace chunkwise::pipelines::detail {

// The first error of a pipeline; recording it runs the cancel hooks (closing
// every queue) so that all stages wind down. Thread-safe.
class PipelineFailure {
 public:
  void Fail(Status status);
  bool failed() const { return failed_.load(std::memory_order_acquire); }
  Status status() const;
  // Runs `hook` on failure (at once if the pipeline has failed already).
  void AddCancelHook(std::function<void()> hook);

 private:
  mutable std::mutex mutex_;
  Status first_;  // Guarded by mutex_.
  std::atomic<bool> failed_{false};
  std::vector<std::function<void()>> hooks_;  // Guarded by mutex_.
};

struct ShardMessage {
  enum class Kind { kRecord, kSkip, kClose };
  Kind kind = Kind::kRecord;
  std::uint64_t shard = 0;
  std::string stem;                   // kRecord and kClose: the shard's file stem.
  formats::dvid::ExportBlock block;   // kRecord.
  std::uint64_t expected_blocks = 0;  // kClose: blocks the scan sent to the shard.
};

class ShardWriterStage {
 public:
  // Starts `threads` writers writing the keys `<prefix><stem>.arrow|.csv` of
  // `store`; each queue holds `queue_batches` batches of messages. Errors go
  // to `failure`. `before_publish`, if set, is called with the description of a
  // shard's .arrow (store::Store::Describe) before the shard is published;
  // its error fails the stage there.
  using PublishHook = std::function<Status(const std::string& shard_key)>;
  ShardWriterStage(std::shared_ptr<store::Store> store, std::string prefix,
                   formats::dvid::ArrowShardWriterOptions options, std::size_t threads,
                   std::size_t queue_batches, PipelineFailure& failure,
                   PublishHook before_publish = {});
  // Cancels and joins what is still running.
  ~ShardWriterStage();

  // Hands each message to the writer owning its shard, one hand-over per
  // writer (waking a writer once per block cost more than the writing on a
  // 2-core machine: futex wakes and the rescheduling interrupts they send to
  // the compressing threads). Blocks while a queue is full; false once the
  // stage is cancelled. Thread-safe.
  bool SendBatch(std::vector<ShardMessage> messages);
  // Closes every queue so the writers stop (unfinished shards are discarded). Thread-safe.
  void Cancel();
  // Lets the writers drain their queues and joins them. Internal if a shard
  // was never closed (a bug in the caller's accounting).
  Status Finish();

  std::uint64_t shards_written() const { return shards_written_.load(); }
  std::uint64_t file_bytes() const { return file_bytes_.load(); }

 private:
  struct OpenShard;
  void Run(std::size_t thread);
  Status Handle(ShardMessage& message, std::unordered_map<std::uint64_t, OpenShard>& open);
  Status FinishShard(OpenShard& shard);

  const std::shared_ptr<store::Store> store_;
  const std::string prefix_;
  const formats::dvid::ArrowShardWriterOptions options_;
  PipelineFailure& failure_;
  const PublishHook before_publish_;
  std::vector<std::unique_ptr<core::BoundedQueue<std::vector<ShardMessage>>>> queues_;
  std::vector<std::thread> threads_;
  std::atomic<std::uint64_t> shards_written_{0};
  std::atomic<std::uint64_t> file_bytes_{0};
  std::atomic<std::uint64_t> shards_left_open_{0};
};

}  // namespace chunkwise::pipelines::detail

#endif  // CHUNKWISE_SRC_PIPELINES_EXPORT_SHARD_WRITER_STAGE_H_
