#include "formats/vectors/store_info.h"

#include "formats/vectors/layout.h"
#include "formats/vectors/level_reader.h"

namespace chunkwise::formats::vectors {

Result<std::vector<LevelInfo>> DescribeLevels(const VectorStore& store) {
  std::vector<LevelInfo> levels;
  for (int level = 0; level < store.metadata().num_levels; ++level) {
    LevelInfo info;
    CHUNKWISE_ASSIGN_OR_RETURN(info.metadata, store.ReadLevel(level));
    CHUNKWISE_ASSIGN_OR_RETURN(std::vector<ChunkCoord> chunks,
                               ListChunks(store, level, layout::kVerticesDir));
    info.chunks = chunks.size();
    CHUNKWISE_ASSIGN_OR_RETURN(info.link_deltas, ListLinkDeltas(store, level));
    CHUNKWISE_ASSIGN_OR_RETURN(std::vector<int> cross, ListCrossLinkDeltas(store, level));
    for (const int delta : cross) {
      CHUNKWISE_ASSIGN_OR_RETURN(std::optional<CrossChunkFamily> family,
                                 ReadCrossChunkFamily(store, level, delta));
      info.cross_deltas.emplace_back(delta, family ? family->num_links : 0);
    }
    levels.push_back(std::move(info));
  }
  return levels;
}

}  // namespace chunkwise::formats::vectors
