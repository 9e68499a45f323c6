#include "formats/dvid/downsample.h"

#include <algorithm>
#include <atomic>

#include "chunkwise/core/thread_pool.h"

namespace chunkwise::formats::dvid {
namespace {

constexpr std::int64_t kHalf = kBlockEdge / 2;

std::int32_t CeilHalf(std::int32_t v) {
  return static_cast<std::int32_t>(FloorDiv(std::int64_t{v} + 1, 2));
}

BlockCoord CoordOf(const BlockBox& box, std::size_t index) {
  const std::int64_t nx = box.end.x - box.begin.x;
  const std::int64_t ny = box.end.y - box.begin.y;
  const auto i = static_cast<std::int64_t>(index);
  return {static_cast<std::int32_t>(box.begin.x + i % nx),
          static_cast<std::int32_t>(box.begin.y + (i / nx) % ny),
          static_cast<std::int32_t>(box.begin.z + i / (nx * ny))};
}

// Builds one parent block from its children; returns whether it holds a label.
Result<bool> BuildParent(const Labelmap& labelmap, std::uint32_t version, int scale,
                         const BlockCoord& parent, std::span<std::uint64_t> out) {
  std::vector<std::uint64_t> child(kBlockVoxels);
  std::fill(out.begin(), out.end(), 0);
  bool any = false;
  for (int oz = 0; oz < 2; ++oz) {
    for (int oy = 0; oy < 2; ++oy) {
      for (int ox = 0; ox < 2; ++ox) {
        const BlockCoord coord{2 * parent.x + ox, 2 * parent.y + oy, 2 * parent.z + oz};
        CHUNKWISE_ASSIGN_OR_RETURN(const bool exists,
                                   labelmap.ReadBlockVoxels(version, scale - 1, coord, child));
        if (!exists) continue;
        DownsampleIntoOctant(child, oz, oy, ox, out);
        any = true;
      }
    }
  }
  return any && std::any_of(out.begin(), out.end(), [](std::uint64_t v) { return v != 0; });
}

}  // namespace

std::uint64_t ModeOfEight(std::array<std::uint64_t, 8> labels) {
  if (std::all_of(labels.begin() + 1, labels.end(),
                  [&](std::uint64_t v) { return v == labels[0]; })) {
    return labels[0];
  }
  std::sort(labels.begin(), labels.end());
  std::uint64_t best = labels[0];
  int best_run = 0;
  for (int i = 0; i < 8;) {
    int j = i;
    while (j < 8 && labels[j] == labels[i]) ++j;
    if (j - i > best_run) {  // Strictly greater: ties keep the smaller label, seen first.
      best_run = j - i;
      best = labels[i];
    }
    i = j;
  }
  return best;
}

void DownsampleIntoOctant(std::span<const std::uint64_t> child, int oz, int oy, int ox,
                          std::span<std::uint64_t> parent) {
  for (std::int64_t z = 0; z < kHalf; ++z) {
    for (std::int64_t y = 0; y < kHalf; ++y) {
      const std::uint64_t* row00 = child.data() + ((2 * z) * kBlockEdge + 2 * y) * kBlockEdge;
      const std::uint64_t* row01 = row00 + kBlockEdge;
      const std::uint64_t* row10 = row00 + kBlockEdge * kBlockEdge;
      const std::uint64_t* row11 = row10 + kBlockEdge;
      std::uint64_t* out = parent.data() +
                           ((oz * kHalf + z) * kBlockEdge + oy * kHalf + y) * kBlockEdge +
                           ox * kHalf;
      for (std::int64_t x = 0; x < kHalf; ++x) {
        const std::int64_t c = 2 * x;
        out[x] = ModeOfEight({row00[c], row00[c + 1], row01[c], row01[c + 1], row10[c],
                              row10[c + 1], row11[c], row11[c + 1]});
      }
    }
  }
}

BlockBox ParentBlocks(const BlockBox& children) {
  BlockBox parents;
  parents.begin = {static_cast<std::int32_t>(FloorDiv(children.begin.x, 2)),
                   static_cast<std::int32_t>(FloorDiv(children.begin.y, 2)),
                   static_cast<std::int32_t>(FloorDiv(children.begin.z, 2))};
  parents.end = {CeilHalf(children.end.x), CeilHalf(children.end.y), CeilHalf(children.end.z)};
  return parents;
}

Result<DownsampleSummary> DownsampleBlocks(Labelmap& labelmap, std::uint32_t version, int scale,
                                           const BlockBox& parents, core::ThreadPool* pool,
                                           core::ProgressReporter* progress) {
  if (scale < 1) return Status::InvalidArgument("downsampling builds scales 1 and up");
  if (parents.empty()) return DownsampleSummary{};
  std::atomic<std::uint64_t> written{0}, deleted{0};
  const std::uint64_t count = std::uint64_t(parents.end.x - parents.begin.x) *
                              std::uint64_t(parents.end.y - parents.begin.y) *
                              std::uint64_t(parents.end.z - parents.begin.z);
  auto build = [&](std::size_t index) -> Status {
    const BlockCoord coord = CoordOf(parents, index);
    std::vector<std::uint64_t> block(kBlockVoxels);
    CHUNKWISE_ASSIGN_OR_RETURN(const bool labelled,
                               BuildParent(labelmap, version, scale, coord, block));
    if (labelled) {
      CHUNKWISE_RETURN_IF_ERROR(labelmap.PutBlock(version, scale, coord, block));
      ++written;
    } else {
      CHUNKWISE_ASSIGN_OR_RETURN(const std::optional<Bytes> old,
                                 labelmap.GetBlock(version, scale, coord));
      if (old.has_value()) {
        CHUNKWISE_RETURN_IF_ERROR(labelmap.DeleteBlock(version, scale, coord));
        ++deleted;
      }
    }
    if (progress != nullptr) progress->Add(1);
    return Status::Ok();
  };
  if (pool != nullptr) {
    CHUNKWISE_RETURN_IF_ERROR(pool->ParallelFor(count, build));
  } else {
    for (std::size_t i = 0; i < count; ++i) CHUNKWISE_RETURN_IF_ERROR(build(i));
  }
  return DownsampleSummary{written.load(), deleted.load()};
}

}  // namespace chunkwise::formats::dvid
