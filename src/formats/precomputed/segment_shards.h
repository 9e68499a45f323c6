// Per-segment objects of a precomputed folder (multi-resolution meshes,
// skeletons) in neuroglancer_uint64_sharded_v1 shard files, keyed by segment
// id: the one writer and reader both folders share (docs/formats/
// precomputed-meshes.md, "Sharded"; docs/formats/precomputed-skeletons.md,
// "Sharded").
//
// A segment's object is the shard's chunk of its id; a mesh puts its
// fragments before the chunk (its manifest) as a prefix, outside the chunk's
// byte range (formats/precomputed/shard_prefixes.h).
#ifndef CHUNKWISE_FORMATS_PRECOMPUTED_SEGMENT_SHARDS_H_
#define CHUNKWISE_FORMATS_PRECOMPUTED_SEGMENT_SHARDS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "chunkwise/core/bytes.h"
#include "chunkwise/core/result.h"
#include "chunkwise/store/store.h"
#include "formats/precomputed/sharding.h"

namespace chunkwise::formats::precomputed {

// Sharding for `segments` objects: ids hashed (murmurhash3_x86_128), about
// 4096 segments a shard and 8 a minishard, minishard indexes gzipped, data
// raw (a reader takes a mesh's fragments from the shard by byte range).
ShardingSpec SegmentSharding(std::uint64_t segments);

// One segment's object: `chunk` as the data encoding of the spec leaves it
// to be encoded (gzip is applied here), `prefix` written raw just before it.
struct SegmentObject {
  std::uint64_t id = 0;
  ByteView chunk;
  ByteView prefix;
};

struct WrittenShards {
  std::vector<std::string> keys;  // "<folder><hex>.shard", in shard order
  std::uint64_t bytes = 0;
};

// Groups `objects` by shard and writes each shard file under `folder` (a
// key prefix ending in "/", or ""). InvalidArgument when an id repeats;
// the store's errors naming the key.
Result<WrittenShards> WriteSegmentShards(store::Store& store, const std::string& folder,
                                         const ShardingSpec& spec,
                                         const std::vector<SegmentObject>& objects);

// The chunk of segment `id` from the shard files under `folder`, gunzipped
// when the spec says so; nullopt when its shard or its entry is absent.
// Corruption naming the shard file for an index or data that does not parse.
Result<std::optional<Bytes>> ReadSegmentChunk(const store::Store& store, const std::string& folder,
                                              const ShardingSpec& spec, std::uint64_t id);

}  // namespace chunkwise::formats::precomputed

#endif  // CHUNKWISE_FORMATS_PRECOMPUTED_SEGMENT_SHARDS_H_
