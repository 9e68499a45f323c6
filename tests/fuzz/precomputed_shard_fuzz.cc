// libFuzzer target: the neuroglancer_uint64_sharded_v1 shard parsers (the
// shard index, raw and gzip minishard indexes) on arbitrary bytes.
//
// The first byte picks minishard_bits (0..3) and the minishard index
// encoding; the rest is a whole shard. Every parser must return a value or
// Corruption, every range it returns must lie inside the shard, and every
// entry it returns must hash to the minishard it was filed under (#44).
#include <cstdlib>

#include "formats/precomputed/sharding.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  namespace pc = chunkwise::formats::precomputed;
  if (size < 1) return 0;
  pc::ShardingSpec spec;
  spec.minishard_bits = data[0] & 3;
  spec.minishard_index_encoding =
      (data[0] & 4) != 0 ? pc::ShardEncoding::kGzip : pc::ShardEncoding::kRaw;
  const chunkwise::ByteView shard(data + 1, size - 1);
  const std::uint64_t index_size = spec.shard_index_size();
  const auto spans = pc::ParseShardIndex(
      shard.first(std::min<std::size_t>(shard.size(), index_size)), spec, shard.size(), "fuzz");
  if (!spans.ok()) {
    if (spans.status().code() != chunkwise::StatusCode::kCorruption) std::abort();
    return 0;
  }
  for (std::uint64_t m = 0; m < spans->size(); ++m) {
    const pc::MinishardSpan span = (*spans)[m];
    if (span.start > span.end || span.end > shard.size()) std::abort();
    const auto entries = pc::DecodeMinishardIndex(shard.subspan(span.start, span.end - span.start),
                                                  spec, shard.size(), m, "fuzz");
    if (!entries.ok()) {
      if (entries.status().code() != chunkwise::StatusCode::kCorruption) std::abort();
      continue;
    }
    for (const pc::MinishardEntry& entry : *entries) {
      if (entry.offset > shard.size() || entry.size > shard.size() - entry.offset) std::abort();
      if (pc::LocateChunk(spec, entry.chunk_id).minishard != m) std::abort();
    }
  }
  return 0;
}
