// libFuzzer target: a legacy mesh fragment and a mesh manifest from arbitrary
// bytes. Decoding must return a mesh or an error; a decoded mesh's indices lie
// inside its vertices and it encodes back to the same bytes.
#include <cstdlib>
#include <string_view>

#include "formats/precomputed/legacy_mesh.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace chunkwise::formats::precomputed;
  const chunkwise::ByteView bytes(data, size);
  auto mesh = DecodeLegacyFragment(bytes, "fuzz:0:all");
  if (mesh.ok()) {
    for (const std::uint32_t index : mesh->triangles) {
      if (index >= mesh->num_vertices()) std::abort();
    }
    const chunkwise::Bytes again = EncodeLegacyFragment(*mesh);
    if (again.size() != size) std::abort();
  }
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto fragments = ParseLegacyManifest(text, "fuzz:0");
  if (fragments.ok()) {
    auto back = ParseLegacyManifest(LegacyManifestText(*fragments), "again");
    if (!back.ok() || *back != *fragments) std::abort();
  }
  return 0;
}
