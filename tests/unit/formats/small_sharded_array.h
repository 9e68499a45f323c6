// The metadata of the small sharded uint16 arrays the tests of shard reads
// (cold, coalesced, batched, over HTTP) read: a sharding_indexed codec whose
// inner chunks are little-endian bytes, then optional compressors, and whose
// index (with its default crc32c) is at the end of the shard.
#ifndef CHUNKWISE_TESTS_UNIT_FORMATS_SMALL_SHARDED_ARRAY_H_
#define CHUNKWISE_TESTS_UNIT_FORMATS_SMALL_SHARDED_ARRAY_H_

#include <nlohmann/json.hpp>
#include <utility>

#include "formats/zarr/array.h"

namespace chunkwise::formats::zarr {

// uint16 of `shape` (fill 0) in shards of `shard` of inner chunks `inner`,
// the inner chunks encoded by "bytes" then each of `compressors`.
inline ArrayMetadata SmallShardedArray(core::Shape shape, core::Shape shard, core::Shape inner,
                                       nlohmann::json compressors = nlohmann::json::array()) {
  using nlohmann::json;
  ArrayMetadata metadata;
  metadata.shape = std::move(shape);
  metadata.chunk_shape = std::move(shard);
  metadata.data_type = core::DataType(core::DataTypeId::kUInt16);
  metadata.fill_value = {0, 0};
  json codecs = json::array({{{"name", "bytes"}, {"configuration", {{"endian", "little"}}}}});
  for (json& compressor : compressors) codecs.push_back(std::move(compressor));
  metadata.codecs = json::array({{{"name", "sharding_indexed"},
                                  {"configuration",
                                   {{"chunk_shape", std::move(inner)},
                                    {"codecs", std::move(codecs)},
                                    {"index_location", "end"}}}}});
  return metadata;
}

// zstd at level 1, as the tests that read compressed inner chunks use.
inline nlohmann::json Zstd1() {
  return nlohmann::json::array({{{"name", "zstd"}, {"configuration", {{"level", 1}}}}});
}

}  // namespace chunkwise::formats::zarr

#endif  // CHUNKWISE_TESTS_UNIT_FORMATS_SMALL_SHARDED_ARRAY_H_
