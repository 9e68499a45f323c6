// A label volume held in memory for the skeleton tests, and the
// SkeletonSource (pipelines/skeletons/skeleton_job.h) that reads its boxes,
// as a stored array's chunks would be read.
#ifndef CHUNKWISE_TESTS_UNIT_PIPELINES_SYNTHETIC_LABELS_H_
#define CHUNKWISE_TESTS_UNIT_PIPELINES_SYNTHETIC_LABELS_H_

#include <array>
#include <cstdint>
#include <vector>

#include "pipelines/skeletons/skeleton_job.h"
#include "pipelines/skeletons/skeletonize.h"

namespace chunkwise::pipelines::skeletons::test {

struct SyntheticLabels {
  std::array<std::int64_t, 3> shape;          // z, y, x
  std::vector<std::uint64_t> labels;          // C order
  std::array<double, 3> voxel_size{1, 1, 1};  // x, y, z
  std::array<double, 3> origin{0, 0, 0};      // x, y, z
  std::uint64_t at(std::int64_t z, std::int64_t y, std::int64_t x) const {
    return labels[(z * shape[1] + y) * shape[2] + x];
  }
  LabelVolume view() const { return {labels, shape, voxel_size, origin}; }
};

// A source over `volume` (which must outlive it) scanned in chunks of `chunk`.
inline SkeletonSource SourceOf(const SyntheticLabels& volume, std::array<std::int64_t, 3> chunk) {
  SkeletonSource source;
  source.shape = volume.shape;
  source.chunk = chunk;
  source.voxel_size = volume.voxel_size;
  source.origin = volume.origin;
  source.read = [&volume](const core::Region& region) -> Result<std::vector<std::uint64_t>> {
    std::vector<std::uint64_t> out;
    out.reserve(static_cast<std::size_t>(region.num_elements()));
    for (std::int64_t z = region.start()[0]; z < region.stop()[0]; ++z)
      for (std::int64_t y = region.start()[1]; y < region.stop()[1]; ++y)
        for (std::int64_t x = region.start()[2]; x < region.stop()[2]; ++x)
          out.push_back(volume.at(z, y, x));
    return out;
  };
  return source;
}

}  // namespace chunkwise::pipelines::skeletons::test

#endif  // CHUNKWISE_TESTS_UNIT_PIPELINES_SYNTHETIC_LABELS_H_
