#include "chunkwise/core/buffer_pool.h"

#include <algorithm>
#include <utility>

namespace chunkwise::core {

BufferPool::Lease::~Lease() { GiveBack(); }

BufferPool::Lease::Lease(Lease&& other) noexcept
    : pool_(std::exchange(other.pool_, nullptr)), bytes_(std::move(other.bytes_)) {}

BufferPool::Lease& BufferPool::Lease::operator=(Lease&& other) noexcept {
  if (this != &other) {
    GiveBack();
    pool_ = std::exchange(other.pool_, nullptr);
    bytes_ = std::move(other.bytes_);
  }
  return *this;
}

void BufferPool::Lease::GiveBack() {
  if (pool_ != nullptr) std::exchange(pool_, nullptr)->Return(std::move(bytes_));
}

BufferPool::Lease BufferPool::Take(std::size_t size) {
  Bytes bytes;
  {
    std::lock_guard lock(mutex_);
    // The smallest idle buffer that fits, so that large ones stay for large requests.
    auto best = idle_.end();
    for (auto it = idle_.begin(); it != idle_.end(); ++it) {
      if (it->capacity() >= size && (best == idle_.end() || it->capacity() < best->capacity())) {
        best = it;
      }
    }
    if (best != idle_.end()) {
      idle_bytes_ -= best->capacity();
      bytes = std::move(*best);
      idle_.erase(best);
    }
  }
  if (bytes.capacity() < size) {
    // Fresh, not grown (growing would copy contents nobody needs), with room
    // to spare: a shard's encoded size varies, and the next request for about
    // the same size should find this buffer large enough.
    bytes = Bytes();
    bytes.reserve(size + size / 8);
  }
  bytes.resize(size);
  return Lease(this, std::move(bytes));
}

BufferPool::Lease BufferPool::TakeFrom(BufferPool* pool, std::size_t size) {
  if (pool != nullptr) return pool->Take(size);
  return Lease(nullptr, Bytes(size));
}

std::size_t BufferPool::idle_count() const {
  std::lock_guard lock(mutex_);
  return idle_.size();
}

std::size_t BufferPool::idle_bytes() const {
  std::lock_guard lock(mutex_);
  return idle_bytes_;
}

void BufferPool::Return(Bytes bytes) {
  std::vector<Bytes> freed;  // Released after the lock: a free can unmap.
  {
    std::lock_guard lock(mutex_);
    idle_bytes_ += bytes.capacity();
    idle_.push_back(std::move(bytes));
    while (idle_bytes_ > max_idle_bytes_) {
      auto smallest = std::min_element(
          idle_.begin(), idle_.end(),
          [](const Bytes& a, const Bytes& b) { return a.capacity() < b.capacity(); });
      idle_bytes_ -= smallest->capacity();
      freed.push_back(std::move(*smallest));
      idle_.erase(smallest);
    }
  }
}

}  // namespace chunkwise::core
