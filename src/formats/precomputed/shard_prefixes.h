// A shard whose chunks may each be preceded by bytes of their own that lie
// outside the chunk's byte range: the sharded multi-resolution mesh format
// puts a segment's fragments right before its manifest, and a reader finds
// them by the manifest's offset less the fragments' sizes
// (docs/formats/precomputed-meshes.md, "Sharded").
#ifndef CHUNKWISE_FORMATS_PRECOMPUTED_SHARD_PREFIXES_H_
#define CHUNKWISE_FORMATS_PRECOMPUTED_SHARD_PREFIXES_H_

#include <vector>

#include "formats/precomputed/sharding.h"

namespace chunkwise::formats::precomputed {

// BuildShard, with prefixes[i] (empty where absent; `prefixes` may be
// shorter than `chunks`) written immediately before chunks[i]. The minishard
// index gives chunks[i]'s own range only. Errors as BuildShard.
Result<ShardImage> BuildShardWithPrefixes(std::vector<ShardChunk> chunks,
                                          const std::vector<ByteView>& prefixes,
                                          const ShardingSpec& spec);

}  // namespace chunkwise::formats::precomputed

#endif  // CHUNKWISE_FORMATS_PRECOMPUTED_SHARD_PREFIXES_H_
