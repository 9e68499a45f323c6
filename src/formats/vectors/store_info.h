// A summary of what a zarr-vectors store holds, level by level (`vectors info`).
#ifndef CHUNKWISE_FORMATS_VECTORS_STORE_INFO_H_
#define CHUNKWISE_FORMATS_VECTORS_STORE_INFO_H_

#include <utility>
#include <vector>

#include "formats/vectors/vector_store.h"

namespace chunkwise::formats::vectors {

struct LevelInfo {
  LevelMetadata metadata;
  std::uint64_t chunks = 0;      // Chunks with vertices.
  std::vector<int> link_deltas;  // Under links/.
  std::vector<std::pair<int, std::uint64_t>>
      cross_deltas;  // Under cross_chunk_links/: (delta, num_links).
};

// Reads each level's metadata and listings; errors name the path.
Result<std::vector<LevelInfo>> DescribeLevels(const VectorStore& store);

}  // namespace chunkwise::formats::vectors

#endif  // CHUNKWISE_FORMATS_VECTORS_STORE_INFO_H_
