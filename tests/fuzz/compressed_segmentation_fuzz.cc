// libFuzzer target: the compressed_segmentation decoder on arbitrary bytes.
//
// The first 4 bytes choose the layout (extent and block edges 1..16 each,
// 1 or 2 channels, uint32 or uint64); the rest is the encoded chunk. Decode
// must return OK or Corruption and never read outside the input. When it
// succeeds, encoding the decoded voxels and decoding that again must give
// the same voxels.
#include <cstdlib>
#include <vector>

#include "codec/compressed_segmentation.h"

namespace {

using chunkwise::Bytes;
using chunkwise::ByteView;
using chunkwise::StatusCode;
using chunkwise::codec::SegmentationLayout;

template <typename T>
void Check(ByteView encoded, const SegmentationLayout& layout) {
  std::vector<T> voxels(layout.num_voxels());
  const chunkwise::Status status =
      chunkwise::codec::DecodeCompressedSegmentation(encoded, layout, std::span<T>(voxels), "fuzz");
  if (!status.ok()) {
    if (status.code() != StatusCode::kCorruption) std::abort();
    return;
  }
  Bytes again;
  if (!chunkwise::codec::EncodeCompressedSegmentation(std::span<const T>(voxels), layout, again)
           .ok()) {
    std::abort();
  }
  std::vector<T> round_trip(voxels.size());
  if (!chunkwise::codec::DecodeCompressedSegmentation(again, layout, std::span<T>(round_trip),
                                                      "again")
           .ok() ||
      round_trip != voxels) {
    std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 4) return 0;
  SegmentationLayout layout;
  layout.extent = {1 + (data[0] & 15), 1 + (data[0] >> 4), 1 + (data[1] & 15)};
  layout.block = {1 + (data[1] >> 4), 1 + (data[2] & 15), 1 + (data[2] >> 4)};
  layout.channels = 1 + (data[3] & 1);
  const ByteView encoded(data + 4, size - 4);
  if (data[3] & 2) {
    Check<std::uint64_t>(encoded, layout);
  } else {
    Check<std::uint32_t>(encoded, layout);
  }
  return 0;
}
