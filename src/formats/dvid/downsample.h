// Label downsampling for labelmap scales: each voxel of scale s + 1 is the
// most frequent label of its 2×2×2 group at scale s, ties going to the
// smaller label (0 counts like any other label). docs/formats/dvid.md gives
// the rule; DVID's own downres may break ties differently.
#ifndef CHUNKWISE_FORMATS_DVID_DOWNSAMPLE_H_
#define CHUNKWISE_FORMATS_DVID_DOWNSAMPLE_H_

#include <array>
#include <cstdint>
#include <span>

#include "chunkwise/core/progress.h"
#include "formats/dvid/labelmap.h"

namespace chunkwise::formats::dvid {

// The most frequent of eight labels; the smallest of those tied.
std::uint64_t ModeOfEight(std::array<std::uint64_t, 8> labels);

// Downsamples a 64³ `child` block into octant (oz, oy, ox) ∈ {0,1}³ of a
// 64³ `parent` block (its 32³ corner at 32·(oz, oy, ox)).
void DownsampleIntoOctant(std::span<const std::uint64_t> child, int oz, int oy, int ox,
                          std::span<std::uint64_t> parent);

struct DownsampleSummary {
  std::uint64_t blocks_written = 0;
  std::uint64_t blocks_deleted = 0;  // Tombstones where the children became empty.
};

// Rebuilds the blocks of `parents` (block coordinates at `scale` >= 1) at
// open `version` from their eight children at scale - 1, in parallel on
// `pool` (may be null). A parent whose children are all absent or zero is not
// stored (and gets a tombstone if an ancestor had one). Progress counts blocks.
Result<DownsampleSummary> DownsampleBlocks(Labelmap& labelmap, std::uint32_t version, int scale,
                                           const BlockBox& parents, core::ThreadPool* pool,
                                           core::ProgressReporter* progress);

// The blocks at scale s + 1 whose footprint covers `children` at scale s.
BlockBox ParentBlocks(const BlockBox& children);

}  // namespace chunkwise::formats::dvid

#endif  // CHUNKWISE_FORMATS_DVID_DOWNSAMPLE_H_
