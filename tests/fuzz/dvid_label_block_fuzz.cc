// libFuzzer target: the DVID label block decoder and validator on arbitrary bytes.
//
// DecodeLabelBlock must return a value or an error, never read outside the
// input, and never allocate past its 64³-voxel limit. The decoder and the
// kDecodable validator must agree; a decoded block re-encoded by our encoder
// must pass the canonical rules and decode to the same voxels.
#include <cstdlib>

#include "chunkwise/core/bytes.h"
#include "chunkwise/formats/dvid/label_block.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  namespace dvid = chunkwise::formats::dvid;
  const chunkwise::ByteView bytes(data, size);
  constexpr std::uint64_t kMaxVoxels = 64 * 64 * 64;
  const auto decoded = dvid::DecodeLabelBlock(bytes, "fuzz", kMaxVoxels);
  const auto header = dvid::ReadLabelBlockHeader(bytes, "fuzz");
  const bool within_limit = header.ok() && header->shape.num_voxels() <= kMaxVoxels;
  const bool valid =
      dvid::ValidateLabelBlock(bytes, dvid::LabelBlockCheck::kDecodable, "fuzz").ok();
  if (within_limit && decoded.ok() != valid) std::abort();
  (void)dvid::ValidateLabelBlock(bytes, dvid::LabelBlockCheck::kCanonical, "fuzz");
  if (!decoded.ok()) return 0;
  const auto encoded = dvid::EncodeLabelBlock(decoded->voxels, decoded->shape);
  if (!encoded.ok()) std::abort();
  if (!dvid::ValidateLabelBlock(*encoded, dvid::LabelBlockCheck::kCanonical, "re-encoded").ok()) {
    std::abort();
  }
  const auto again = dvid::DecodeLabelBlock(*encoded, "re-encoded", kMaxVoxels);
  if (!again.ok() || again->voxels != decoded->voxels) std::abort();
  return 0;
}
