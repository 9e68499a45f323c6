// BoundedQueue<T>: a closable multi-producer, multi-consumer FIFO of fixed
// capacity.
//
// It connects pipeline stages (readers, compression workers, a writer) and
// gives back-pressure: a fast producer blocks in Push once `capacity` items
// wait, so memory stays bounded. Close() ends the stream: producers stop,
// consumers drain what is left and then get nullopt. Every method is
// thread-safe.
#ifndef CHUNKWISE_CORE_BOUNDED_QUEUE_H_
#define CHUNKWISE_CORE_BOUNDED_QUEUE_H_

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <mutex>
#include <optional>
#include <utility>

#include "chunkwise/core/check.h"

namespace chunkwise::core {

// A template because a queue holds whatever its pipeline stage hands on.
template <typename T>
class BoundedQueue {
 public:
  // REQUIRES: capacity > 0.
  explicit BoundedQueue(std::size_t capacity) : capacity_(capacity) {
    CHUNKWISE_CHECK(capacity > 0);
  }
  BoundedQueue(const BoundedQueue&) = delete;
  BoundedQueue& operator=(const BoundedQueue&) = delete;

  // Appends `item`, blocking while the queue is full. Returns false (and
  // drops the item) if the queue is closed, including while waiting.
  bool Push(T item) {
    std::unique_lock lock(mutex_);
    not_full_.wait(lock, [this] { return closed_ || items_.size() < capacity_; });
    if (closed_) {
      return false;
    }
    items_.push_back(std::move(item));
    lock.unlock();
    not_empty_.notify_one();
    return true;
  }

  // Appends `item` if there is room and the queue is open; never blocks.
  // Moves from `item` only when it returns true.
  bool TryPush(T&& item) {
    std::unique_lock lock(mutex_);
    if (closed_ || items_.size() >= capacity_) {
      return false;
    }
    items_.push_back(std::move(item));
    lock.unlock();
    not_empty_.notify_one();
    return true;
  }

  // The oldest item, blocking while the queue is empty and open; nullopt
  // once it is closed and drained.
  std::optional<T> Pop() {
    std::unique_lock lock(mutex_);
    not_empty_.wait(lock, [this] { return closed_ || !items_.empty(); });
    return TakeFront(lock);
  }

  // As Pop, but waits at most `timeout`: nullopt with *timed_out set when
  // nothing arrived in time while the queue stayed open.
  template <typename Duration>
  std::optional<T> PopFor(Duration timeout, bool* timed_out) {
    std::unique_lock lock(mutex_);
    *timed_out = !not_empty_.wait_for(lock, timeout, [this] { return closed_ || !items_.empty(); });
    return TakeFront(lock);
  }

  // The oldest item, or nullopt if none is waiting; never blocks.
  std::optional<T> TryPop() {
    std::unique_lock lock(mutex_);
    return TakeFront(lock);
  }

  // Refuses further pushes and wakes every blocked Push and Pop. Items
  // already queued can still be popped. Closing twice is harmless.
  void Close() {
    {
      std::lock_guard lock(mutex_);
      closed_ = true;
    }
    not_full_.notify_all();
    not_empty_.notify_all();
  }

  bool closed() const {
    std::lock_guard lock(mutex_);
    return closed_;
  }
  // The number of items waiting; may be stale as soon as it returns.
  std::size_t size() const {
    std::lock_guard lock(mutex_);
    return items_.size();
  }
  std::size_t capacity() const { return capacity_; }

 private:
  std::optional<T> TakeFront(std::unique_lock<std::mutex>& lock) {
    if (items_.empty()) {
      return std::nullopt;
    }
    std::optional<T> item(std::move(items_.front()));
    items_.pop_front();
    lock.unlock();
    not_full_.notify_one();
    return item;
  }

  const std::size_t capacity_;
  mutable std::mutex mutex_;
  std::condition_variable not_full_;
  std::condition_variable not_empty_;
  std::deque<T> items_;  // Guarded by mutex_.
  bool closed_ = false;  // Guarded by mutex_.
};

}  // namespace chunkwise::core

#endif  // CHUNKWISE_CORE_BOUNDED_QUEUE_H_
