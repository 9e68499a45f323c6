// libFuzzer target: a precomputed skeleton file (with its radius attribute)
// from arbitrary bytes. Decoding must return a skeleton or an error; a decoded
// skeleton's edges name its vertices, it has one radius a vertex, and it
// encodes back to the same bytes.
#include <cstdlib>

#include "formats/precomputed/skeleton_file.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace chunkwise::formats::precomputed;
  auto skeleton = DecodeSkeleton(chunkwise::ByteView(data, size), "fuzz/1");
  if (!skeleton.ok()) return 0;
  for (const auto& edge : skeleton->edges) {
    if (edge[0] >= skeleton->vertices.size() || edge[1] >= skeleton->vertices.size()) std::abort();
  }
  if (skeleton->radii.size() != skeleton->vertices.size()) std::abort();
  if (EncodeSkeleton(*skeleton).size() != size) std::abort();
  return 0;
}
