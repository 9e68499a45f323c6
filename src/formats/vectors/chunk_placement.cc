#include "formats/vectors/chunk_placement.h"

#include <algorithm>
#include <cmath>
#include <unordered_map>

namespace chunkwise::formats::vectors {
namespace {

struct ChunkHash {
  std::size_t operator()(const ChunkCoord& chunk) const {
    std::size_t hash = 0;
    for (std::int64_t c : chunk) hash = hash * 0x9E3779B97F4A7C15ull + static_cast<std::size_t>(c);
    return hash;
  }
};

}  // namespace

ChunkCoord ChunkOf(const Vec3f& position, const Vec3& chunk_shape) {
  ChunkCoord chunk{};
  for (int d = 0; d < kSpatialDims; ++d) {
    // Division in double: float32 positions are exact there, so the floor is the true one.
    // The clamp keeps the conversion defined; writers refuse positions that reach it.
    const double index = std::floor(static_cast<double>(position[d]) / chunk_shape[d]);
    chunk[d] = static_cast<std::int64_t>(std::clamp(index, -kMaxChunkIndex, kMaxChunkIndex));
  }
  return chunk;
}

ChunkPlacement PlaceVertices(std::span<const Vec3f> positions, const Vec3& chunk_shape) {
  ChunkPlacement placement;
  std::unordered_map<ChunkCoord, std::uint32_t, ChunkHash> first_seen;
  std::vector<ChunkCoord> seen_chunks;
  std::vector<std::uint32_t> seen_index(positions.size());
  for (std::size_t v = 0; v < positions.size(); ++v) {
    const ChunkCoord chunk = ChunkOf(positions[v], chunk_shape);
    auto [it, inserted] =
        first_seen.try_emplace(chunk, static_cast<std::uint32_t>(seen_chunks.size()));
    if (inserted) seen_chunks.push_back(chunk);
    seen_index[v] = it->second;
  }
  // Renumber chunks in sorted order so that chunk indices follow key order.
  std::vector<std::uint32_t> order(seen_chunks.size());
  for (std::uint32_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(),
            [&](std::uint32_t a, std::uint32_t b) { return seen_chunks[a] < seen_chunks[b]; });
  std::vector<std::uint32_t> rank(order.size());
  for (std::uint32_t r = 0; r < order.size(); ++r) {
    rank[order[r]] = r;
    placement.chunks.push_back(seen_chunks[order[r]]);
  }
  placement.members.resize(order.size());
  placement.chunk_index.resize(positions.size());
  placement.vi.resize(positions.size());
  for (std::size_t v = 0; v < positions.size(); ++v) {
    const std::uint32_t chunk = rank[seen_index[v]];
    placement.chunk_index[v] = chunk;
    placement.vi[v] = static_cast<std::int64_t>(placement.members[chunk].size());
    placement.members[chunk].push_back(static_cast<std::int64_t>(v));
  }
  return placement;
}

}  // namespace chunkwise::formats::vectors
