// Boxes of a skeleton job's source read through a small cache of its decoded
// chunks, shared by the threads skeletonizing labels: a chunk under the boxes
// of many small labels is read and decoded once, not once a label (a 64^3
// chunk of 4^3 labels would otherwise be decoded some 2000 times). Boxes
// spanning more chunks than the cache holds are read directly.
#ifndef CHUNKWISE_PIPELINES_SKELETONS_SOURCE_CHUNKS_H_
#define CHUNKWISE_PIPELINES_SKELETONS_SOURCE_CHUNKS_H_

#include <array>
#include <cstdint>
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

 private:
  using Chunk = std::shared_ptr<const std::vector<std::uint64_t>>;
  Result<Chunk> Get(const std::array<std::int64_t, 3>& index);

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
