// The scratch objects a split meshing job (pipelines/meshing/mesh_parts.h)
// passes between its steps: a small private binary format, little-endian,
// read back with every length checked, so that an object cut short or not
// written by this version is Corruption naming its key, never a crash.
//
// Each object starts with a 4-byte magic naming its kind, a version, and the
// job's parts and the writing part, which the reader checks against what it
// expects (an object left by a job of other parts is refused).
#ifndef CHUNKWISE_PIPELINES_MESHING_MESH_SCRATCH_H_
#define CHUNKWISE_PIPELINES_MESHING_MESH_SCRATCH_H_

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "chunkwise/core/bytes.h"
#include "chunkwise/core/result.h"
#include "pipelines/meshing/label_meshes.h"
#include "pipelines/meshing/mesh_levels.h"
#include "pipelines/meshing/mesh_output.h"

namespace chunkwise::pipelines {

// Who wrote a scratch object: part `part` of a job of `parts`, for `group`
// (pieces) or 0.
struct ScratchStamp {
  std::uint32_t parts = 1;
  std::uint32_t part = 0;
  std::uint64_t group = 0;
};

// One label's share of a mesh part: its voxels there and its pieces, each
// with the index of its chunk.
struct LabelPieces {
  std::uint64_t voxels = 0;
  std::vector<std::pair<std::uint64_t, MeshPiece>> pieces;
};

// The pieces one mesh part found of one group's labels.
Bytes EncodePieces(const ScratchStamp& stamp, std::uint64_t chunks,
                   const std::map<std::uint64_t, LabelPieces>& labels);
// Adds the object's labels to `labels` (pieces appended, voxels added).
// Corruption naming `name` for bytes that do not parse, a stamp other than
// `stamp`, a chunk index of `chunks` or more, or a triangle naming a vertex
// its piece has not.
Status DecodePieces(ByteView bytes, const ScratchStamp& stamp, std::uint64_t chunks,
                    const std::string& name, std::map<std::uint64_t, LabelPieces>& labels);

// The labels one mesh part found, sorted.
Bytes EncodeLabelList(const ScratchStamp& stamp, const std::vector<std::uint64_t>& labels);
Result<std::vector<std::uint64_t>> DecodeLabelList(ByteView bytes, const ScratchStamp& stamp,
                                                   const std::string& name);

// What one merge part wrote, and its labels' voxel counts; for a
// zarr-vectors store, which the last step writes whole, also its labels'
// meshes, each level's.
struct MergedPart {
  MeshOutputSummary summary;
  std::map<std::uint64_t, std::uint64_t> voxel_counts;
  LeveledMeshes levels;
};
Bytes EncodeMergedPart(const ScratchStamp& stamp, const MergedPart& merged);
Result<MergedPart> DecodeMergedPart(ByteView bytes, const ScratchStamp& stamp,
                                    const std::string& name);

}  // namespace chunkwise::pipelines

#endif  // CHUNKWISE_PIPELINES_MESHING_MESH_SCRATCH_H_
