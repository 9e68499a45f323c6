// libFuzzer target: a multi-resolution mesh manifest and a Draco fragment
// (formats/precomputed/multires_mesh.h) from arbitrary bytes. Decoding must
// return a value or an error: a decoded manifest has a size per position and
// encodes back to the same bytes; a decoded fragment's positions lie inside
// [0, 2^bits - 1] and its triangles index its vertices.
#include <algorithm>
#include <cstdint>
#include <cstdlib>

#include "formats/precomputed/multires_mesh.h"

namespace {

void CheckFragment(const chunkwise::ByteView bytes, int bits) {
  using namespace chunkwise::formats::precomputed;
  auto mesh = DecodeDracoFragment(bytes, bits, "fuzz:fragment");
  if (!mesh.ok()) return;
  if (mesh->vertices.size() % 3 != 0 || mesh->triangles.size() % 3 != 0) std::abort();
  const std::uint32_t top = (std::uint32_t{1} << bits) - 1;
  for (const std::uint32_t coordinate : mesh->vertices) {
    if (coordinate > top) std::abort();
  }
  for (const std::uint32_t index : mesh->triangles) {
    if (index >= mesh->vertices.size() / 3) std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace chunkwise::formats::precomputed;
  const chunkwise::ByteView bytes(data, size);
  auto manifest = DecodeMultiresManifest(bytes, "fuzz.index");
  if (manifest.ok()) {
    for (const MultiresManifest::Lod& lod : manifest->lods) {
      if (lod.positions.size() != lod.sizes.size()) std::abort();
    }
    const chunkwise::Bytes again = EncodeMultiresManifest(*manifest);
    if (again.size() != size || !std::equal(again.begin(), again.end(), data)) std::abort();
  }
  CheckFragment(bytes, 10);
  CheckFragment(bytes, 16);
  return 0;
}
