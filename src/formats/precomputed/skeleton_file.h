// neuroglancer precomputed skeletons (docs/formats/precomputed-skeletons.md):
// the bytes of one segment's skeleton file, the skeleton directory's `info`,
// and SWC text for the same skeleton. Bytes only; no I/O.
#ifndef CHUNKWISE_FORMATS_PRECOMPUTED_SKELETON_FILE_H_
#define CHUNKWISE_FORMATS_PRECOMPUTED_SKELETON_FILE_H_

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "chunkwise/core/bytes.h"
#include "chunkwise/core/result.h"
#include "formats/precomputed/sharding.h"

namespace chunkwise::formats::precomputed {

// One segment's skeleton: vertices x, y, z (the info's stored model space,
// nanometres for ours), edges as vertex index pairs, a radius per vertex.
struct Skeleton {
  std::uint64_t label = 0;
  std::vector<std::array<float, 3>> vertices;
  std::vector<std::array<std::uint32_t, 2>> edges;
  std::vector<float> radii;
};

// Little-endian: uint32 vertex count, uint32 edge count, float32 x, y, z per
// vertex, uint32 pairs per edge, then float32 radius per vertex (the one
// vertex attribute our info declares).
Bytes EncodeSkeleton(const Skeleton& skeleton);
// The reverse, for a file written with the radius attribute. Corruption naming
// `where` when the sizes disagree with the counts or an edge names a vertex
// past the end.
Result<Skeleton> DecodeSkeleton(ByteView bytes, std::string_view where);

// The skeleton directory's info: "@type": "neuroglancer_skeletons", the
// 3x4 row-major `transform` (stored model space to nanometres) and the
// radius attribute; `sharding`, when given, says the skeletons are in shard
// files (formats/precomputed/segment_shards.h) rather than one file per label.
std::string SkeletonInfoJson(const std::array<double, 12>& transform,
                             const ShardingSpec* sharding = nullptr);
// The identity transform: our vertices are in nanometres already.
std::array<double, 12> IdentityTransform();

// SWC text: one line per vertex "id type x y z radius parent", ids from 1,
// parent -1 at each tree's root (the first vertex of its tree met in order);
// a vertex with two parents in the edge list keeps the first.
std::string SkeletonToSwc(const Skeleton& skeleton);

}  // namespace chunkwise::formats::precomputed

#endif  // CHUNKWISE_FORMATS_PRECOMPUTED_SKELETON_FILE_H_
