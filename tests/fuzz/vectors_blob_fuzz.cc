// libFuzzer target: the zarr-vectors blob decoders on arbitrary bytes — the
// ragged blob, link blobs and cross-chunk cells of link width 1..4, the
// ZVFG fragment index and layout 0.9's object manifests.
//
// Nothing may crash or read out of bounds. A cell blob that decodes must
// encode to a blob that decodes to the same records; a decoded record's
// perm_idx is checked through RestoreInputOrder. So must a manifest.
#include <cstddef>
#include <cstdint>
#include <cstdlib>

#include "formats/vectors/cross_chunk_record.h"
#include "formats/vectors/fragment_index.h"
#include "formats/vectors/object_index.h"
#include "formats/vectors/ragged_blob.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  namespace vectors = chunkwise::formats::vectors;
  const chunkwise::ByteView bytes(data, size);
  (void)vectors::DecodeRaggedBlob(bytes, "fuzz");
  (void)vectors::DecodeFragmentIndex(bytes, "fuzz");
  if (const auto manifest = vectors::DecodeObjectManifest(bytes, "fuzz"); manifest.ok()) {
    const auto again =
        vectors::DecodeObjectManifest(vectors::EncodeObjectManifest(*manifest), "fuzz");
    if (!again.ok() || *again != *manifest) std::abort();
  }
  for (int width = 1; width <= 4; ++width) {
    (void)vectors::DecodeLinkBlob(bytes, width, "fuzz");
    const auto records = vectors::DecodeCellBlob(bytes, width, "fuzz");
    if (!records.ok()) continue;
    const auto again = vectors::DecodeCellBlob(vectors::EncodeCellBlob(*records), width, "fuzz");
    if (!again.ok() || *again != *records) std::abort();
    const std::vector<vectors::ChunkCoord> chunks(width);
    for (const vectors::CellRecord& record : *records)
      (void)vectors::RestoreInputOrder(chunks, record);
  }
  return 0;
}
