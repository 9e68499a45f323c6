// libFuzzer target: a split meshing job's scratch objects
// (pipelines/meshing/mesh_scratch.h) from arbitrary bytes, read as each of
// its three kinds. Decoding must return the object or Corruption, never
// crash; pieces' and merged meshes' triangles name vertices they have, and a
// decoded merged part encodes back to the same bytes.
#include <cstdlib>
#include <map>
#include <string>

#include "pipelines/meshing/mesh_scratch.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace chunkwise::pipelines;
  const chunkwise::ByteView bytes(data, size);
  const std::string name = "fuzz/.chunkwise-scratch/0/0";
  const ScratchStamp stamp{2, 0, 0};
  std::map<std::uint64_t, LabelPieces> labels;
  if (DecodePieces(bytes, stamp, 64, name, labels).ok()) {
    for (const auto& [label, entry] : labels) {
      for (const auto& [chunk, piece] : entry.pieces) {
        if (chunk >= 64) std::abort();
        for (const std::uint32_t index : piece.triangles) {
          if (index >= piece.keys.size()) std::abort();
        }
      }
    }
  }
  (void)DecodeLabelList(bytes, stamp, name);
  auto merged = DecodeMergedPart(bytes, stamp, name);
  if (merged.ok()) {
    for (const auto& [label, meshes] : merged->levels) {
      for (const LabelMesh& mesh : meshes) {
        for (const std::uint32_t index : mesh.triangles) {
          if (index >= mesh.num_vertices()) std::abort();
        }
      }
    }
    if (EncodeMergedPart(stamp, *merged).size() != size) std::abort();
  }
  return 0;
}
