// BufferPool: large byte buffers lent out and taken back, so that work that
// needs one per item (a shard being encoded, a shard's chunks being read)
// reuses memory it has already touched. Fresh memory is dear: glibc unmaps a
// thread arena's heap once it is free, and the next buffer is faulted in page
// by page. On our 2-core virtual machine first touch ran at 0.3–0.5 GB/s
// (memset of reused memory: 20 GB/s), and a sharded write spent 20% of its
// time zeroing new pages before its buffers were pooled.
//
// Idle buffers are kept up to `max_idle_bytes` in all (the largest stay);
// beyond that a returned buffer frees the smallest. Thread-safe; the pool must
// outlive its leases.
#ifndef CHUNKWISE_CORE_BUFFER_POOL_H_
#define CHUNKWISE_CORE_BUFFER_POOL_H_

#include <cstddef>
#include <mutex>
#include <vector>

#include "chunkwise/core/bytes.h"

namespace chunkwise::core {

class BufferPool {
 public:
  // A buffer on loan: it goes back to its pool when the lease ends.
  class Lease {
   public:
    Lease() = default;
    ~Lease();
    Lease(Lease&& other) noexcept;
    Lease& operator=(Lease&& other) noexcept;
    Lease(const Lease&) = delete;
    Lease& operator=(const Lease&) = delete;

    std::uint8_t* data() { return bytes_.data(); }
    std::size_t size() const { return bytes_.size(); }
    MutableByteView view() { return bytes_; }

   private:
    friend class BufferPool;
    Lease(BufferPool* pool, Bytes bytes) : pool_(pool), bytes_(std::move(bytes)) {}
    void GiveBack();

    BufferPool* pool_ = nullptr;
    Bytes bytes_;
  };

  explicit BufferPool(std::size_t max_idle_bytes) : max_idle_bytes_(max_idle_bytes) {}
  BufferPool(const BufferPool&) = delete;
  BufferPool& operator=(const BufferPool&) = delete;

  // A buffer of `size` bytes with undefined contents: an idle one large
  // enough if there is one, else a new one.
  Lease Take(std::size_t size);
  // From `pool` when there is one; else a new buffer the lease frees.
  static Lease TakeFrom(BufferPool* pool, std::size_t size);
  // Idle buffers held now, and their bytes (capacity), for tests.
  std::size_t idle_count() const;
  std::size_t idle_bytes() const;

 private:
  void Return(Bytes bytes);

  const std::size_t max_idle_bytes_;
  mutable std::mutex mutex_;
  std::vector<Bytes> idle_;     // Guarded by mutex_.
  std::size_t idle_bytes_ = 0;  // Sum of idle_ capacities; guarded by mutex_.
};

// How much a pool for shard-sized buffers keeps idle. There is no
// process-wide pool: its owner (an Array or Carray on its own, or the
// facade's Context for every array it opens) makes one. On a 2-core machine
// a sharded write and read hold about 200 MiB in flight; on larger machines
// the excess is freed as usual.
inline constexpr std::size_t kDefaultPoolIdleBytes = std::size_t{512} << 20;

}  // namespace chunkwise::core

#endif  // CHUNKWISE_CORE_BUFFER_POOL_H_
