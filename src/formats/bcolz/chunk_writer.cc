#include "formats/bcolz/chunk_writer.h"

#include "chunkwise/core/thread_pool.h"

namespace chunkwise::formats::bcolz {

ChunkWriter::~ChunkWriter() {
  {
    std::unique_lock lock(mutex_);
    stopping_ = true;
  }
  work_queued_.notify_one();
  if (thread_.joinable()) thread_.join();
}

Status ChunkWriter::Submit(std::string key, core::BufferPool::Lease data, std::size_t size) {
  std::unique_lock lock(mutex_);
  if (!error_.ok()) return error_;
  if (!thread_.joinable()) {
    Result<std::thread> started = core::StartThread([this] { Run(); }, "the chunk file writer");
    if (!started.ok()) return started.status();
    thread_ = std::move(started).value();
  }
  // Full: write the oldest queued chunk here rather than wait, so that when
  // files are slower to create than chunks to compress both threads write.
  while (jobs_.size() + running_ >= kMaxPending) {
    if (jobs_.empty()) {
      write_done_.wait(lock, [this] { return jobs_.size() + running_ < kMaxPending; });
    } else {
      RunOne(lock);
    }
  }
  if (!error_.ok()) return error_;
  jobs_.push_back({std::move(key), std::move(data), size});
  // Wake the writer for every kWakeAt chunks, not every chunk: each wake-up
  // cost a futex call and an interrupt to the compressing core. Nothing waits
  // on a job below the mark: Drain writes what is queued itself.
  const bool wake = jobs_.size() >= kWakeAt;
  lock.unlock();
  if (wake) work_queued_.notify_one();
  return Status::Ok();
}

Status ChunkWriter::Drain() {
  std::unique_lock lock(mutex_);
  // Help rather than wait: the caller writes queued chunks alongside the
  // background thread, so a drain costs about half as long.
  while (!jobs_.empty()) RunOne(lock);
  write_done_.wait(lock, [this] { return jobs_.empty() && running_ == 0; });
  return error_;
}

void ChunkWriter::RunOne(std::unique_lock<std::mutex>& lock) {
  Job job = std::move(jobs_.front());
  jobs_.pop_front();
  ++running_;
  lock.unlock();
  Status status = store_->Set(job.key, ByteView(job.data.data(), job.size));
  job.data = core::BufferPool::Lease();  // Back to the pool, outside our lock.
  lock.lock();
  --running_;
  if (!status.ok() && error_.ok()) error_ = std::move(status);
  write_done_.notify_all();  // Any compressing thread may be waiting in Submit.
}

void ChunkWriter::Run() {
  std::unique_lock lock(mutex_);
  while (true) {
    work_queued_.wait(lock, [this] { return stopping_ || !jobs_.empty(); });
    if (jobs_.empty()) return;  // Stopping with nothing left.
    RunOne(lock);
  }
}

}  // namespace chunkwise::formats::bcolz
