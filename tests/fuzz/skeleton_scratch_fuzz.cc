// libFuzzer target: a split skeleton job's scratch objects (pipelines/
// skeletons/skeleton_scratch.h) from arbitrary bytes. Decoding must return a
// table or an error; a decoded label table's boxes lie inside the volume and
// hold their voxel counts, a decoded part's skeletons (a vectors job's) are
// in label order, each with its figures, and both kinds encode back to the
// same bytes.
#include <cstdlib>

#include "pipelines/skeletons/skeleton_scratch.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace chunkwise::pipelines::skeletons;
  const chunkwise::ByteView bytes(data, size);
  const std::array<std::int64_t, 3> shape{64, 1 << 20, 3};
  for (std::uint32_t parts = 1; parts <= 2; ++parts) {
    const SkeletonScratchStamp stamp{parts, parts - 1};
    auto table = DecodeLabelTable(bytes, stamp, shape, "fuzz/labels/0");
    if (table.ok()) {
      for (const auto& [label, extent] : *table) {
        std::uint64_t voxels = 1;
        for (int a = 0; a < 3; ++a) {
          if (extent.box.start[a] < 0 || extent.box.start[a] >= extent.box.stop[a] ||
              extent.box.stop[a] > shape[a]) {
            std::abort();
          }
          voxels *= static_cast<std::uint64_t>(extent.box.stop[a] - extent.box.start[a]);
        }
        if (label == 0 || extent.voxels == 0 || extent.voxels > voxels) std::abort();
      }
      if (EncodeLabelTable(stamp, *table).size() != size) std::abort();
    }
    auto part = DecodeSkeletonizedPart(bytes, stamp, "fuzz/skeletonized/0");
    if (part.ok()) {
      std::uint64_t previous = 0;
      for (const Skeleton& skeleton : part->skeletons) {
        if (skeleton.label <= previous || !part->labels.contains(skeleton.label)) std::abort();
        previous = skeleton.label;
      }
      if (EncodeSkeletonizedPart(stamp, *part).size() != size) std::abort();
    }
  }
  return 0;
}
