// Ingest of a dense uint64 label volume into a labelmap database.
//
// The volume may sit at any voxel offset, block-aligned or not. Blocks it
// covers completely are replaced; blocks it covers in part keep the labels of
// the block visible at the version outside the volume. Blocks that end up all
// zero are not stored (a tombstone hides an older one). Then scales 1..N are
// rebuilt over the blocks touched (downsample.h). Blocks are encoded and
// written in parallel on a core::ThreadPool.
#ifndef CHUNKWISE_FORMATS_DVID_INGEST_H_
#define CHUNKWISE_FORMATS_DVID_INGEST_H_

#include <array>
#include <cstdint>
#include <span>
#include <vector>

#include "chunkwise/core/cancellation.h"
#include "chunkwise/core/npy.h"
#include "chunkwise/core/progress.h"
#include "formats/dvid/labelmap.h"

namespace chunkwise::core {
class ThreadPool;
}

namespace chunkwise::formats::dvid {

struct IngestOptions {
  std::uint32_t version = 0;                    // 0: the newest open version.
  std::array<std::int64_t, 3> offset{0, 0, 0};  // Voxel (z, y, x) of volume[0, 0, 0].
  // Build scales 1..N after scale 0; scales the database already has are
  // rebuilt over the touched blocks even when N is smaller.
  int downsample_scales = 0;
  core::ThreadPool* pool = nullptr;  // Null: one thread.
  core::ProgressMode progress = core::ProgressMode::kQuiet;
  core::ProgressObserver* observer = nullptr;  // Told of the block counts; not owned.
  // Checked before each block and scale; may be null (not owned). Cancelled
  // leaves every block written whole, and the scales not yet built unbuilt.
  const core::Cancellation* cancellation = nullptr;
};

struct IngestSummary {
  std::uint32_t version = 0;
  BlockBox blocks;                            // Scale-0 blocks the volume touches.
  std::vector<std::uint64_t> blocks_written;  // Per scale.
  std::vector<std::uint64_t> blocks_deleted;  // Per scale: tombstones written.
  std::uint64_t blocks_skipped = 0;           // Scale 0 blocks left absent (all zero).
};

// Ingests `volume`, C order with `shape` (z, y, x). InvalidArgument if
// volume.size() != prod(shape), the version is committed or unknown, or the
// offset puts blocks outside the int32 block range; errors of the database.
Result<IngestSummary> IngestVolume(Labelmap& labelmap, std::span<const std::uint64_t> volume,
                                   std::array<std::int64_t, 3> shape, const IngestOptions& options);

// A 3-d array of unsigned (or non-negative signed) integers of any width,
// byte order and memory order, as uint64 labels in C order; `shape` receives
// its (z, y, x) extents. InvalidArgument naming `name` for another rank or
// dtype, or a negative label.
Result<std::vector<std::uint64_t>> LabelVolumeFromNpy(const core::NpyArray& array,
                                                      std::array<std::int64_t, 3>& shape,
                                                      std::string_view name);

}  // namespace chunkwise::formats::dvid

#endif  // CHUNKWISE_FORMATS_DVID_INGEST_H_
