#include "pipelines/skeletons/source_chunks.h"

#include <algorithm>
#include <utility>

namespace chunkwise::pipelines::skeletons {
namespace {

core::Region ToRegion(const VoxelBox& box) {
  return core::Region(core::Coord(box.start.begin(), box.start.end()),
                      core::Coord(box.stop.begin(), box.stop.end()));
}

}  // namespace

SourceChunks::SourceChunks(const SkeletonSource& source, std::uint64_t capacity)
    : source_(source), capacity_(capacity), chunk_bytes_(8) {
  for (std::int64_t c : source.chunk)
    chunk_bytes_ *= static_cast<std::uint64_t>(std::max<std::int64_t>(c, 1));
}

Result<SourceChunks::Chunk> SourceChunks::Get(const std::array<std::int64_t, 3>& index, bool keep) {
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    const auto it = chunks_.find(index);
    if (it != chunks_.end()) {
      it->second.used = ++clock_;
      return it->second.chunk;
    }
  }
  // Read outside the lock; two threads missing one chunk both read it.
  VoxelBox box;
  for (int a = 0; a < 3; ++a) {
    box.start[a] = index[a] * source_.chunk[a];
    box.stop[a] = std::min(box.start[a] + source_.chunk[a], source_.shape[a]);
  }
  CHUNKWISE_ASSIGN_OR_RETURN(std::vector<std::uint64_t> labels, source_.read(ToRegion(box)));
  auto chunk = std::make_shared<const std::vector<std::uint64_t>>(std::move(labels));
  if (!keep) return chunk;
  const std::lock_guard<std::mutex> lock(mutex_);
  const std::uint64_t room = std::max<std::uint64_t>(capacity_ / chunk_bytes_, 1);
  while (chunks_.size() >= room) {
    auto oldest = std::min_element(
        chunks_.begin(), chunks_.end(),
        [](const auto& a, const auto& b) { return a.second.used < b.second.used; });
    chunks_.erase(oldest);
  }
  chunks_[index] = Entry{chunk, ++clock_};
  return chunk;
}

bool SourceChunks::TooLarge(std::uint64_t chunks) const {
  return chunks * chunk_bytes_ > capacity_ / 2;
}

Result<std::vector<std::uint64_t>> SourceChunks::Read(const VoxelBox& box) {
  std::vector<std::uint64_t> out;
  CHUNKWISE_RETURN_IF_ERROR(ReadInto(box, out));
  return out;
}

namespace {

// Whether the source has a chunk grid; the chunks `box` spans when it does.
bool SpannedChunks(const SkeletonSource& source, const VoxelBox& box, std::uint64_t& spanned) {
  spanned = 1;
  for (int a = 0; a < 3; ++a) {
    if (source.chunk[a] <= 0) return false;
    spanned *= static_cast<std::uint64_t>((box.stop[a] - 1) / source.chunk[a] -
                                          box.start[a] / source.chunk[a] + 1);
  }
  return true;
}

}  // namespace

Status SourceChunks::ReadInto(const VoxelBox& box, std::vector<std::uint64_t>& out) {
  std::uint64_t spanned = 0;
  // A box of many chunks (a large label) would only churn the cache.
  if (!SpannedChunks(source_, box, spanned) || TooLarge(spanned)) {
    CHUNKWISE_ASSIGN_OR_RETURN(out, source_.read(ToRegion(box)));
    return Status();
  }
  const std::array<std::int64_t, 3> dims{box.stop[0] - box.start[0], box.stop[1] - box.start[1],
                                         box.stop[2] - box.start[2]};
  // Every voxel is copied below: no need to clear what is kept.
  out.resize(static_cast<std::size_t>(dims[0] * dims[1] * dims[2]));
  return VisitChunks(box, true,
                     [&](std::int64_t z, std::int64_t y, std::int64_t x,
                         const std::uint64_t* labels, std::int64_t n) {
                       std::copy(labels, labels + n,
                                 out.data() +
                                     ((z - box.start[0]) * dims[1] + (y - box.start[1])) * dims[2] +
                                     (x - box.start[2]));
                     });
}

Status SourceChunks::VisitRows(const VoxelBox& box, const RowVisitor& row) {
  std::uint64_t spanned = 0;
  if (!SpannedChunks(source_, box, spanned)) {
    CHUNKWISE_ASSIGN_OR_RETURN(const std::vector<std::uint64_t> labels,
                               source_.read(ToRegion(box)));
    const std::int64_t width = box.stop[2] - box.start[2];
    const std::uint64_t* at = labels.data();
    for (std::int64_t z = box.start[0]; z < box.stop[0]; ++z) {
      for (std::int64_t y = box.start[1]; y < box.stop[1]; ++y, at += width) {
        row(z, y, box.start[2], at, width);
      }
    }
    return Status();
  }
  return VisitChunks(box, !TooLarge(spanned), row);
}

Status SourceChunks::VisitChunks(const VoxelBox& box, bool keep, const RowVisitor& row) {
  std::array<std::int64_t, 3> first{}, last{};
  for (int a = 0; a < 3; ++a) {
    first[a] = box.start[a] / source_.chunk[a];
    last[a] = (box.stop[a] - 1) / source_.chunk[a];
  }
  std::array<std::int64_t, 3> g{};
  for (g[0] = first[0]; g[0] <= last[0]; ++g[0]) {
    for (g[1] = first[1]; g[1] <= last[1]; ++g[1]) {
      for (g[2] = first[2]; g[2] <= last[2]; ++g[2]) {
        CHUNKWISE_ASSIGN_OR_RETURN(const Chunk chunk, Get(g, keep));
        std::array<std::int64_t, 3> origin{}, size{}, lo{}, hi{};
        for (int a = 0; a < 3; ++a) {
          origin[a] = g[a] * source_.chunk[a];
          size[a] = std::min(origin[a] + source_.chunk[a], source_.shape[a]) - origin[a];
          lo[a] = std::max(box.start[a], origin[a]);
          hi[a] = std::min(box.stop[a], origin[a] + size[a]);
        }
        for (std::int64_t z = lo[0]; z < hi[0]; ++z) {
          for (std::int64_t y = lo[1]; y < hi[1]; ++y) {
            row(z, y, lo[2],
                chunk->data() + ((z - origin[0]) * size[1] + (y - origin[1])) * size[2] +
                    (lo[2] - origin[2]),
                hi[2] - lo[2]);
          }
        }
      }
    }
  }
  return Status();
}

}  // namespace chunkwise::pipelines::skeletons
