// Boxes of a skeleton job's source read through a small cache of its decoded
// chunks, shared by the threads skeletonizing labels: a chunk under the boxes
// of many small labels is read and decoded once, not once a label (a 64^3
// chunk of 4^3 labels would otherwise be decoded some 2000 times). Boxes
// spanning more chunks than the cache holds are read directly.
#ifndef CHUNKWISE_PIPELINES_SKELETONS_SOURCE_CHUNKS_H_
#define CHUNKWISE_PIPELINES_SKELETONS_SOURCE_CHUNKS_H_

#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

#include "chunkwise/core/result.h"
#include "pipelines/skeletons/skeleton_job.h"

namespace chunkwise::pipelines::skeletons {

// The decoded chunks the cache keeps at most, in bytes (widened labels).
inline constexpr std::uint64_t kSourceChunkCacheBytes = std::uint64_t{64} << 20;

class SourceChunks {
 public:
  explicit SourceChunks(const SkeletonSource& source,
                        std::uint64_t capacity = kSourceChunkCacheBytes);
  // The labels of `box` (inside the volume), C order. Thread-safe.
  Result<std::vector<std::uint64_t>> Read(const VoxelBox& box);
  // The same into `out`, whose capacity is reused: a thread reading box
  // after box touches its pages once, not once a box.
  Status ReadInto(const VoxelBox& box, std::vector<std::uint64_t>& out);

  // Calls `row(z, y, x, labels, n)` for every row of `box` (inside the
  // volume) piece by piece, chunk by chunk: `labels` holds the n labels of
  // voxels (z, y, x) to (z, y, x + n - 1). Nothing of the box's size is
  // allocated or copied: a label's mask is made straight from the chunks.
  // A box of more chunks than the cache keeps for one read takes the cached
  // ones from it and reads the others one at a time without keeping them.
  // Thread-safe.
  using RowVisitor = std::function<void(std::int64_t z, std::int64_t y, std::int64_t x,
                                        const std::uint64_t* labels, std::int64_t n)>;
  Status VisitRows(const VoxelBox& box, const RowVisitor& row);

 private:
  using Chunk = std::shared_ptr<const std::vector<std::uint64_t>>;
  // The chunk at grid `index`; read when the cache lacks it, and kept there
  // when `keep`.
  Result<Chunk> Get(const std::array<std::int64_t, 3>& index, bool keep = true);
  // Whether a box spanning `chunks` chunks goes past what the cache keeps
  // for one read (it would only churn the cache).
  bool TooLarge(std::uint64_t chunks) const;
  // The visit of VisitRows over the chunks of `box`, each kept when `keep`.
  Status VisitChunks(const VoxelBox& box, bool keep, const RowVisitor& row);

  const SkeletonSource& source_;
  std::uint64_t capacity_;
  std::uint64_t chunk_bytes_;
  std::mutex mutex_;
  struct Entry {
    Chunk chunk;
    std::uint64_t used = 0;
  };
  std::map<std::array<std::int64_t, 3>, Entry> chunks_;
  std::uint64_t clock_ = 0;
};

}  // namespace chunkwise::pipelines::skeletons

#endif  // CHUNKWISE_PIPELINES_SKELETONS_SOURCE_CHUNKS_H_
