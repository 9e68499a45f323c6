// libFuzzer target: the DVID label block decoder and validator.
//
// Inputs starting with 'E' are structured: the rest fills a 16³ volume of up
// to 17 labels, which is encoded and then corrupted at positions the input
// names, so the fuzzer reaches the sub-block and bit-packing paths that
// random bytes rarely get past the header to. Other inputs are decoded as
// they are. DecodeLabelBlock must return a value or an error, never read
// outside its input, and never allocate past its 64³-voxel limit. The decoder
// and the kDecodable validator must agree; a decoded block re-encoded by our
// encoder must pass the canonical rules and decode to the same voxels.
#include <algorithm>
#include <cstdlib>
#include <vector>

#include "chunkwise/core/bytes.h"
#include "formats/dvid/label_block.h"

namespace {

namespace dvid = chunkwise::formats::dvid;
constexpr std::uint64_t kMaxVoxels = 64 * 64 * 64;

void Check(chunkwise::ByteView bytes) {
  const auto decoded = dvid::DecodeLabelBlock(bytes, "fuzz", kMaxVoxels);
  const auto header = dvid::ReadLabelBlockHeader(bytes, "fuzz");
  const bool within_limit = header.ok() && header->shape.num_voxels() <= kMaxVoxels;
  const bool valid =
      dvid::ValidateLabelBlock(bytes, dvid::LabelBlockCheck::kDecodable, "fuzz").ok();
  if (within_limit && decoded.ok() != valid) std::abort();
  (void)dvid::ValidateLabelBlock(bytes, dvid::LabelBlockCheck::kCanonical, "fuzz");
  if (!decoded.ok()) return;
  const auto encoded = dvid::EncodeLabelBlock(decoded->voxels, decoded->shape);
  if (!encoded.ok()) std::abort();
  if (!dvid::ValidateLabelBlock(*encoded, dvid::LabelBlockCheck::kCanonical, "re-encoded").ok()) {
    std::abort();
  }
  const auto again = dvid::DecodeLabelBlock(*encoded, "re-encoded", kMaxVoxels);
  if (!again.ok() || again->voxels != decoded->voxels) std::abort();
}

// A 16³ block encoded from the input, then corrupted: each (u16 position,
// xor) triple after the first 64 input bytes flips bits at that position.
chunkwise::Bytes StructuredBlock(const std::uint8_t* data, std::size_t size) {
  const dvid::BlockShape shape{2, 2, 2};
  std::vector<std::uint64_t> voxels(shape.num_voxels());
  const std::size_t pattern = std::min<std::size_t>(size, 64);
  for (std::size_t i = 0; i < voxels.size(); ++i) {
    voxels[i] = pattern == 0 ? 0 : data[i % pattern] % 17;
  }
  chunkwise::Bytes block = *dvid::EncodeLabelBlock(voxels, shape);
  for (std::size_t i = pattern; i + 2 < size; i += 3) {
    block[(data[i] | std::size_t{data[i + 1]} << 8) % block.size()] ^= data[i + 2];
  }
  return block;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size > 0 && data[0] == 'E') {
    const chunkwise::Bytes block = StructuredBlock(data + 1, size - 1);
    Check(block);
  } else {
    Check(chunkwise::ByteView(data, size));
  }
  return 0;
}
