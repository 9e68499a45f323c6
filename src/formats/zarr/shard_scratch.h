// ShardScratch: byte buffers that the inner chunks of shard calls borrow and
// give back: an inner chunk's encoded bytes read from a file, and a decoded
// inner chunk that cannot go straight into the caller's array.
//
// Reused memory is what makes them cheap: a fresh chunk-sized buffer costs a
// page fault per 4 KiB (core/buffer_pool.h has the figures). Whoever makes
// shard calls owns one and passes it with each call (ShardCallContext); an
// Array owns one for its life. A call given none makes one for itself, whose
// buffers last that call. Nothing is kept per thread, so a nested shard
// simply borrows another buffer.
//
// A buffer grown past kMaxKeptBytes (a hostile index can ask for a chunk as
// large as its shard) is freed when given back. Thread-safe: each task of a
// parallel call borrows its own.
#ifndef CHUNKWISE_FORMATS_ZARR_SHARD_SCRATCH_H_
#define CHUNKWISE_FORMATS_ZARR_SHARD_SCRATCH_H_

#include <cstddef>
#include <mutex>
#include <vector>

#include "chunkwise/core/bytes.h"

namespace chunkwise::formats::zarr {

class ShardScratch {
 public:
  static constexpr std::size_t kMaxKeptBytes = std::size_t{64} << 20;

  // A buffer on loan (empty or holding what its last borrower left); it goes
  // back when the lease ends.
  class Lease {
   public:
    explicit Lease(ShardScratch& owner) : owner_(owner), bytes_(owner.Take()) {}
    ~Lease() { owner_.Give(std::move(bytes_)); }
    Lease(const Lease&) = delete;
    Lease& operator=(const Lease&) = delete;

    Bytes& get() { return bytes_; }

   private:
    ShardScratch& owner_;
    Bytes bytes_;
  };

  ShardScratch() = default;
  ShardScratch(const ShardScratch&) = delete;
  ShardScratch& operator=(const ShardScratch&) = delete;

  // Idle buffers held now, and their bytes (capacity), for tests.
  std::size_t idle_count() const;
  std::size_t idle_bytes() const;

 private:
  Bytes Take();
  void Give(Bytes bytes);

  mutable std::mutex mutex_;
  std::vector<Bytes> idle_;  // Guarded by mutex_.
};

}  // namespace chunkwise::formats::zarr

#endif  // CHUNKWISE_FORMATS_ZARR_SHARD_SCRATCH_H_
