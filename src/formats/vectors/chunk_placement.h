// ChunkPlacement: which spatial chunk each vertex goes to and its row (vi) there.
//
// Spec: docs/formats/vectors.md, "Tree": chunk = floor(pos / chunk_shape)
// in absolute world coordinates (negative chunks allowed); vi is the row in
// that chunk's vertices blob. Vertices keep their input order within a chunk.
#ifndef CHUNKWISE_FORMATS_VECTORS_CHUNK_PLACEMENT_H_
#define CHUNKWISE_FORMATS_VECTORS_CHUNK_PLACEMENT_H_

#include <cstdint>
#include <span>
#include <vector>

#include "formats/vectors/cross_chunk_record.h"
#include "formats/vectors/geometry.h"

namespace chunkwise::formats::vectors {

// The largest chunk index magnitude; positions beyond it (huge coordinates
// over tiny chunks) are refused by the writers.
inline constexpr double kMaxChunkIndex = 1e15;

// The chunk holding `position`, each index clamped to ±kMaxChunkIndex.
ChunkCoord ChunkOf(const Vec3f& position, const Vec3& chunk_shape);

struct ChunkPlacement {
  std::vector<ChunkCoord> chunks;                  // Distinct, sorted.
  std::vector<std::vector<std::int64_t>> members;  // Per chunk: its vertices, in vi order.
  std::vector<std::uint32_t> chunk_index;          // Per vertex: index into `chunks`.
  std::vector<std::int64_t> vi;                    // Per vertex: row in its chunk.

  Endpoint EndpointOf(std::int64_t vertex) const {
    return Endpoint{chunks[chunk_index[vertex]], vi[vertex]};
  }
};

// Places every vertex. REQUIRES: finite positions, positive chunk_shape.
ChunkPlacement PlaceVertices(std::span<const Vec3f> positions, const Vec3& chunk_shape);

}  // namespace chunkwise::formats::vectors

#endif  // CHUNKWISE_FORMATS_VECTORS_CHUNK_PLACEMENT_H_
